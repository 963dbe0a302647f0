package crfake

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/crdkit/crdkit"
)

// jsonDocs are JSON values for the copy and equality tests: objects as
// the store holds them, and the corners (null, empty and nested arrays
// and objects, numbers of each kind).
var jsonDocs = []string{
	`{}`,
	`{"a":null,"b":[],"c":{},"d":[[],[{}],null],"e":{"f":{"g":[1,2.5,"x",true,false,null]}}}`,
	`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","namespace":"ns","uid":"u","generation":2,
	  "managedFields":[{"apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:image":{}}},
	  "manager":"m","operation":"Update","time":"2026-12-05T03:00:00Z"}]},"spec":{"cronSpec":"* * * * *","image":"a","replicas":2,"tags":["x","y"]}}`,
}

func decodeDoc(t testing.TB, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return runtime.DeepCopyJSON(m) // json.Number kept: a value DeepCopyJSON allows
}

// mutateAll changes every map and slice in v (adds a key, or overwrites
// the first element), so that a copy sharing any of them shows it.
func mutateAll(v any) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			mutateAll(e)
		}
		if x != nil {
			x["\x00mutated"] = true
		}
	case []any:
		for _, e := range x {
			mutateAll(e)
		}
		if len(x) > 0 {
			x[0] = "mutated"
		}
	}
}

// copiers are the two copies of a stored object: copyJSON, and a
// snapshot's copy by its plan.
var copiers = []struct {
	name string
	copy func(map[string]any) map[string]any
}{
	{"copyJSON", copyJSON},
	{"snapshot", func(m map[string]any) map[string]any { return newSnapshot(m).copy() }},
}

func TestCopyJSON(t *testing.T) {
	for _, cp := range copiers {
		for i, doc := range jsonDocs {
			t.Run(fmt.Sprint(cp.name, i), func(t *testing.T) {
				checkCopy(t, cp.name, cp.copy, decodeDoc(t, doc))
			})
		}
		// Typed nils stay typed nils, as DeepCopyJSON keeps them.
		m := map[string]any{"m": map[string]any(nil), "s": []any(nil), "l": []any{map[string]any(nil), []any(nil)}}
		if got, want := cp.copy(m), runtime.DeepCopyJSON(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s(%v) = %#v, want %#v", cp.name, m, got, want)
		}
		// A value that is not JSON panics as DeepCopyJSON does.
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s of an int did not panic, want DeepCopyJSON's panic", cp.name)
				}
			}()
			cp.copy(map[string]any{"x": []any{map[string]any{"y": 1}}})
		}()
	}
	for _, cp := range copiers {
		if got := cp.copy(nil); got != nil {
			t.Errorf("%s(nil) = %v, want nil", cp.name, got)
		}
	}
}

// checkCopy checks that copy(orig) equals DeepCopyJSON's copy and shares
// no map or slice with orig, both ways.
func checkCopy(t *testing.T, name string, copy func(map[string]any) map[string]any, orig map[string]any) {
	t.Helper()
	want := runtime.DeepCopyJSON(orig)
	got := copy(orig)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s(%v) = %v, want %v", name, orig, got, want)
	}
	mutateAll(got)
	if !reflect.DeepEqual(orig, want) {
		t.Errorf("%s: changing the copy changed the original to %v", name, orig)
	}
	got = copy(orig)
	mutateAll(orig)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s: changing the original changed the copy to %v", name, got)
	}
}

func FuzzCopy(f *testing.F) {
	for _, doc := range jsonDocs {
		f.Add(doc)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil {
			return
		}
		for _, cp := range copiers {
			var again map[string]any
			_ = json.Unmarshal([]byte(doc), &again)
			checkCopy(t, cp.name, cp.copy, again)
		}
	})
}

// sameIgnoringTimesRef is the reference: reflect.DeepEqual after dropping
// "time" from each object of metadata.managedFields (the code
// sameIgnoringTimes replaced).
func sameIgnoringTimesRef(a, b map[string]any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	strip := func(o map[string]any) map[string]any {
		cp := make(map[string]any, len(o))
		for k, v := range o {
			cp[k] = v
		}
		md, _ := o["metadata"].(map[string]any)
		if md == nil {
			return cp
		}
		mdc := make(map[string]any, len(md))
		for k, v := range md {
			mdc[k] = v
		}
		if mf, ok := md["managedFields"].([]any); ok {
			out := make([]any, len(mf))
			for i, x := range mf {
				if m, ok := x.(map[string]any); ok {
					mc := make(map[string]any, len(m))
					for k, v := range m {
						if k != "time" {
							mc[k] = v
						}
					}
					out[i] = mc
				} else {
					out[i] = x
				}
			}
			mdc["managedFields"] = out
		}
		cp["metadata"] = mdc
		return cp
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

var sameDocs = []string{
	`{}`,
	`{"metadata":{}}`,
	`{"metadata":null}`,
	`{"metadata":{"managedFields":[]}}`,
	`{"metadata":{"managedFields":null}}`,
	`{"metadata":{"managedFields":[{"time":"t1","manager":"m"}]}}`,
	`{"metadata":{"managedFields":[{"time":"t2","manager":"m"}]}}`,
	`{"metadata":{"managedFields":[{"manager":"m"}]}}`,
	`{"metadata":{"managedFields":[{"time":"t1","manager":"n"}]}}`,
	`{"metadata":{"managedFields":[{"time":"t1"}]}}`,
	`{"metadata":{"managedFields":[{}]}}`,
	`{"metadata":{"managedFields":[null]}}`,
	`{"metadata":{"managedFields":["x"]}}`,
	`{"metadata":{"managedFields":"x"}}`,
	`{"metadata":{"managedFields":[{"time":"t1","manager":"m"}],"name":"a"}}`,
	`{"metadata":{"managedFields":[{"time":"t1","manager":"m"}],"name":"b"}}`,
	`{"metadata":"x"}`,
	`{"metadata":{"time":"t1"}}`,
	`{"spec":{"a":1}}`,
	`{"spec":{"a":1.0}}`,
	`{"spec":{"a":"1"}}`,
	`{"spec":{"a":[1,{"b":null}]}}`,
	`{"spec":{"a":[1,{"b":false}]}}`,
	`{"spec":{"a":{}},"metadata":{}}`,
	`{"spec":{"a":[]},"metadata":{}}`,
}

// decodeStored decodes as the store holds values: integers as int64,
// other numbers as float64.
func decodeStored(t testing.TB, doc string) map[string]any {
	t.Helper()
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(doc))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	var fix func(v any) any
	fix = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				x[k] = fix(e)
			}
		case []any:
			for i, e := range x {
				x[i] = fix(e)
			}
		case json.Number:
			if i, err := x.Int64(); err == nil && !strings.ContainsAny(string(x), ".eE") {
				return i
			}
			f, _ := x.Float64()
			return f
		}
		return v
	}
	return fix(m).(map[string]any)
}

