package crdkit

import (
	"encoding/json"
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
