//go:build linux

package benchmarks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	goruntime "runtime"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// Prune benchmarks: the server's pruning.PruneWithOptions (resource root,
// unknown-field paths tracked, as a create with field validation Warn or
// Strict runs it) beside crdkit's prune.Object with the same options, a
// plain walk over the same object, and the floor walk (the plain walk
// without what a pruner removes unread), on corpus objects and on objects
// generated from corpus schemas. Each object comes as is and with unknown
// fields added to every map ("+unknown"): BenchmarkPrune/<crd>/<object>/
// {crdkit,upstream,plainwalk,floorwalk}. BenchmarkPruneNoPaths compares
// the two without path tracking (field validation Ignore).
//
// ns/op, B/op and allocs/op cover the operation alone, not the deep copies
// that feed it (see pruneRun).

// pruneObjects are the corpus objects benchmarked: file under objects/,
// document index, short name.
var pruneObjects = []struct {
	file  string
	index int
	name  string
}{
	{"argo-cd/application.yaml", 0, "application"},
	{"argo-rollouts/rollout-canary.yaml", 0, "rollout-canary"},
	{"gateway-api/httproute-all-fields-set.yaml", 0, "httproute-all-fields"},
	{"prometheus-operator/prometheus.yaml", 0, "prometheus"},
}

// pruneGenerated are the CRD versions ("Kind group/version") that also get
// a generated object of realistic size.
var pruneGenerated = []string{
	"Prometheus monitoring.coreos.com/v1",
	"Rollout argoproj.io/v1alpha1",
	"Application argoproj.io/v1alpha1",
}

type pruneCase struct {
	crd, object string // benchmark name parts
	up          *structuralschema.Structural
	ours        *schema.Schema
	obj         any  // decoded as the server decodes; never modified
	clean       bool // neither implementation changes obj
}

var (
	pruneCasesOnce sync.Once
	pruneCasesList []pruneCase
	pruneCasesErr  error
)

// pruneCases loads the benchmark inputs once.
func pruneCases(tb testing.TB) []pruneCase {
	dir := benchCorpus(tb)
	pruneCasesOnce.Do(func() { pruneCasesList, pruneCasesErr = loadPruneCases(dir) })
	if pruneCasesErr != nil {
		tb.Fatal(pruneCasesErr)
	}
	if len(pruneCasesList) == 0 {
		tb.Skip("no corpus object matched a corpus CRD")
	}
	return pruneCasesList
}

func loadPruneCases(dir string) ([]pruneCase, error) {
	versions, err := corpusVersions(dir)
	if err != nil {
		return nil, err
	}
	var out []pruneCase
	add := func(s *corpusVersion, name string, obj any) {
		for _, c := range []pruneCase{
			{crd: s.name, object: name, up: s.up, ours: s.ours, obj: obj},
			{crd: s.name, object: name + "+unknown", up: s.up, ours: s.ours, obj: pruneSprinkle(runtime.DeepCopyJSONValue(obj))},
		} {
			done := runtime.DeepCopyJSONValue(c.obj)
			pruneUpstream(done, c.up)
			c.clean = reflect.DeepEqual(done, c.obj)
			out = append(out, c)
		}
	}
	for _, o := range pruneObjects {
		obj, s, err := corpusObject(dir, o.file, o.index, versions)
		if err != nil {
			return nil, err
		}
		add(s, o.name, obj)
	}
	for _, key := range pruneGenerated {
		s := versions[key]
		if s == nil {
			return nil, fmt.Errorf("no CRD version %s", key)
		}
		budget := 1500
		obj := pruneFill(s.ours, 0, &budget)
		if m, ok := obj.(map[string]any); ok {
			m["apiVersion"], m["kind"] = "example.com/v1", "Generated"
			m["metadata"] = map[string]any{"name": "generated", "namespace": "default"}
		}
		decoded, err := serverTyped(obj)
		if err != nil {
			return nil, err
		}
		add(s, "generated", decoded)
	}
	return out, nil
}

