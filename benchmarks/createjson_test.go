//go:build linux

package benchmarks

import (
	"encoding/json"
	"errors"
	"reflect"
	goruntime "runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured/unstructuredscheme"
	"k8s.io/apimachinery/pkg/runtime"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	serializerjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

// Create from bytes: BenchmarkCreateJSON/<crd>/<object>[+unknown]/
// {crdkit,upstream,json} runs the whole create pipeline from the request
// body. crdkit is Version.CreateJSON (field validation Ignore); upstream is
// the server's JSON serializer decoding into an Unstructured (the codec the
// custom-resource handler wraps, not strict in Ignore) followed by the
// server's create steps of BenchmarkCreate (upstreamCreate); json is a bare
// encoding/json Unmarshal of the same bytes into map[string]any, the
// reference the issue sets for crdkit's whole pipeline. "+unknown" bodies
// have an unknown string in every map and an unknown object in every third
// (pruneSprinkle).
//
// BenchmarkPruneJSON/<crd>/<object>/{crdkit,upstream,upstream-codec,nopaths,
// upstream-nopaths,json,valid,scan,build,buildpaths}: bytes in, pruned value
// and paths out.
// crdkit is prune.JSON (nopaths the same without tracking the pruned
// paths); upstream is sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts
// (the server's decoder) followed by pruning.PruneWithOptions with paths
// tracked (upstream-nopaths without, nopaths' twin; upstream-codec with the
// whole of the handler's codec as the decode, as BenchmarkCreateJSON's
// upstream has it); json is
// the bare encoding/json Unmarshal and valid is json.Valid, the floor of
// reading the bytes at all. build is the floor of building the result:
// it makes the maps and slices of the pruned value (each of its exact
// size) from a decoded copy, putting in the same strings and numbers,
// already boxed, and reads nothing; buildpaths also makes the list of
// pruned paths, as prune.JSON does (one string holding their text, the
// list cut from it) from upstream's list: the floor of prune.JSON's
// result. scan is prune.JSON against a schema that declares nothing (not
// at the root, paths not tracked): it reads the whole body as it reads a
// pruned subtree and builds one empty map, the floor of prune.JSON's
// reading. buildpaths + scan (ratios -impl buildpaths+scan) is what a
// decoder would cost that reads the bytes once and builds its result at no
// cost beyond the floor of either.

// createJSONCase is a createCase with its body.
type createJSONCase struct {
	createCase
	raw []byte
}

func createJSONCases(tb testing.TB) []createJSONCase {
	var out []createJSONCase
	for _, c := range createCases(tb) {
		raw, err := json.Marshal(c.obj)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, createJSONCase{c, raw})
		u := c
		u.name += "+unknown"
		u.obj = pruneSprinkle(runtime.DeepCopyJSON(c.obj)).(map[string]any)
		if raw, err = json.Marshal(u.obj); err != nil {
			tb.Fatal(err)
		}
		out = append(out, createJSONCase{u, raw})
	}
	return out
}

// upstreamDecoder is the server's JSON serializer for unstructured objects.
var upstreamDecoder = serializerjson.NewSerializerWithOptions(serializerjson.DefaultMetaFactory,
	unstructuredscheme.NewUnstructuredCreator(), unstructuredscheme.NewUnstructuredObjectTyper(),
	serializerjson.SerializerOptions{})

// upstreamCreateJSON decodes raw as the server's serializer does and runs
// the server's create steps.
func upstreamCreateJSON(c createJSONCase) error {
	def := runtimeschema.GroupVersionKind{}
	obj, _, err := upstreamDecoder.Decode(c.raw, &def, &unstructured.Unstructured{})
	if err != nil {
		panic(err)
	}
	return upstreamCreate(c.createCase, obj.(*unstructured.Unstructured).Object)
}

// cpuLoop runs f b.N times and reports, besides ns/op, cpu-ns/op: the CPU
// time of the benchmark's OS thread (as pruneRun does), which leaves out
// the time other jobs hold the CPU of the shared machine, and also the
// collector's background workers, which favours the sides that allocate
// more (upstream, json).
func cpuLoop(b *testing.B, f func()) {
	goruntime.LockOSThread()
	defer goruntime.UnlockOSThread()
	b.ReportAllocs()
	start, pstart := pruneThreadCPU(), processCPU()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64((pruneThreadCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64((processCPU()-pstart).Nanoseconds())/float64(b.N), "proc-cpu-ns/op")
}

// processCPU is the CPU time of the whole process: the benchmark's thread
// and the collector's background workers (and nothing else runs in the
// benchmark process while it measures). The testing package collects the
// garbage of the runs before each run, before the loop starts, so the
// collection work a loop pays for is mostly its own; a cycle in progress
// at the end is counted in part.
func processCPU() time.Duration { return rusageCPU(syscall.RUSAGE_SELF) }

// bareUnmarshal is the json baseline: encoding/json into map[string]any.
func bareUnmarshal(b *testing.B, raw []byte) {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		b.Fatal(err)
	}
}

