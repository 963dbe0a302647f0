//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/internal/docs"
)

// cliBenchObjects are the corpus objects BenchmarkCLIPerDocument checks:
// small and large, with and without defaults and CEL rules.
var cliBenchObjects = []string{
	"argo-rollouts/rollout-canary.yaml#0",
	"cert-manager/issuers.valid.yaml#0",
	"gateway-api/httproute-all-fields-set.yaml#0",
	"istio/destination-rule-all.yaml#0",
	"prometheus-operator/prometheus.yaml#0",
}

// cliBenchDocs is how many documents one run of the CLI checks in
// BenchmarkCLIPerDocument: enough that the run's fixed costs (flags,
// reading the CRD, compiling it) weigh little in the cost per document.
const cliBenchDocs = 1000

// BenchmarkCLIPerDocument/<crd>/<object>/{cli-one,cli-json,cli-yaml,cli-stream,createjson}
// sets the CLI's cost per document beside Version.CreateJSON's on the same
// bytes. cli-one is the run's fixed cost: the same run on one JSON file
// (reading and compiling the CRD, for the most part); the cost of a
// document is then (cli-json - cli-one) / (cliBenchDocs - 1). cli-json runs `crdkit validate -o json --crds CRD DIR` (the run
// function, output discarded) on a directory of cliBenchDocs files holding
// each the object's JSON, one worker; cli-yaml the same with the object's
// YAML as the corpus writes it; cli-stream the same YAML documents in one
// file, separated by --- lines (a manifest of many objects: no per-file
// cost). createjson is Version.CreateJSON on the
// JSON bytes with the CLI's options (Strict, managed fields omitted). The
// sub-benchmarks report ns/doc (the run's wall time over its documents)
// and cpu-ns/doc (the process's CPU time, every thread, over them).
// Run with -cpu 1 so that the CLI's reader and writer goroutines do not
// hide their cost on other cores:
//
//	go test -run '^$' -bench CLIPerDocument -cpu 1 -count 3 ./cmd/crdkit
func BenchmarkCLIPerDocument(b *testing.B) {
	root, ok := corpus.Root()
	if !ok {
		b.Skip("corpus not found: set CRDKIT_CORPUS or put it at ../shared/corpus")
	}
	objects, err := corpus.Walk(filepath.Join(root, "objects"))
	if err != nil {
		b.Fatal(err)
	}
	crdFiles, err := crdFilesByType(filepath.Join(root, "crds"))
	if err != nil {
		b.Fatal(err)
	}
	for _, want := range cliBenchObjects {
		var js []byte
		for _, d := range objects {
			if d.Name == want {
				js = d.JSON
			}
		}
		if js == nil {
			b.Fatalf("corpus object %s not found", want)
		}
		var tm struct{ APIVersion, Kind string }
		_ = json.Unmarshal(js, &tm)
		crdFile := crdFiles[tm.APIVersion+" "+tm.Kind]
		if crdFile == "" {
			b.Fatalf("%s: no corpus CRD serves %s %s", want, tm.APIVersion, tm.Kind)
		}
		name := strings.TrimSuffix(want, "#0")
		name = strings.ReplaceAll(strings.TrimSuffix(name, filepath.Ext(name)), "/", "-")
		y, err := yaml.JSONToYAML(js)
		if err != nil {
			b.Fatal(err)
		}
		dir := b.TempDir()
		for _, f := range []struct {
			sub, ext string
			data     []byte
		}{{"json", ".json", js}, {"yaml", ".yaml", y}} {
			if err := os.MkdirAll(filepath.Join(dir, f.sub), 0o755); err != nil {
				b.Fatal(err)
			}
			for i := range cliBenchDocs {
				if err := os.WriteFile(filepath.Join(dir, f.sub, fmt.Sprintf("%04d%s", i, f.ext)), f.data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		}
		// stream: the same YAML documents in one file, separated by ---
		// (a manifest file of many objects): no per-file cost.
		if err := os.MkdirAll(filepath.Join(dir, "stream"), 0o755); err != nil {
			b.Fatal(err)
		}
		stream := make([]byte, 0, cliBenchDocs*(len(y)+4))
		for i := range cliBenchDocs {
			if i > 0 {
				stream = append(stream, "---\n"...)
			}
			stream = append(stream, y...)
		}
		if err := os.WriteFile(filepath.Join(dir, "stream", "all.yaml"), stream, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(dir, "one"), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "one", "0000.json"), js, 0o644); err != nil {
			b.Fatal(err)
		}
		prefix := strings.ToLower(tm.Kind) + "/" + name
		for _, sub := range []string{"one", "json", "yaml", "stream"} {
			docs := cliBenchDocs
			if sub == "one" {
				docs = 1
			}
			b.Run(prefix+"/cli-"+sub, func(b *testing.B) {
				args := []string{"validate", "--field-validation", "Strict", "-o", "json", "--workers", "1", "--crds", crdFile, filepath.Join(dir, sub)}
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("crdkit %s: exit %d, want 0", strings.Join(args, " "), code)
				}
				b.ResetTimer()
				cpu := processCPU()
				for b.Loop() {
					run(args, io.Discard, io.Discard)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(docs), "ns/doc")
				b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N)/float64(docs), "cpu-ns/doc")
			})
		}
		b.Run(prefix+"/createjson", func(b *testing.B) {
			data, err := os.ReadFile(crdFile)
			if err != nil {
				b.Fatal(err)
			}
			v, err := servingVersion(data, tm.APIVersion, tm.Kind)
			if err != nil {
				b.Fatal(err)
			}
			opts := crdkit.CreateOptions{FieldValidation: crdkit.Strict, ManagedFields: crdkit.ManagedFields{Omit: true}}
			if res := v.CreateJSON(js, opts); res.Status() != nil {
				b.Fatalf("CreateJSON(%s) = %s, want accepted", want, res.Status().Message)
			}
			b.ReportAllocs()
			cpu := processCPU()
			for b.Loop() {
				v.CreateJSON(js, opts)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/doc")
			b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/doc")
		})
	}
}

