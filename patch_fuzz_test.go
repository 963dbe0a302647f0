package crdkit

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// FuzzPatch sends arbitrary JSON and merge patches (and anything the patch
// type may be) over arbitrary live objects: every answer is an object or
// an error, and live is never modified.
func FuzzPatch(f *testing.F) {
	live := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","uid":"u","generation":1,"managedFields":[{"manager":"a","operation":"Update","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"cronSpec":"* * * * */5","replicas":3}}`)
	f.Add(uint8(0), []byte(`[{"op":"replace","path":"/spec/replicas","value":30}]`), live)
	f.Add(uint8(1), []byte(`{"spec":{"replicas":null,"zz":1},"metadata":{"resourceVersion":null}}`), live)
	f.Add(uint8(0), []byte(`[{"op":"test","path":"/kind","value":"CronTab"},{"op":"move","from":"/spec","path":"/status"}]`), live)
	f.Add(uint8(1), []byte(`{"metadata":{"managedFields":[{}]}}`), live)
	f.Add(uint8(1), []byte(`{"apiVersion":"stable.example.com/v1beta1"}`), live)
	f.Add(uint8(2), []byte(`{}`), []byte(`{"metadata":{"name":"x"}}`))
	// The json-patch library panics on these.
	f.Add(uint8(0), []byte(`[{"op":"test","path":"/spec/l","value":[null]}]`), []byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x"},"spec":{"l":[1]}}`))
	f.Add(uint8(0), []byte(`[{"op":"add","path":"/spec/a","value":null},{"op":"copy","from":"/spec/a","path":"/spec/b"},{"op":"add","path":"/spec/b/x","value":1}]`), live)
	crd := loadExample(f)
	types := []PatchType{JSONPatch, MergePatch, StrategicMergePatch, "text/plain"}
	f.Fuzz(func(t *testing.T, typ uint8, patch, liveJSON []byte) {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(liveJSON, &live); err != nil || live == nil {
			return
		}
		before, _ := json.Marshal(live)
		pt := types[int(typ)%len(types)]
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Strict} {
				for _, sub := range []string{"", "status"} {
					res := crd.Version(name).Patch(pt, patch, live, PatchOptions{FieldValidation: m, Subresource: sub})
					if res.Err == nil && res.Object == nil {
						t.Fatalf("Patch(%s, %q, %q) gave neither an object nor an error", pt, patch, liveJSON)
					}
				}
			}
		}
		if after, _ := json.Marshal(live); string(after) != string(before) {
			t.Fatalf("live modified:\n%s\n%s", before, after)
		}
	})
}

// FuzzApply sends arbitrary apply patches (YAML or JSON) over arbitrary
// live objects, and with none: every answer is an object or an error, and
// live is never modified.
func FuzzApply(f *testing.F) {
	live := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","uid":"u","generation":1,"managedFields":[{"manager":"a","operation":"Apply","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]},"spec":{"cronSpec":"* * * * */5","replicas":3}}`)
	f.Add([]byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\nspec:\n  replicas: 5\n"), live, false)
	f.Add([]byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: x\nspec:\n  replicas: 5\n  replicas: 6\n"), live, true)
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","managedFields":[]},"spec":{"zz":1}}`), live, false)
	f.Add([]byte("- a\n"), []byte(`null`), false)
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","uid":"u2"}}`), []byte(`null`), true)
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, patch, liveJSON []byte, force bool) {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(liveJSON, &live); err != nil {
			return
		}
		before, _ := json.Marshal(live)
		for _, name := range []string{"v1", "v1beta1"} {
			for _, sub := range []string{"", "status"} {
				res := crd.Version(name).Apply(patch, live, PatchOptions{FieldValidation: Strict, Force: force, Subresource: sub,
					ManagedFields: ManagedFields{FieldManager: "fuzz"}})
				if res.Err == nil && res.Object == nil {
					t.Fatalf("Apply(%q, %q) gave neither an object nor an error", patch, liveJSON)
				}
			}
		}
		if after, _ := json.Marshal(live); string(after) != string(before) {
			t.Fatalf("live modified:\n%s\n%s", before, after)
		}
	})
}