func pruneUpstream(obj any, s *structuralschema.Structural) []string {
	return pruning.PruneWithOptions(obj, s, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}

func pruneCrdkit(obj any, s *schema.Schema) []string {
	return prune.Object(obj, s, prune.Options{Root: true}, nil)
}

// pruneSprinkle adds unknown fields to every map of obj except the root's
// metadata: a string everywhere, and a small object in every third map.
func pruneSprinkle(obj any) any {
	n := 0
	var walk func(v any, top bool)
	walk = func(v any, top bool) {
		switch v := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if !top || k != "metadata" {
					walk(v[k], false)
				}
			}
			v["unknownField"] = "x"
			if n%3 == 0 {
				v["unknownObject"] = map[string]any{"a": []any{int64(1), map[string]any{"b": "c"}}}
			}
			n++
		case []any:
			for _, x := range v {
				walk(x, false)
			}
		}
	}
	walk(obj, true)
	return obj
}

// pruneFill generates a value from a compiled schema: every property down to
// depth 3, every other one below, two elements per array and two keys per
// map of additionalProperties, within a budget of values. Values need not be
// valid; pruning does not look.
func pruneFill(s *schema.Schema, depth int, budget *int) any {
	*budget--
	switch {
	case s.IntOrString():
		return "80%"
	case s.Type() == "object" || s.NumProperties() > 0:
		m := map[string]any{}
		i := 0
		for k, c := range s.Properties() {
			if *budget <= 0 || depth > 8 {
				break
			}
			i++
			if depth > 3 && i%2 == 0 {
				continue
			}
			m[k] = pruneFill(c, depth+1, budget)
		}
		if a, allows, _ := s.AdditionalProperties(); allows && *budget > 0 && depth <= 8 {
			for i := range 2 {
				if a == nil {
					m[fmt.Sprintf("key%d", i)] = "value"
					continue
				}
				m[fmt.Sprintf("key%d", i)] = pruneFill(a, depth+1, budget)
			}
		}
		if s.EmbeddedResource() {
			m["apiVersion"], m["kind"] = "v1", "ConfigMap"
			m["metadata"] = map[string]any{"name": "embedded"}
		}
		if s.PreserveUnknownFields() {
			m["preserved"] = map[string]any{"free": []any{"form"}}
		}
		return m
	case s.Type() == "array":
		l := []any{}
		if it := s.Items(); it != nil && *budget > 0 && depth <= 8 {
			for range 2 {
				l = append(l, pruneFill(it, depth+1, budget))
			}
		}
		return l
	case s.Type() == "string":
		if e := s.Enum(); len(e) > 0 {
			return e[0]
		}
		return "value"
	case s.Type() == "integer":
		return int64(3)
	case s.Type() == "number":
		return 1.5
	case s.Type() == "boolean":
		return true
	}
	return map[string]any{"free": "form"}
}

