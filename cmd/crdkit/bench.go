package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/internal/docs"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

// benchInput is one object document with the version that serves it, in
// the forms the steps start from.
type benchInput struct {
	v      *crdkit.Version
	raw    []byte         // the document as JSON
	obj    map[string]any // decoded as the server decodes
	pruned map[string]any // pruned, null-pruned and defaulted: what validation sees
}

// benchStep is one measured step: run does it once on input i.
type benchStep struct {
	name string
	run  func(in *benchInput)
	only func(in *benchInput) bool // the inputs the step applies to; nil: all
}

type stepResult struct {
	Step          string  `json:"step"`
	Inputs        int     `json:"inputs"` // the objects the step applies to
	Cores         int     `json:"cores"`
	Objects       int64   `json:"objects"`
	Seconds       float64 `json:"seconds"`
	ObjectsPerSec float64 `json:"objectsPerSecond"`
	MBPerSec      float64 `json:"megabytesPerSecond"`
}

const benchHelp = `usage: crdkit bench [--crds FILE|DIR]... [--duration D] [-o text|json] FILE|DIR...

Measures crdkit's throughput on your objects: objects/s and MB/s (of the
objects' JSON) for each step of a dry-run create and for the whole create
from bytes, on one core and on all cores. Steps, each on the result of the
ones before it:
  prune     unknown-field pruning (on a copy)
  default   non-nullable null removal and defaults (on a copy)
  validate  OpenAPI value validation and list types
  cel       the x-kubernetes-validations rules
  create    Version.CreateJSON from the document's bytes (everything above,
            plus decoding, metadata, and store-and-read-back)
Documents no CRD serves are skipped. Each step runs for --duration on each
core count; a progress line goes to standard error when it is a terminal.

Examples:
  crdkit bench examples/crontab/
  crdkit bench --crds crds/ --duration 5s -o json manifests/
`