// TestPatchCopyLimit: copies of copies stop at the server's 3 MiB limit
// with its answer (a patch that does not apply, whose text the server
// leaves out) instead of doubling the document without end.
func TestPatchCopyLimit(t *testing.T) {
	crd := loadExample(t)
	var ops []string
	ops = append(ops, `{"op":"add","path":"/spec/a","value":"`+strings.Repeat("x", 1000)+`"}`)
	for range 20 {
		ops = append(ops, `{"op":"copy","from":"/spec","path":"/spec/b"}`, `{"op":"copy","from":"/spec","path":"/spec/a"}`)
	}
	live := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "x", "namespace": "default", "resourceVersion": "2", "uid": "u"}, "spec": map[string]any{}}
	res := crd.Version("v1").Patch(JSONPatch, []byte("["+strings.Join(ops, ",")+"]"), live, PatchOptions{})
	st := res.Status()
	if st == nil || st.Code != 422 || st.Message != "the server rejected our request due to an error in our request" {
		t.Fatalf("Patch with 40 copies of copies = %+v, want the server's 422 for a patch that does not apply", st)
	}
}

// FuzzPatchFast compares the fast merge patch (on decoded values) with the
// server's path (live encoded, the json-patch library, the patched document
// decoded, and none of the update's shortcuts): the same answer for every
// patch and live object, in every mode, on both endpoints, with managed
// fields written or left out.
func FuzzPatchFast(f *testing.F) {
	live := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","uid":"u","generation":1,"labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":3,"list":[{"a":null,"b":1.0}],"f":2.5},"status":{"n":1}}`)
	f.Add([]byte(`{"spec":{"replicas":5}}`), live)
	f.Add([]byte(`{"spec":{"replicas":null,"zz":{"a":null,"b":[{"c":null},null]}},"metadata":{"labels":{"a":null,"c":"d"}}}`), live)
	f.Add([]byte(`{"spec":{"list":{"x":null}},"status":null}`), live)
	f.Add([]byte(`{"spec":"x"}`), live)
	f.Add([]byte(`{"spec":{"cronSpec":{"a":null}},"metadata":{"name":"y"}}`), live)
	f.Add([]byte(`{"metadata":{"labels":{"a":1}}}`), live)
	f.Add([]byte(`{"kind":5}`), live)
	f.Add([]byte(`{"a":1,"a":2,"spec":{"zz":1}}`), live)
	f.Add([]byte(`{"spec":{"replicas":1e2,"f":3.0}}`), []byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2"},"spec":{"big":1e300,"n":-0.0,"m":12345678901234567890}}`))
	// Integral floats past 2^53, which the encoder writes as shortest
	// digits padded with zeros.
	f.Add([]byte(`{"spec":{"cronSpec":"x"}}`), []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2"},"spec":{"replicas":1.152921504606847232e18,"n":-0.0}}`))
	// Live as a server returns it, with managed fields (kept as they are
	// when canonical), and patches that change them.
	managed := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","uid":"u","generation":1,"creationTimestamp":"2026-01-01T00:00:00Z","managedFields":[{"manager":"a","operation":"Update","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{".":{},"f:replicas":{}}}},{"manager":"b","operation":"Apply","apiVersion":"stable.example.com/v1","time":"2026-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:zz":{}}},"subresource":"status"}]},"spec":{"cronSpec":"* * * * */5","replicas":3}}`)
	f.Add([]byte(`{"spec":{"replicas":5}}`), managed)
	f.Add([]byte(`{"metadata":{"managedFields":[{"manager":"a\u0007","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:x":{}}}]}}`), managed)
	f.Add([]byte(`{"metadata":{"managedFields":[{"manager":"a","operation":"Apply","time":"2026-01-01T01:00:00+01:00","fieldsV1":{"f:spec":{"f:a":1}}}]}}`), managed)
	f.Add([]byte(`{"metadata":{"managedFields":[{"manager":"a\u0007","operation":"Update","apiVersion":"stable.example.com/v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{"f:replicas":{}}}}]}}`), managed)
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, patch, liveJSON []byte) {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(liveJSON, &live); err != nil || live == nil {
			return
		}
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				for _, sub := range []string{"", "status"} {
					for _, mf := range []ManagedFields{fixedTime, {Omit: true}} {
						opts := PatchOptions{FieldValidation: m, Subresource: sub, ManagedFields: mf}
						fast := crd.Version(name).patchWith(MergePatch, patch, live, opts, true)
						slow := crd.Version(name).patchWith(MergePatch, patch, live, opts, false)
						cutTypeErrors(&fast)
						cutTypeErrors(&slow)
						if !reflect.DeepEqual(fast, slow) {
							t.Fatalf("%s %s %q omit=%v: merge patch %q over %s:\nfast %v\nslow %v", name, m, sub, mf.Omit, patch, liveJSON, fast, slow)
						}
					}
				}
			}
		}
	})
}

