package crdkit

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// FuzzScale sends arbitrary bodies to the scale subresource: as a PUT of a
// Scale and as each patch type (the library's panics, copy bombs and
// operations past the limit included). No panic, live untouched, and an
// answer that is either a refusal with the server's Status (and no Parent)
// or an autoscaling/v1 Scale whose spec.replicas is an integer, with the
// object written (Result.Parent) holding it and managed fields.
func FuzzScale(f *testing.F) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		f.Fatal(err)
	}
	v := crd.Version("v1")
	created := v.Create(widget("ns", "w1", nil, map[string]any{"replicas": int64(2)}), CreateOptions{ManagedFields: ManagedFields{FieldManager: "creator"}})
	if created.Err != nil {
		f.Fatal(created.Err)
	}
	live := created.Object // with a managedFields entry owning spec.replicas
	md := live["metadata"].(map[string]any)
	md["uid"], md["resourceVersion"], md["creationTimestamp"], md["generation"] = "u-1", "19", "2026-01-01T00:00:00Z", int64(1)
	for _, s := range []struct {
		body string
		kind uint8
	}{
		{`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":5}}`, 0},
		{`{"metadata":{"name":"w1","uid":"u-2"},"spec":{"replicas":5,"bogus":1,"replicas":6}}`, 0},
		{`{"spec":{"replicas":7},"status":{"replicas":3}}`, 1},
		{`[{"op":"replace","path":"/spec/replicas","value":8}]`, 2},
		{`[{"op":"copy","from":"/metadata","path":"/spec/a"},{"op":"copy","from":"/spec","path":"/spec/b"}]`, 2},
		{`[{"op":"test","path":"/metadata/managedFields","value":[null]}]`, 2},
		{`{}`, 3},
		{`apiVersion: autoscaling/v1`, 4},
		{`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":2}}`, 0x84},
		{`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":5}}`, 0xc4},
		{`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"}}`, 0x84},
	} {
		f.Add(s.body, s.kind)
	}
	types := []PatchType{MergePatch, JSONPatch, StrategicMergePatch, ApplyPatch}
	f.Fuzz(func(t *testing.T, body string, kind uint8) {
		before := runtime.DeepCopyJSON(live)
		var res Result
		opts := UpdateOptions{FieldValidation: []FieldValidation{"", Ignore, Warn, Strict}[kind>>4&3]}
		if kind&0x80 != 0 {
			opts.ManagedFields.FieldManager = "fuzzer"
		}
		switch k := kind % 5; {
		case k == 0:
			res = v.UpdateScaleJSON([]byte(body), live, opts)
		case k == 4 && kind&0x40 != 0:
			res = v.ApplyScale([]byte(body), live, PatchOptions{FieldValidation: opts.FieldValidation, Force: true, ManagedFields: opts.ManagedFields})
		default:
			res = v.PatchScale(types[k-1], []byte(body), live, opts)
		}
		if !reflect.DeepEqual(live, before) {
			t.Fatalf("scale request %q (%d) modified live", body, kind)
		}
		if res.Err != nil {
			if res.Object != nil || res.Parent != nil || res.Status() == nil {
				t.Fatalf("scale request %q (%d) = %v with object %v", body, kind, res.Err, res.Object)
			}
			return
		}
		if res.Object["kind"] != "Scale" || res.Object["apiVersion"] != "autoscaling/v1" {
			t.Fatalf("scale request %q (%d) = %v, want a Scale", body, kind, res.Object)
		}
		spec, _ := res.Object["spec"].(map[string]any)
		if _, ok := spec["replicas"].(int64); !ok && spec["replicas"] != nil {
			t.Fatalf("scale request %q (%d): spec.replicas %#v", body, kind, spec["replicas"])
		}
		pspec, _ := res.Parent["spec"].(map[string]any)
		if want := spec["replicas"]; want != nil && pspec["replicas"] != want {
			t.Fatalf("scale request %q (%d): Parent spec.replicas %#v, want %#v", body, kind, pspec["replicas"], want)
		}
		mf, _ := res.Parent["metadata"].(map[string]any)["managedFields"].([]any)
		if len(mf) == 0 {
			t.Fatalf("scale request %q (%d): Parent without managedFields", body, kind)
		}
	})
}
