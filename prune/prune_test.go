package prune

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/crdkit/crdkit/schema"
)

func TestObject(t *testing.T) {
	for _, tc := range loadCases(t) {
		t.Run(tc.Name, func(t *testing.T) {
			s := mustCompile(t, tc.Schema)
			want := mustDecode(t, tc.Want)
			opts := Options{Root: tc.Root}

			obj := mustDecode(t, tc.Object)
			got := Object(obj, s, opts, nil)
			if !reflect.DeepEqual(obj, want) {
				t.Errorf("Object(%s) = %s, want %s", tc.Object, toJSON(obj), tc.Want)
			}
			if !samePaths(got, tc.Pruned) {
				t.Errorf("Object(%s) paths = %q, want %q", tc.Object, got, tc.Pruned)
			}

			// Pruning again finds nothing.
			if again := Object(obj, s, opts, nil); len(again) != 0 {
				t.Errorf("second Object(%s) paths = %q, want none", toJSON(obj), again)
			}

			// Without paths, the object is pruned the same and dst is untouched.
			obj = mustDecode(t, tc.Object)
			dst := []string{"keep"}
			if got := Object(obj, s, Options{Root: tc.Root, NoPaths: true}, dst); !reflect.DeepEqual(got, dst) {
				t.Errorf("Object(NoPaths) = %q, want %q", got, dst)
			}
			if !reflect.DeepEqual(obj, want) {
				t.Errorf("Object(NoPaths, %s) = %s, want %s", tc.Object, toJSON(obj), tc.Want)
			}

			// Paths are appended after what dst holds, and only they are sorted.
			obj = mustDecode(t, tc.Object)
			got = Object(obj, s, opts, []string{"zz", "aa"})
			if wantDst := append([]string{"zz", "aa"}, tc.Pruned...); !reflect.DeepEqual(got, wantDst) {
				t.Errorf("Object(dst) = %q, want %q", got, wantDst)
			}

			in := mustDecode(t, tc.Object)
			cp, got := Copy(in, s, opts, nil)
			if !reflect.DeepEqual(in, mustDecode(t, tc.Object)) {
				t.Errorf("Copy(%s) changed its input to %s", tc.Object, toJSON(in))
			}
			if !reflect.DeepEqual(cp, want) {
				t.Errorf("Copy(%s) = %s, want %s", tc.Object, toJSON(cp), tc.Want)
			}
			if !samePaths(got, tc.Pruned) {
				t.Errorf("Copy(%s) paths = %q, want %q", tc.Object, got, tc.Pruned)
			}

			ref := mustDecode(t, tc.Object)
			if got := reference(ref, s, tc.Root); !reflect.DeepEqual(ref, want) || !samePaths(got, tc.Pruned) {
				t.Errorf("reference(%s) = %s %q, want %s %q", tc.Object, toJSON(ref), got, tc.Want, tc.Pruned)
			}
		})
	}
}

// TestCopyShares checks that the copy shares no map or slice with the input,
// including in preserved subtrees and embedded metadata.
func TestCopyShares(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{
		"keep":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
		"list":{"type":"array","items":{"type":"object","properties":{"a":{}}}},
		"emb":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`))
	in := mustDecode(t, []byte(`{"apiVersion":"v1","metadata":{"labels":{"a":"b"}},
		"keep":{"a":[{"b":[1]}]},"list":[{"a":{"x":1}}],"emb":{"metadata":{"x":[1]},"spec":{"y":{}}}}`))
	out, _ := Copy(in, s, Options{Root: true}, nil)
	// Mutating every container of the copy must leave the input unchanged.
	before := toJSON(in)
	scribble(out)
	if after := toJSON(in); after != before {
		t.Errorf("Copy shares containers: input changed from %s to %s", before, after)
	}
}

func scribble(v any) {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			scribble(e)
			v[k+"!"] = 1
		}
	case []any:
		for i, e := range v {
			scribble(e)
			v[i] = "x"
		}
	}
}

func TestValuesOutsideModel(t *testing.T) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{"a":{"type":"object"}}}`))
	type custom struct{ A int }
	obj := map[string]any{
		"a": map[string]string{"x": "y"},
		"b": []string{"z"},
		"c": custom{1},
		"d": &custom{2},
		"e": 3,
	}
	got := Object(obj, s, Options{}, nil)
	if want := []string{"b", "c", "d", "e"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Object paths = %q, want %q", got, want)
	}
	if m := obj["a"].(map[string]string); len(m) != 1 {
		t.Errorf("Object changed a map[string]string: %v", m)
	}
	for _, v := range []any{map[string]string{"x": "y"}, []int{1}, custom{}, nil, uint8(3), map[string]any(nil), []any(nil)} {
		Object(v, s, Options{Root: true}, nil)
		Object(v, nil, Options{}, nil)
		if c, _ := Copy(v, s, Options{}, nil); !reflect.DeepEqual(c, v) {
			t.Errorf("Copy(%#v) = %#v", v, c)
		}
	}
}