func BenchmarkCreateJSON(b *testing.B) {
	for _, c := range createJSONCases(b) {
		b.Run(c.name+"/crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if res := c.version.CreateJSON(c.raw, crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}); res.Object == nil && res.Err == nil {
					b.Fatal("no answer")
				}
			})
		})
		b.Run(c.name+"/upstream", func(b *testing.B) {
			cpuLoop(b, func() { _ = upstreamCreateJSON(c) })
		})
		b.Run(c.name+"/json", func(b *testing.B) {
			cpuLoop(b, func() { bareUnmarshal(b, c.raw) })
		})
	}
}

// TestCreateJSONBenchInputs checks that both pipelines agree on every body,
// and that crdkit's CreateJSON answers as its Create does on the decoded
// object.
func TestCreateJSONBenchInputs(t *testing.T) {
	for _, c := range createJSONCases(t) {
		opts := crdkit.CreateOptions{FieldValidation: crdkit.Ignore, ManagedFields: omitManaged}
		res := c.version.CreateJSON(c.raw, opts)
		err := upstreamCreateJSON(c)
		if (res.Err == nil) != (err == nil) {
			t.Errorf("%s: crdkit %v, upstream %v", c.name, res.Err, err)
		} else if err != nil && res.Err.Error() != err.Error() && !sameCausesSorted(res.Err, err) {
			t.Errorf("%s: crdkit %q, upstream %q", c.name, res.Err, err)
		}
		var obj map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(c.raw, &obj); err != nil {
			t.Fatal(err)
		}
		dec := c.version.Create(obj, opts)
		if (res.Err == nil) != (dec.Err == nil) || !reflect.DeepEqual(res.Pruned, dec.Pruned) {
			t.Errorf("%s: CreateJSON %v %q, Create %v %q", c.name, res.Err, res.Pruned, dec.Err, dec.Pruned)
		}
	}
}

// pruneJSONCase is a pruneCase with its body.
type pruneJSONCase struct {
	pruneCase
	raw []byte
}

func pruneJSONCases(tb testing.TB) []pruneJSONCase {
	var out []pruneJSONCase
	for _, c := range pruneCases(tb) {
		raw, err := json.Marshal(c.obj)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, pruneJSONCase{c, raw})
	}
	return out
}

// pruneJSONUpstreamNoPaths is pruneJSONUpstream without tracking the
// pruned paths, the twin of prune.JSON with NoPaths.
func pruneJSONUpstreamNoPaths(c pruneJSONCase) any {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(c.raw, &m); err != nil {
		panic(err)
	}
	pruning.PruneWithOptions(m, c.up, true, structuralschema.UnknownFieldPathOptions{})
	return m
}

func pruneJSONUpstream(c pruneJSONCase) (any, []string) {
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(c.raw, &m); err != nil {
		panic(err)
	}
	return m, pruneUpstream(m, c.up)
}

// pruneJSONUpstreamCodec is pruneJSONUpstream with the decode the
// custom-resource handler runs: the server's JSON serializer (upstreamDecoder,
// as in upstreamCreateJSON), which reads the type meta first
// (DefaultMetaFactory.Interpret) and then decodes into an Unstructured.
func pruneJSONUpstreamCodec(c pruneJSONCase) (any, []string) {
	def := runtimeschema.GroupVersionKind{}
	obj, _, err := upstreamDecoder.Decode(c.raw, &def, &unstructured.Unstructured{})
	if err != nil {
		panic(err)
	}
	m := obj.(*unstructured.Unstructured).Object
	return m, pruneUpstream(m, c.up)
}

func BenchmarkPruneJSON(b *testing.B) {
	for _, c := range pruneJSONCases(b) {
		name := c.crd + "/" + c.object + "/"
		b.Run(name+"crdkit", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, _, ok := prune.JSON(c.raw, c.ours, prune.Options{Root: true}, nil); !ok {
					b.Fatal("prune.JSON gave up")
				}
			})
		})
		b.Run(name+"nopaths", func(b *testing.B) {
			cpuLoop(b, func() {
				if _, _, ok := prune.JSON(c.raw, c.ours, prune.Options{Root: true, NoPaths: true}, nil); !ok {
					b.Fatal("prune.JSON gave up")
				}
			})
		})
		b.Run(name+"upstream", func(b *testing.B) {
			cpuLoop(b, func() { pruneJSONUpstream(c) })
		})
		b.Run(name+"upstream-codec", func(b *testing.B) {
			cpuLoop(b, func() { pruneJSONUpstreamCodec(c) })
		})
		b.Run(name+"upstream-nopaths", func(b *testing.B) {
			cpuLoop(b, func() { pruneJSONUpstreamNoPaths(c) })
		})
		b.Run(name+"json", func(b *testing.B) {
			cpuLoop(b, func() { bareUnmarshal(b, c.raw) })
		})
		b.Run(name+"valid", func(b *testing.B) {
			cpuLoop(b, func() {
				if !json.Valid(c.raw) {
					b.Fatal("invalid")
				}
			})
		})
		b.Run(name+"scan", func(b *testing.B) {
			cpuLoop(b, func() { scanJSON(b, c.raw) })
		})
		pruned, paths := pruneJSONUpstream(c)
		b.Run(name+"build", func(b *testing.B) {
			cpuLoop(b, func() { _ = rebuild(pruned) })
		})
		b.Run(name+"buildpaths", func(b *testing.B) {
			cpuLoop(b, func() { _, _ = rebuild(pruned), rebuildPaths(paths) })
		})
	}
}