// pruneRun times f on c's object. Both implementations modify their input,
// so unless the case is clean every iteration gets a fresh deep copy. The
// copies are made in batches of up to 8192 (about 8 MB at most) with the
// timer stopped, so the copy cost and its allocations are not measured; the
// timer is stopped once per batch, which keeps its own overhead small. A
// full collection ends each untimed batch preparation, so that the
// collector's work on the copies does not run (and turn on write barriers)
// during the timed region; a collection that f's own allocations trigger is
// timed, as it should be. A clean case (which neither implementation changes,
// as TestPruneBenchInputs checks) runs on the same object every time.
//
// Besides ns/op (wall time), it reports cpu-ns/op: the CPU time of the
// benchmark's own OS thread in the timed regions (getrusage RUSAGE_THREAD,
// user plus system, with the goroutine locked to its thread). It leaves out
// the time other processes hold the CPU on a shared machine, and also the
// collector's background workers, which favours the implementation that
// allocates (upstream).
func pruneRun(b *testing.B, c pruneCase, f func(any)) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	if c.clean {
		start := pruneThreadCPU()
		for b.Loop() {
			f(c.obj)
		}
		b.ReportMetric(float64((pruneThreadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		return
	}
	raw, _ := json.Marshal(c.obj)
	batch := min(max((8<<20)/(len(raw)*4+1), 1), 8192)
	copies := make([]any, batch)
	var cpu time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(batch, b.N-done)
		b.StopTimer()
		for j := range n {
			copies[j] = runtime.DeepCopyJSONValue(c.obj)
		}
		goruntime.GC()
		b.StartTimer()
		start := pruneThreadCPU()
		for j := range n {
			f(copies[j])
		}
		cpu += pruneThreadCPU() - start
		done += n
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// pruneThreadCPU is the CPU time of the calling OS thread.
func pruneThreadCPU() time.Duration { return rusageCPU(pruneRusageThread) }

// rusageCPU is the user and system CPU time getrusage reports for who.
func rusageCPU(who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// pruneRusageThread is RUSAGE_THREAD (Linux); syscall does not name it.
const pruneRusageThread = 1

func BenchmarkPrune(b *testing.B) {
	for _, c := range pruneCases(b) {
		name := c.crd + "/" + c.object + "/"
		b.Run(name+"crdkit", func(b *testing.B) {
			pruneRun(b, c, func(x any) { pruneCrdkit(x, c.ours) })
		})
		b.Run(name+"upstream", func(b *testing.B) {
			pruneRun(b, c, func(x any) { pruneUpstream(x, c.up) })
		})
		b.Run(name+"plainwalk", func(b *testing.B) {
			pruneRun(b, c, func(x any) { pruneWalk(x) })
		})
		b.Run(name+"floorwalk", func(b *testing.B) {
			pruneRun(b, c, func(x any) { floorWalk(x) })
		})
	}
}

// floorWalk is pruneWalk without the subtrees of the unknown objects that
// pruneSprinkle adds, which a pruner removes without reading them: the
// least reading any pruner must do on a "+unknown" object (on the others it
// is pruneWalk). No lookup, no removal, no path.
func floorWalk(v any) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k != "unknownObject" {
				n += floorWalk(x)
			}
		}
	case []any:
		for _, x := range v {
			n += floorWalk(x)
		}
	}
	return n
}

// BenchmarkPruneNoPaths is BenchmarkPrune without path tracking: the
// server's pruning.Prune (field validation Ignore) beside prune.Object with
// Options.NoPaths.
func BenchmarkPruneNoPaths(b *testing.B) {
	for _, c := range pruneCases(b) {
		name := c.crd + "/" + c.object + "/"
		b.Run(name+"crdkit", func(b *testing.B) {
			pruneRun(b, c, func(x any) { prune.Object(x, c.ours, prune.Options{Root: true, NoPaths: true}, nil) })
		})
		b.Run(name+"upstream", func(b *testing.B) {
			pruneRun(b, c, func(x any) { pruning.Prune(x, c.up, true) })
		})
	}
}

// pruneWalk visits every value once: the floor below which no pruning can go.
func pruneWalk(v any) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			n += pruneWalk(x)
		}
	case []any:
		for _, x := range v {
			n += pruneWalk(x)
		}
	}
	return n
}

// TestPruneBenchInputs checks that both implementations agree on the
// benchmark inputs, that the clean ones are clean, and that crdkit allocates
// nothing on a clean object.
func TestPruneBenchInputs(t *testing.T) {
	for _, c := range pruneCases(t) {
		t.Run(c.crd+"/"+c.object, func(t *testing.T) {
			up, ours := runtime.DeepCopyJSONValue(c.obj), runtime.DeepCopyJSONValue(c.obj)
			upPaths := pruneUpstream(up, c.up)
			ourPaths := pruneCrdkit(ours, c.ours)
			uj, _ := json.Marshal(up)
			oj, _ := json.Marshal(ours)
			if !bytes.Equal(uj, oj) {
				t.Errorf("crdkit = %s\nupstream = %s", oj, uj)
			}
			if !reflect.DeepEqual(upPaths, ourPaths) {
				t.Errorf("crdkit paths = %q\nupstream paths = %q", ourPaths, upPaths)
			}
			raw, _ := json.Marshal(c.obj)
			t.Logf("%d bytes of JSON, %d values, %d pruned, clean=%v", len(raw), pruneWalk(c.obj), len(upPaths), c.clean)
			if c.clean != (len(upPaths) == 0 && reflect.DeepEqual(up, c.obj)) {
				t.Errorf("clean = %v, but upstream prunes %q", c.clean, upPaths)
			}
			if n := testing.AllocsPerRun(20, func() { pruneCrdkit(ours, c.ours) }); n != 0 {
				t.Errorf("crdkit allocates %v times on a pruned object", n)
			}
		})
	}
}