// nest returns depth levels of wrap around leaf.
func nest(depth int, leaf any, wrap func(any) any) any {
	v := leaf
	for range depth {
		v = wrap(v)
	}
	return v
}

func TestDeepObjects(t *testing.T) {
	const depth = 100_000
	arr := func(v any) any { return []any{v, map[string]any{}, 1} }
	obj := func(v any) any { return map[string]any{"n": v, "x": []any{1}} }
	preserve := mustCompile(t, []byte(`{"type":"object","properties":{"p":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}`))
	noItems := mustCompile(t, []byte(`{"type":"object","properties":{"p":{"type":"array"}}}`))

	t.Run("arrays under no schema", func(t *testing.T) {
		v := map[string]any{"p": nest(depth, map[string]any{"leaf": true}, arr)}
		c, cpaths := Copy(v, noItems, Options{}, nil)
		paths := Object(v, noItems, Options{}, nil)
		if len(paths) != 1 || !reflect.DeepEqual(paths, cpaths) {
			t.Fatalf("Object removed %d fields (Copy %d), want 1", len(paths), len(cpaths))
		}
		if want := "p" + strings.Repeat("[0]", depth) + ".leaf"; paths[0] != want {
			t.Errorf("first path = %.40s... (%d bytes), want %d bytes", paths[0], len(paths[0]), len(want))
		}
		if !deepEqualIter(v, c) {
			t.Errorf("Copy differs from Object")
		}
	})
	t.Run("preserved maps", func(t *testing.T) {
		v := map[string]any{"p": nest(depth, "leaf", obj)}
		c, paths := Copy(v, preserve, Options{}, nil)
		if len(paths) != 0 {
			t.Errorf("Copy removed %d fields", len(paths))
		}
		if !deepEqualIter(v, c) {
			t.Errorf("Copy differs from its input")
		}
		if paths := Object(v, preserve, Options{}, nil); len(paths) != 0 {
			t.Errorf("Object removed %d fields", len(paths))
		}
	})
	t.Run("deep schema", func(t *testing.T) {
		// 500 object levels, near the schema package's bound on nesting.
		const levels = 500
		s := mustCompile(t, []byte(strings.Repeat(`{"type":"object","properties":{"n":`, levels)+`{"type":"string"}`+strings.Repeat(`}}`, levels)))
		v := nest(depth, "leaf", func(v any) any { return map[string]any{"n": v, "u": 1} })
		paths := Object(v, s, Options{}, nil)
		// A "u" at each object level, and both keys of the map under the string.
		if len(paths) != levels+2 {
			t.Errorf("Object removed %d fields, want %d", len(paths), levels+2)
		}
	})
}

// deepEqualIter compares two values without recursion.
func deepEqualIter(a, b any) bool {
	type pair struct{ a, b any }
	stack := []pair{{a, b}}
	for len(stack) > 0 {
		p := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := p.a.(type) {
		case map[string]any:
			y, ok := p.b.(map[string]any)
			if !ok || len(x) != len(y) {
				return false
			}
			for k, e := range x {
				f, ok := y[k]
				if !ok {
					return false
				}
				stack = append(stack, pair{e, f})
			}
		case []any:
			y, ok := p.b.([]any)
			if !ok || len(x) != len(y) {
				return false
			}
			for i := range x {
				stack = append(stack, pair{x[i], y[i]})
			}
		default:
			if p.a != p.b {
				return false
			}
		}
	}
	return true
}

