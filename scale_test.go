package crdkit

import (
	"reflect"
	"testing"
)

func TestScale(t *testing.T) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	v := crd.Version("v1")
	live := widget("ns", "w1", nil, map[string]any{"replicas": int64(2)})
	md := live["metadata"].(map[string]any)
	md["uid"], md["resourceVersion"], md["creationTimestamp"], md["generation"] = "u-1", "19", "2026-01-01T00:00:00Z", int64(1)
	empty := widget("ns", "w3", nil, map[string]any{})
	empty["metadata"].(map[string]any)["resourceVersion"] = "21"
	scale := func(replicas int64) map[string]any {
		spec := map[string]any{}
		if replicas != 0 {
			spec["replicas"] = replicas
		}
		return map[string]any{"kind": "Scale", "apiVersion": "autoscaling/v1", "metadata": map[string]any{"name": "w1", "namespace": "ns"},
			"spec": spec, "status": map[string]any{"replicas": int64(0)}}
	}
	for _, tc := range []struct {
		name string
		res  Result
		want map[string]any
		msg  string
	}{
		{"get", v.Scale(live), scale(2), ""},
		{"get without replicas", v.Scale(empty), nil, `Internal error occurred: the spec replicas field ".spec.replicas" does not exist`},
		{"put", v.UpdateScaleJSON([]byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":5}}`), live, UpdateOptions{}), scale(5), ""},
		{"put without name", v.UpdateScaleJSON([]byte(`{"spec":{"replicas":5}}`), live, UpdateOptions{}), nil, "the name of the object (w1 based on URL) was undeterminable: name must be provided"},
		{"put other name", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"zz"},"spec":{"replicas":5}}`), live, UpdateOptions{}), nil, "the name of the object (zz) does not match the name on the URL (w1)"},
		{"put stale", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"w1","resourceVersion":"1"},"spec":{"replicas":5}}`), live, UpdateOptions{}), nil,
			`Operation cannot be fulfilled on widgets.example.com "w1": the object has been modified; please apply your changes to the latest version and try again`},
		{"put negative", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"w1"},"spec":{"replicas":-1}}`), live, UpdateOptions{}), nil,
			`Widget.example.com "w1" is invalid: .spec.replicas: Invalid value: -1: should be a non-negative integer`},
		{"put too many", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"w1"},"spec":{"replicas":50}}`), live, UpdateOptions{}), nil,
			`Widget.example.com "w1" is invalid: spec.replicas: Invalid value: 50: spec.replicas in body should be less than or equal to 20`},
		{"put strict", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"w1"},"spec":{"replicas":5,"bogus":1}}`), live, UpdateOptions{FieldValidation: Strict}), nil,
			`no kind is registered for the type v1.Scale in scheme "pkg/runtime/scheme.go:111"`},
		{"merge", v.PatchScale(MergePatch, []byte(`{"spec":{"replicas":7}}`), live, UpdateOptions{}), scale(7), ""},
		{"json", v.PatchScale(JSONPatch, []byte(`[{"op":"replace","path":"/spec/replicas","value":8}]`), live, UpdateOptions{}), scale(8), ""},
		{"json bad path", v.PatchScale(JSONPatch, []byte(`[{"op":"replace","path":"/spec/nope/x","value":8}]`), live, UpdateOptions{}), nil,
			"the server rejected our request due to an error in our request"},
		{"merge without replicas", v.PatchScale(MergePatch, []byte(`{"metadata":{"labels":{"a":"b"}}}`), empty, UpdateOptions{}), nil,
			`the spec replicas field ".spec.replicas" cannot be empty`},
		{"strategic", v.PatchScale(StrategicMergePatch, []byte(`{}`), live, UpdateOptions{}), nil,
			"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
	} {
		if tc.msg != "" {
			if st := tc.res.Status(); st == nil || st.Message != tc.msg {
				t.Errorf("%s: %v, want %s", tc.name, tc.res.Err, tc.msg)
			}
			continue
		}
		if tc.res.Err != nil || !reflect.DeepEqual(tc.res.Object, tc.want) {
			t.Errorf("%s: %v %s, want %s", tc.name, tc.res.Err, mustMarshal(tc.res.Object), mustMarshal(tc.want))
		}
	}
}
