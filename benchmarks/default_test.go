//go:build linux

package benchmarks

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	goruntime "runtime"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/schema"
)

// Default benchmarks: the server's null pruning and defaulting
// (PruneNonNullableNullsWithoutDefaults then Default, on the schema the server
// serves, after PruneDefaults) beside crdkit's (PruneNulls then Apply), on
// corpus objects and on objects generated from corpus schemas. Each object
// comes as is (defaults to apply, nulls to drop) and ".defaulted" (the server's
// result: nothing left to do). BenchmarkDefaultFloor walks the same objects
// once, the floor.
//
// ns/op, B/op and allocs/op cover the operation alone, not the deep copies
// that feed it (see defaultRun).

// defaultObjects are the corpus objects benchmarked: file under objects/,
// document index, short name.
var defaultObjects = []struct {
	file  string
	index int
	name  string
}{
	{"argo-cd/application.yaml", 0, "application"},
	{"argo-rollouts/rollout-canary.yaml", 0, "rollout-canary"},
	{"gateway-api/httproute-all-fields-set.yaml", 0, "httproute-all-fields"},
	{"knative/multicontainer-service.yaml", 0, "multicontainer-service"},
	{"prometheus-operator/prometheus.yaml", 0, "prometheus"},
}

// defaultGenerated are the CRD versions (kind, apiVersion) that also get a
// generated object of realistic size.
var defaultGenerated = []string{
	"Prometheus monitoring.coreos.com/v1",
	"Rollout argoproj.io/v1alpha1",
	"Application argoproj.io/v1alpha1",
}

type defaultCase struct {
	crd, object string // benchmark name parts
	up          *structuralschema.Structural
	ours        *schema.Schema
	obj         any  // decoded as the server decodes; never modified
	clean       bool // neither implementation changes obj
}

var (
	defaultCasesOnce sync.Once
	defaultCasesList []defaultCase
	defaultCasesErr  error
)

// defaultCases loads the benchmark inputs once.
func defaultCases(tb testing.TB) []defaultCase {
	dir := benchCorpus(tb)
	defaultCasesOnce.Do(func() { defaultCasesList, defaultCasesErr = loadDefaultCases(dir) })
	if defaultCasesErr != nil {
		tb.Fatal(defaultCasesErr)
	}
	if len(defaultCasesList) == 0 {
		tb.Skip("no corpus object matched a corpus CRD")
	}
	return defaultCasesList
}