// generated builds a schema with every kind of node and an object that fills
// it without unknown fields: a clean object, which must cost no allocation.
func generated(t testing.TB) (*schema.Schema, any) {
	s := mustCompile(t, []byte(`{"type":"object","properties":{
		"spec":{"type":"object","properties":{
			"replicas":{"type":"integer"},
			"selector":{"type":"object","additionalProperties":{"type":"string"}},
			"containers":{"type":"array","items":{"type":"object","properties":{
				"name":{"type":"string"},"image":{"type":"string"},
				"ports":{"type":"array","items":{"type":"object","properties":{"port":{"type":"integer"},"protocol":{"type":"string"}}}},
				"env":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"value":{"type":"string"}}}},
				"resources":{"type":"object","properties":{"limits":{"type":"object","additionalProperties":{"x-kubernetes-int-or-string":true}}}}}}},
			"template":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}},
			"raw":{"x-kubernetes-preserve-unknown-fields":true,"type":"object","properties":{"known":{"type":"object","properties":{"a":{}}}}},
			"matrix":{"type":"array","items":{"type":"array","items":{"type":"object","properties":{"v":{}}}}}}},
		"status":{"type":"object","properties":{"conditions":{"type":"array","items":{"type":"object","properties":{
			"type":{"type":"string"},"status":{"type":"string"},"reason":{"type":"string"},"message":{"type":"string"}}}}}}}}`))
	var containers []any
	for i := range 5 {
		containers = append(containers, map[string]any{
			"name": fmt.Sprint("c", i), "image": "img",
			"ports":     []any{map[string]any{"port": int64(80), "protocol": "TCP"}, map[string]any{"port": int64(443)}},
			"env":       []any{map[string]any{"name": "A", "value": "1"}, map[string]any{"name": "B", "value": "2"}},
			"resources": map[string]any{"limits": map[string]any{"cpu": "1", "memory": int64(1 << 20)}},
		})
	}
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Thing",
		"metadata": map[string]any{"name": "x", "labels": map[string]any{"a": "b"}},
		"spec": map[string]any{
			"replicas":   int64(3),
			"selector":   map[string]any{"app": "x", "tier": "web"},
			"containers": containers,
			"template": map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"anything": 1},
				"spec": map[string]any{"free": []any{map[string]any{"form": true}}}},
			"raw":    map[string]any{"unknown": map[string]any{"deep": 1}, "known": map[string]any{"a": 1}},
			"matrix": []any{[]any{map[string]any{"v": 1}}, []any{}},
		},
		"status": map[string]any{"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "OK", "message": "fine"},
			map[string]any{"type": "Synced", "status": "False", "reason": "Err", "message": "not fine"},
		}},
	}
	return s, obj
}

func TestCleanObjectAllocs(t *testing.T) {
	s, obj := generated(t)
	before := toJSON(obj)
	if paths := Object(obj, s, Options{Root: true}, nil); len(paths) != 0 {
		t.Fatalf("generated object is not clean: %q", paths)
	}
	if after := toJSON(obj); after != before {
		t.Fatalf("Object changed a clean object: %s", after)
	}
	dst := make([]string, 0, 4)
	for _, opts := range []Options{{Root: true}, {Root: true, NoPaths: true}} {
		if n := testing.AllocsPerRun(100, func() { Object(obj, s, opts, nil) }); n != 0 {
			t.Errorf("Object(%+v) on a clean object: %v allocations, want 0", opts, n)
		}
		if n := testing.AllocsPerRun(100, func() { Object(obj, s, opts, dst) }); n != 0 {
			t.Errorf("Object(%+v, dst) on a clean object: %v allocations, want 0", opts, n)
		}
	}
	// Each removed field costs one string (and the growth of dst).
	dirty := func() any {
		m := deepCopyJSON(obj).(map[string]any)
		m["spec"].(map[string]any)["unknown"] = 1
		return m
	}
	objs := make([]any, 0, 101)
	for range 101 {
		objs = append(objs, dirty())
	}
	dst = make([]string, 0, 4)
	i := 0
	if n := testing.AllocsPerRun(100, func() { Object(objs[i], s, Options{Root: true}, dst[:0]); i++ }); n != 1 {
		t.Errorf("Object on an object with one unknown field: %v allocations, want 1", n)
	}
	i = 0
	if n := testing.AllocsPerRun(100, func() { Object(objs[i], s, Options{Root: true, NoPaths: true}, nil); i++ }); n != 0 {
		t.Errorf("Object(NoPaths) on an object with one unknown field: %v allocations, want 0", n)
	}
}

func TestConcurrentCopy(t *testing.T) {
	s, obj := generated(t)
	obj.(map[string]any)["extra"] = map[string]any{"a": []any{1}}
	want := toJSON(obj)
	done := make(chan string)
	for range 4 {
		go func() {
			out, paths := Copy(obj, s, Options{Root: true}, nil)
			Object(out, s, Options{Root: true}, nil)
			done <- fmt.Sprint(paths)
		}()
	}
	for range 4 {
		if got := <-done; got != "[extra]" {
			t.Errorf("Copy paths = %s, want [extra]", got)
		}
	}
	if got := toJSON(obj); got != want {
		t.Errorf("concurrent Copy changed the input")
	}
}

func TestRenderLongPath(t *testing.T) {
	long := strings.Repeat("k", 200)
	path := []seg{keySeg(long), indexSeg(12345), keySeg(""), indexSeg(0)}
	if got, want := render(path, "x"), long+"[12345].[0].x"; got != want {
		t.Errorf("render = %q, want %q", got, want)
	}
	if got := render(nil, "x"); got != "x" {
		t.Errorf("render(nil) = %q, want x", got)
	}
}