// TestCopyAsJSON compares copyAsJSON with the round trip it stands for
// (encoding/json, then the server's decoder) on numbers at the edges of
// the encoder's integer form and on random float bits: where it answers,
// the copy is what the round trip gives, and negZero says when the
// encoding of the copy is not the encoding of the value.
func TestCopyAsJSON(t *testing.T) {
	values := []any{
		0.0, math.Copysign(0, -1), 1.5, -2.0, 1 << 53, 1<<53 + 2, 1<<60 + 256, -(1<<60 + 256), 1152921504606847232.0,
		9.2233720368547748e18, 9.223372036854775807e18, -9.223372036854775808e18, 1e20, 1e21, 1e-7, math.MaxFloat64,
		math.NaN(), math.Inf(1), int64(7), "caf\u00e9", "\xff", true, nil,
		map[string]any{"a": []any{1.0, map[string]any{"b": 2.5}}}, map[string]any{"\xff": 1.0},
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		values = append(values, math.Float64frombits(r.Uint64()), float64(r.Int64()), float64(r.Int64N(1<<54)))
	}
	for _, v := range values {
		var c jsonCopy
		got, ok := c.copy(v, 0)
		js, err := json.Marshal(v)
		if !ok {
			continue
		}
		if err != nil {
			t.Fatalf("copyAsJSON(%v) = %v, but encoding/json refuses it: %v", v, got, err)
		}
		var want any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(js, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("copyAsJSON(%v) = %#v, the round trip of %s gives %#v", v, got, js, want)
		}
		if cj, _ := json.Marshal(got); (string(cj) != string(js)) != c.negZero {
			t.Fatalf("copyAsJSON(%v): encoded %s, the copy %s, negZero %v", v, js, cj, c.negZero)
		}
	}
}

// TestJSONPatchLibraryPanics: the patches on which the json-patch library
// panics (a test reaching a null array element, an add under a null the
// patch copied) answer the server's panic filter's 500 instead of
// panicking; the real server panics on them too.
func TestJSONPatchLibraryPanics(t *testing.T) {
	crd := loadExample(t)
	live := map[string]any{"apiVersion": "stable.example.com/v1beta1", "kind": "CronTab",
		"metadata": map[string]any{"name": "x", "namespace": "default", "resourceVersion": "2"}, "spec": map[string]any{"l": []any{nil, int64(1)}}}
	for _, patch := range []string{
		`[{"op":"test","path":"/spec/l","value":[null,1]}]`,
		`[{"op":"test","path":"/spec/l","value":[2,null]}]`,
		`[{"op":"add","path":"/spec/a","value":null},{"op":"copy","from":"/spec/a","path":"/spec/b"},{"op":"add","path":"/spec/b/x","value":1}]`,
	} {
		for _, fast := range []bool{true, false} {
			res := crd.Version("v1beta1").patchWith(JSONPatch, []byte(patch), live, PatchOptions{}, fast)
			if st := res.Status(); st == nil || st.Code != 500 || st.Message != apiserverPanicked {
				t.Errorf("Patch(%s) fast=%v = %v, want the 500 of a request that panics", patch, fast, res.Err)
			}
		}
	}
}