func TestSameIgnoringTimes(t *testing.T) {
	n := 0
	for _, a := range sameDocs {
		for _, b := range sameDocs {
			am, bm := decodeStored(t, a), decodeStored(t, b)
			got, want := sameIgnoringTimes(am, bm), sameIgnoringTimesRef(am, bm)
			if got != want {
				t.Errorf("sameIgnoringTimes(%s, %s) = %v, want %v", a, b, got, want)
			}
			n++
		}
	}
	// Typed nils against empty values: DeepEqual tells them apart.
	typed := []map[string]any{
		{"spec": map[string]any(nil)}, {"spec": map[string]any{}},
		{"spec": []any(nil)}, {"spec": []any{}},
		{"metadata": map[string]any(nil)}, {"metadata": map[string]any{}},
		{"metadata": map[string]any{"managedFields": []any(nil)}},
		{"metadata": map[string]any{"managedFields": []any{map[string]any(nil)}}},
		{"metadata": map[string]any{"managedFields": []any{map[string]any{}}}},
	}
	for _, a := range typed {
		for _, b := range typed {
			if got, want := sameIgnoringTimes(a, b), sameIgnoringTimesRef(a, b); got != want {
				t.Errorf("sameIgnoringTimes(%#v, %#v) = %v, want %v", a, b, got, want)
			}
			n++
		}
	}
	t.Logf("%d pairs agree with the reference", n)
}

func FuzzSameIgnoringTimes(f *testing.F) {
	for _, a := range sameDocs {
		f.Add(a, sameDocs[0])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var am, bm map[string]any
		if json.Unmarshal([]byte(a), &am) != nil || json.Unmarshal([]byte(b), &bm) != nil {
			return
		}
		if got, want := sameIgnoringTimes(am, bm), sameIgnoringTimesRef(am, bm); got != want {
			t.Errorf("sameIgnoringTimes(%s, %s) = %v, want %v", a, b, got, want)
		}
		if got, want := sameIgnoringTimes(am, am), sameIgnoringTimesRef(am, am); got != want {
			t.Errorf("sameIgnoringTimes(%s, itself) = %v, want %v", a, got, want)
		}
	})
}

// TestListOrder checks that the store's key order, which a list without
// selectors returns as it is, is the order crdkit's List (the server's)
// gives the same objects, for namespaces that prefix one another and names
// that sort around "/".
func TestListOrder(t *testing.T) {
	crd, err := crdkit.Load([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
	  "metadata":{"name":"things.example.com"},
	  "spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
	  "versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	v := crd.Version("v1")
	r := &resource{namespaced: true, objs: map[nsName]*entry{}}
	var all []map[string]any
	for _, ns := range []string{"a", "a-b", "ab", "a0", "b", "a.b", "a-"} {
		for _, name := range []string{"x", "a", "x-1", "x.1", "x0", "-", "0"} {
			k := nsName{ns, name}
			obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Thing",
				"metadata": map[string]any{"name": name, "namespace": ns}}
			r.addKey(k)
			r.objs[k] = &entry{obj: obj}
			all = append(all, obj)
		}
	}
	for _, ns := range []string{"", "a", "a-b", "ab", "b", "a-", "none"} {
		var got []string
		for _, sk := range r.keysIn(ns) {
			if ns == "" || sk.k.ns == ns {
				got = append(got, sk.s)
			}
		}
		list, err := v.List(slices.Clone(all), crdkit.ListOptions{Namespace: ns})
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, o := range list {
			md := o["metadata"].(map[string]any)
			want = append(want, md["namespace"].(string)+"/"+md["name"].(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("keysIn(%q) = %v, want crdkit's List order %v", ns, got, want)
		}
	}
	// Deleting keeps the order.
	r.dropKey(nsName{"a", "x"})
	r.dropKey(nsName{"a", "none"})
	if slices.IsSortedFunc(r.order, func(a, b storageKeyed) int { return strings.Compare(a.s, b.s) }) == false || len(r.order) != 48 {
		t.Errorf("after dropKey: order = %v, want 48 keys in order", r.order)
	}
}