func loadDefaultCases(dir string) ([]defaultCase, error) {
	versions, err := corpusVersions(dir)
	if err != nil {
		return nil, err
	}
	var out []defaultCase
	add := func(v *corpusVersion, name string, obj any) error {
		up, err := defaultServed(v.up)
		if err != nil {
			return fmt.Errorf("%s: %w", v.name, err)
		}
		out = append(out, defaultCase{crd: v.name, object: name, up: up, ours: v.ours, obj: obj})
		done := runtime.DeepCopyJSONValue(obj)
		defaultUpstream(done, up)
		out = append(out, defaultCase{crd: v.name, object: name + ".defaulted", up: up, ours: v.ours, obj: done,
			clean: true})
		return nil
	}
	for _, o := range defaultObjects {
		obj, v, err := corpusObject(dir, o.file, o.index, versions)
		if err != nil {
			return nil, err
		}
		if err := add(v, o.name, obj); err != nil {
			return nil, err
		}
	}
	for _, key := range defaultGenerated {
		v := versions[key]
		if v == nil {
			return nil, fmt.Errorf("no CRD version %s", key)
		}
		g := &defaultGen{r: rand.New(rand.NewPCG(1, uint64(len(key)))), budget: 2000}
		decoded, err := serverTyped(g.value(v.ours, 0))
		if err != nil {
			return nil, err
		}
		if err := add(v, "generated", decoded); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// defaultServed is the structural schema as the server serves it: with
// PruneDefaults applied (to a deep copy).
func defaultServed(ss *structuralschema.Structural) (*structuralschema.Structural, error) {
	ss = ss.DeepCopy()
	if err := structuraldefaulting.PruneDefaults(ss); err != nil {
		return nil, err
	}
	return ss, nil
}

func defaultUpstream(obj any, s *structuralschema.Structural) {
	structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s)
	structuraldefaulting.Default(obj, s)
}

func defaultCrdkit(obj any, s *schema.Schema) {
	defaulting.PruneNulls(obj, s)
	defaulting.Apply(obj, s)
}

// defaultGen generates an object from a compiled schema: every property
// down to depth 2, fewer deeper down, 2000 values at most, defaulted properties left out half of
// the time, nullable ones null one time in ten and non-nullable ones one
// time in twenty. Values need not be valid; defaulting does not look.
type defaultGen struct {
	r      *rand.Rand
	budget int
}

func (g *defaultGen) value(s *schema.Schema, depth int) any {
	g.budget--
	switch {
	case s.IntOrString():
		return "80%"
	case s.Type() == "object" || s.NumProperties() > 0:
		m := map[string]any{}
		for k, c := range s.Properties() {
			if g.budget <= 0 || depth > 8 {
				break
			}
			if _, ok := c.Default(); ok && g.r.IntN(2) == 0 {
				continue
			}
			if depth > 2 && g.r.Float64() > math.Pow(0.75, float64(depth-2)) {
				continue
			}
			switch {
			case c.Nullable() && g.r.IntN(10) == 0, g.r.IntN(20) == 0:
				m[k] = nil
			default:
				m[k] = g.value(c, depth+1)
			}
		}
		if a, _, _ := s.AdditionalProperties(); a != nil && g.budget > 0 && depth <= 8 {
			for i := range 2 {
				m[fmt.Sprintf("key%d", i)] = g.value(a, depth+1)
			}
		}
		return m
	case s.Type() == "array":
		var l []any
		if it := s.Items(); it != nil && g.budget > 0 && depth <= 8 {
			for range 2 {
				l = append(l, g.value(it, depth+1))
			}
		}
		return append([]any{}, l...)
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

// defaultRun times f on c's object. Both implementations modify their input,
// so unless the case is clean every iteration gets a fresh deep copy. The
// copies are made in batches with the timer stopped, so the copy cost and its
// allocations are not measured; the timer is stopped once per batch, not per
// iteration. A batch holds up to 1024 copies and about 256 KB, so that like
// a request body just decoded, the copy is still in the CPU's caches when it
// is processed (with 2 MB batches both implementations ran 1.5 to 3 times
// slower, crdkit more so, as its own work is smaller). The
// collector runs when it would: its background work on the copies' garbage
// overlaps timed and untimed regions alike, while f's own allocations pay
// their assists in the timed region. A clean case (the ".defaulted" objects,
// which neither implementation changes, as TestDefaultBenchInputs checks)
// runs on the same object every time.
//
// Besides ns/op (wall time), it reports cpu-ns/op: the CPU time of the
// benchmark's own OS thread in the timed regions (the thread CPU clock, with
// the goroutine locked to its thread). It excludes
// the time other processes hold the CPU on a shared machine, and also the
// collector's background workers, which favours the implementation that
// allocates (upstream).
func defaultRun(b *testing.B, c defaultCase, f func(any)) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	if c.clean {
		start := defaultThreadCPU()
		for b.Loop() {
			f(c.obj)
		}
		b.ReportMetric(float64((defaultThreadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
		return
	}
	raw, _ := json.Marshal(c.obj)
	batch := min(max((256<<10)/(len(raw)*4+1), 1), 1024)
	copies := make([]any, batch)
	var cpu time.Duration
	b.ResetTimer()
	for done := 0; done < b.N; {
		n := min(batch, b.N-done)
		b.StopTimer()
		for j := range n {
			copies[j] = runtime.DeepCopyJSONValue(c.obj)
		}
		b.StartTimer()
		start := defaultThreadCPU()
		for j := range n {
			f(copies[j])
		}
		cpu += defaultThreadCPU() - start
		done += n
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// defaultThreadCPU is the CPU time of the calling OS thread, from
// clock_gettime(CLOCK_THREAD_CPUTIME_ID), which unlike getrusage counts the
// running time slice up to the call.
func defaultThreadCPU() time.Duration {
	var ts syscall.Timespec
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// clockThreadCPUTime is CLOCK_THREAD_CPUTIME_ID (Linux).
const clockThreadCPUTime = 3

func BenchmarkDefault(b *testing.B) {
	for _, c := range defaultCases(b) {
		b.Run(c.crd+"/"+c.object+"/crdkit", func(b *testing.B) {
			defaultRun(b, c, func(x any) { defaultCrdkit(x, c.ours) })
		})
		b.Run(c.crd+"/"+c.object+"/upstream", func(b *testing.B) {
			defaultRun(b, c, func(x any) { defaultUpstream(x, c.up) })
		})
	}
}

// BenchmarkDefaultFloor is a plain walk over the same objects: the cost of
// visiting every value once, below which no defaulting can go.
func BenchmarkDefaultFloor(b *testing.B) {
	for _, c := range defaultCases(b) {
		b.Run(c.crd+"/"+c.object, func(b *testing.B) {
			goruntime.LockOSThread()
			defer goruntime.UnlockOSThread()
			b.ReportAllocs()
			n := 0
			start := defaultThreadCPU()
			for b.Loop() {
				n += defaultWalk(c.obj)
			}
			b.ReportMetric(float64((defaultThreadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
			if n == 0 {
				b.Fatal("empty object")
			}
		})
	}
}

func defaultWalk(v any) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for _, x := range v {
			n += defaultWalk(x)
		}
	case []any:
		for _, x := range v {
			n += defaultWalk(x)
		}
	}
	return n
}

// TestDefaultBenchInputs checks that the benchmarked implementations agree
// on the inputs, Go number types included, that the clean cases are left
// unchanged by both, and that crdkit allocates nothing on objects with
// nothing to do.
func TestDefaultBenchInputs(t *testing.T) {
	for _, c := range defaultCases(t) {
		t.Run(c.crd+"/"+c.object, func(t *testing.T) {
			up, ours := runtime.DeepCopyJSONValue(c.obj), runtime.DeepCopyJSONValue(c.obj)
			defaultUpstream(up, c.up)
			defaultCrdkit(ours, c.ours)
			uj, _ := json.Marshal(up)
			if !reflect.DeepEqual(up, ours) {
				oj, _ := json.Marshal(ours)
				t.Errorf("crdkit = %s\nupstream = %s", oj, uj)
			}
			t.Logf("%d bytes of JSON, %d values", len(uj), defaultWalk(c.obj))
			if c.clean && (!reflect.DeepEqual(up, c.obj) || !reflect.DeepEqual(ours, c.obj)) {
				t.Errorf("a clean case changes: the benchmark cannot reuse its object")
			}
			if reflect.DeepEqual(up, c.obj) {
				t.Logf("nothing to do: checking allocations")
				if n := testing.AllocsPerRun(20, func() { defaultCrdkit(ours, c.ours) }); n != 0 {
					t.Errorf("crdkit allocates %v times on an object with nothing to do", n)
				}
			}
		})
	}
}