// BenchmarkCLIReadFile is the floor under the CLI's cost per document:
// reading one small file (open, fstat, read, close, as the CLI reads its
// inputs) and, in the /list sub-benchmark, finding it in its directory
// (docs.Files over cliBenchDocs files, per file). It reports ns/file and
// cpu-ns/file.
//
//	go test -run '^$' -bench CLIReadFile -cpu 1 ./cmd/crdkit
func BenchmarkCLIReadFile(b *testing.B) {
	dir := b.TempDir()
	data := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
	var paths []string
	for i := range cliBenchDocs {
		p := filepath.Join(dir, fmt.Sprintf("%04d.yaml", i))
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
		paths = append(paths, p)
	}
	report := func(b *testing.B, cpu time.Duration, files int) {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(files), "ns/file")
		b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N)/float64(files), "cpu-ns/file")
	}
	b.Run("read", func(b *testing.B) {
		buf := make([]byte, 0, 4096)
		cpu := processCPU()
		for b.Loop() {
			for _, p := range paths {
				if _, err := docs.ReadFileInto(p, buf); err != nil {
					b.Fatal(err)
				}
			}
		}
		report(b, cpu, len(paths))
	})
	b.Run("list", func(b *testing.B) {
		cpu := processCPU()
		for b.Loop() {
			if _, err := docs.Files([]string{dir}); err != nil {
				b.Fatal(err)
			}
		}
		report(b, cpu, len(paths))
	})
}

// processCPU is the CPU time the process has used (user and system, all
// threads): on a shared machine, a better measure of cost than wall time,
// and the CLI's goroutines are all counted.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// crdFilesByType maps apiVersion + " " + kind to the corpus file holding
// the CRD that serves it.
func crdFilesByType(dir string) (map[string]string, error) {
	crds, err := corpus.CRDs(dir)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, c := range crds {
		file, _, _ := strings.Cut(c.Doc, "#")
		for _, v := range c.Spec.Versions {
			if v.Served {
				out[c.Spec.Group+"/"+v.Name+" "+c.Spec.Names.Kind] = filepath.Join(dir, file)
			}
		}
	}
	return out, nil
}

// servingVersion compiles the CRD of a file's documents that serves
// apiVersion and kind.
func servingVersion(data []byte, apiVersion, kind string) (*crdkit.Version, error) {
	ds, err := splitCRDs("crds", data)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		h, ok := isCRD(d.JSON)
		if !ok || h.Spec.Names.Kind != kind {
			continue
		}
		crd, err := crdkit.Load(d.JSON)
		if err != nil {
			return nil, err
		}
		for _, v := range crd.Versions() {
			if crd.Group()+"/"+v.Name() == apiVersion {
				return v, nil
			}
		}
	}
	return nil, fmt.Errorf("no CRD serves %s %s", apiVersion, kind)
}