func bench(args []string, stdout, stderr io.Writer) int {
	fs := newFlags("bench", benchHelp)
	var crds listFlag
	fs.Var(&crds, "crds", "a CRD file or directory (repeatable); CRDs among the inputs are used too")
	dur := fs.Duration("duration", 2*time.Second, "how long to run each step on each number of cores")
	out := fs.String("o", "text", "output format: text or json")
	openCache := cacheFlag(fs)
	paths, status, ok := fs.parse(args, stdout, stderr)
	if !ok {
		return status
	}
	switch {
	case len(paths) == 0:
		return fs.usageError(stderr, "no FILE or DIR given")
	case !oneOf(*out, "text", "json"):
		return fs.usageError(stderr, "-o must be text or json, not %q", *out)
	case *dur <= 0:
		return fs.usageError(stderr, "--duration must be positive")
	}
	reg, status := loadRegistry(crds, paths, stderr, openCache())
	defer reg.close()
	var inputs []*benchInput
	var mu sync.Mutex
	checkAll(paths, runtime.GOMAXPROCS(0), stderr, &status, reg.isList, func(d docs.Doc) outcome {
		in, err := prepareBench(reg, d)
		if err == nil && in != nil {
			mu.Lock()
			inputs = append(inputs, in)
			mu.Unlock()
		}
		return outcome{err: err}
	}, func(o outcome) {
		var unserved *unservedError
		if o.err != nil && !errors.Is(o.err, errNoCRD) && !errors.As(o.err, &unserved) {
			fmt.Fprintf(stderr, "crdkit: %v\n", o.err)
			status = 2
		}
	})
	if status == 2 {
		return 2
	}
	if len(inputs) == 0 {
		fmt.Fprintln(stderr, "crdkit: no object a CRD serves among the inputs")
		return 2
	}
	var bytes int64
	for _, in := range inputs {
		bytes += int64(len(in.raw))
	}
	steps := []benchStep{
		{"prune", func(in *benchInput) {
			prune.Object(schema.DeepCopyValue(in.obj), in.v.Schema(), prune.Options{Root: true, NoPaths: true}, nil)
		}, nil},
		{"default", func(in *benchInput) {
			cp := schema.DeepCopyValue(in.obj)
			defaulting.PruneNulls(cp, in.v.Schema())
			defaulting.Apply(cp, in.v.Schema())
		}, nil},
		{"validate", func(in *benchInput) {
			if s := in.v.Schema(); s != nil {
				s.Validate(in.pruned, nil, nil)
				s.ValidateListTypes(in.pruned, nil, nil)
			}
		}, nil},
		// What create runs: without cel-go's cost tracking where that
		// provably changes nothing (rules.Validator.ValidateUntracked).
		{"cel", func(in *benchInput) {
			in.v.Rules().ValidateUntracked(context.Background(), in.pruned, nil, rules.RuntimeBudget)
		},
			func(in *benchInput) bool { return in.v.Rules() != nil }},
		{"create", func(in *benchInput) {
			in.v.CreateJSON(in.raw, crdkit.CreateOptions{ManagedFields: crdkit.ManagedFields{Omit: true}})
		}, nil},
	}
	cores := []int{1}
	if n := runtime.GOMAXPROCS(0); n > 1 {
		cores = append(cores, n)
	}
	progress := newProgress(stderr)
	var results []stepResult
	for _, st := range steps {
		set := inputs
		if st.only != nil {
			set = nil
			for _, in := range inputs {
				if st.only(in) {
					set = append(set, in)
				}
			}
			if len(set) == 0 {
				continue // no object of a version with rules
			}
		}
		for _, c := range cores {
			if progress.on {
				fmt.Fprintf(stderr, "\r%-8s on %d core(s)...", st.name, c)
			}
			results = append(results, runStep(st, c, set, *dur))
		}
	}
	if progress.on {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if *out == "json" {
		writeJSON(stdout, map[string]any{"objects": len(inputs), "bytes": bytes, "results": results})
		return 0
	}
	fmt.Fprintf(stdout, "%d objects, %.1f KB of JSON\n", len(inputs), float64(bytes)/1e3)
	fmt.Fprintf(stdout, "%-8s %7s %5s %14s %10s\n", "STEP", "OBJECTS", "CORES", "OBJECTS/S", "MB/S")
	for _, r := range results {
		fmt.Fprintf(stdout, "%-8s %7d %5d %14.0f %10.1f\n", r.Step, r.Inputs, r.Cores, r.ObjectsPerSec, r.MBPerSec)
	}
	return 0
}

// prepareBench decodes an object document as the server does and prepares
// the forms the steps start from; nil when it is not an object a CRD serves.
func prepareBench(reg *registry, d docs.Doc) (*benchInput, error) {
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	_ = json.Unmarshal(d.JSON, &tm)
	v, err := reg.version(tm.APIVersion, tm.Kind)
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(d.JSON, &obj); err != nil || obj == nil {
		return nil, nil
	}
	pruned := schema.DeepCopyValue(obj).(map[string]any)
	prune.Object(pruned, v.Schema(), prune.Options{Root: true, NoPaths: true}, nil)
	v.Default(pruned)
	return &benchInput{v: v, raw: d.JSON, obj: obj, pruned: pruned}, nil
}

// runStep runs st over the inputs, round robin, on cores goroutines for
// about d, and reports the throughput.
func runStep(st benchStep, cores int, inputs []*benchInput, d time.Duration) stepResult {
	var bytes int64
	for _, in := range inputs {
		bytes += int64(len(in.raw))
	}
	var done atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range cores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i := w
			for n := 0; ; n++ {
				if n%16 == 0 && time.Now().After(deadline) {
					return
				}
				st.run(inputs[i%len(inputs)])
				done.Add(1)
				i++
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	n := done.Load()
	perObj := float64(bytes) / float64(len(inputs))
	return stepResult{Step: st.name, Inputs: len(inputs), Cores: cores, Objects: n, Seconds: secs,
		ObjectsPerSec: float64(n) / secs, MBPerSec: float64(n) * perObj / secs / 1e6}
}