// declaresNothing is an object schema without properties: prune.JSON
// prunes every member of the body against it, reading each as a pruned
// subtree.
var declaresNothing = func() *schema.Schema {
	s, err := schema.CompileJSON([]byte(`{"type":"object"}`))
	if err != nil {
		panic(err)
	}
	return s
}()

// scanJSON reads raw as prune.JSON reads a pruned subtree, keeping nothing.
func scanJSON(tb testing.TB, raw []byte) {
	if m, _, ok := prune.JSON(raw, declaresNothing, prune.Options{NoPaths: true}, nil); !ok || len(m) != 0 {
		tb.Fatalf("the scan kept %d keys (ok %v)", len(m), ok)
	}
}

// rebuild makes the maps and slices of v again, each of its exact size,
// with v's leaves.
func rebuild(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = rebuild(x)
		}
		return m
	case []any:
		s := make([]any, len(v))
		for i, x := range v {
			s[i] = rebuild(x)
		}
		return s
	}
	return v
}

// rebuildPaths makes the list of paths again as prune.JSON makes it, with
// nothing to render: their text copied into one string, and the list of
// strings cut from it.
func rebuildPaths(paths []string) []string {
	n := 0
	for _, p := range paths {
		n += len(p)
	}
	var text strings.Builder // one allocation, no copy at the end
	text.Grow(n)
	for _, p := range paths {
		text.WriteString(p)
	}
	all := text.String()
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		out = append(out, all[:len(p)])
		all = all[len(p):]
	}
	return out
}

// TestPruneJSONBenchInputs checks that prune.JSON gives upstream's value and
// paths on every benchmark body.
func TestPruneJSONBenchInputs(t *testing.T) {
	for _, c := range pruneJSONCases(t) {
		obj, paths, ok := prune.JSON(c.raw, c.ours, prune.Options{Root: true}, nil)
		up, upPaths := pruneJSONUpstream(c)
		if !ok || !reflect.DeepEqual(obj, up) || !slices.Equal(paths, upPaths) {
			t.Errorf("%s/%s: prune.JSON = %v %q, upstream %q", c.crd, c.object, ok, paths, upPaths)
		}
		if again := rebuildPaths(upPaths); !slices.Equal(again, upPaths) {
			t.Errorf("%s/%s: rebuildPaths = %q, want %q", c.crd, c.object, again, upPaths)
		}
		if codec, codecPaths := pruneJSONUpstreamCodec(c); !reflect.DeepEqual(codec, up) || !slices.Equal(codecPaths, upPaths) {
			t.Errorf("%s/%s: the server's codec gives %q, its decoder %q", c.crd, c.object, codecPaths, upPaths)
		}
		scanJSON(t, c.raw)
		np, _, ok := prune.JSON(c.raw, c.ours, prune.Options{Root: true, NoPaths: true}, nil)
		if upNP := pruneJSONUpstreamNoPaths(c); !ok || !reflect.DeepEqual(np, upNP) || !reflect.DeepEqual(np, up) {
			t.Errorf("%s/%s: the nopaths twins differ from each other or from the value with paths", c.crd, c.object)
		}
	}
}

// sameCausesSorted reports whether two refusals are the same 422 up to the
// order of their causes: where the causes come from the properties of a
// map, the server's order follows Go's map iteration and varies between
// runs (the real-server tests compare those messages exactly only where
// the server repeats them).
func sameCausesSorted(a, b error) bool {
	var sa, sb *apierrors.StatusError
	if !errors.As(a, &sa) || !errors.As(b, &sb) || sa.ErrStatus.Code != 422 || sb.ErrStatus.Code != 422 ||
		sa.ErrStatus.Details == nil || sb.ErrStatus.Details == nil {
		return false
	}
	key := func(cs []metav1.StatusCause) []string {
		out := make([]string, len(cs))
		for i, c := range cs {
			out[i] = c.Field + "\x00" + string(c.Type) + "\x00" + c.Message
		}
		slices.Sort(out)
		return out
	}
	pa, _, _ := strings.Cut(sa.ErrStatus.Message, " is invalid: ")
	pb, _, _ := strings.Cut(sb.ErrStatus.Message, " is invalid: ")
	return pa == pb && slices.Equal(key(sa.ErrStatus.Details.Causes), key(sb.ErrStatus.Details.Causes))
}
