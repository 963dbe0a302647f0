package crdkit

import (
	"reflect"
	"testing"
	"time"
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

// TestScaleManagedFields checks the entries a write of /scale leaves in
// the object's managedFields (Result.Parent), as the real server's
// (TestServerScale's scale-parent cases) records them.
func TestScaleManagedFields(t *testing.T) {
	crd, err := Load([]byte(widgetCRD))
	if err != nil {
		t.Fatal(err)
	}
	v := crd.Version("v1")
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	created := v.Create(widget("ns", "w1", nil, map[string]any{"replicas": int64(2)}), CreateOptions{ManagedFields: ManagedFields{FieldManager: "creator", Now: now}})
	if created.Err != nil {
		t.Fatal(created.Err)
	}
	live := created.Object
	md := live["metadata"].(map[string]any)
	md["uid"], md["resourceVersion"], md["creationTimestamp"] = "u-1", "19", "2026-01-01T00:00:00Z"
	creator := func(fields map[string]any) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": fields},
			"manager": "creator", "operation": "Update", "time": "2026-01-01T00:00:00Z"}
	}
	replicasEntry := func(manager string, sub bool) map[string]any {
		e := map[string]any{"apiVersion": "example.com/v1", "fieldsType": "FieldsV1", "fieldsV1": map[string]any{"f:spec": map[string]any{"f:replicas": map[string]any{}}},
			"manager": manager, "operation": "Update"}
		if sub {
			e["subresource"] = "scale"
		}
		return e
	}
	rest := map[string]any{} // the creator's entry without spec.replicas
	by := func(m string) UpdateOptions {
		return UpdateOptions{ManagedFields: ManagedFields{FieldManager: m, Now: now.Add(time.Hour)}}
	}
	for _, tc := range []struct {
		name string
		res  Result
		want []any // nil: no managedFields
	}{
		{"put", v.UpdateScaleJSON([]byte(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"w1"},"spec":{"replicas":5}}`), live, by("scaler")),
			[]any{replicasEntry("scaler", true), creator(rest)}},
		{"merge", v.PatchScale(MergePatch, []byte(`{"spec":{"replicas":7}}`), live, by("scaler")),
			[]any{replicasEntry("scaler", true), creator(rest)}},
		{"json", v.PatchScale(JSONPatch, []byte(`[{"op":"replace","path":"/spec/replicas","value":8}]`), live, by("scaler")),
			[]any{replicasEntry("scaler", true), creator(rest)}},
		// Without autoscaling/v1 the server's field manager fails: the
		// owner's entry is rewritten through the Scale, without a time.
		{"put without type meta", v.UpdateScaleJSON([]byte(`{"metadata":{"name":"w1"},"spec":{"replicas":5}}`), live, by("scaler")),
			[]any{replicasEntry("creator", false), creator(rest)}},
		// The Scale shows the owner's entry at autoscaling/v1, a manager
		// other than the object's: mapped back, it is a new entry.
		{"put same replicas", v.UpdateScaleJSON([]byte(`{"apiVersion":"autoscaling/v1","metadata":{"name":"w1"},"spec":{"replicas":2}}`), live, by("scaler")),
			[]any{replicasEntry("creator", false), creator(rest)}},
		{"omit", v.UpdateScaleJSON([]byte(`{"apiVersion":"autoscaling/v1","metadata":{"name":"w1"},"spec":{"replicas":5}}`), live,
			UpdateOptions{ManagedFields: ManagedFields{FieldManager: "scaler", Omit: true}}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.res.Err != nil || tc.res.Parent == nil {
				t.Fatalf("Parent(%s) = %v, %v", tc.name, tc.res.Parent, tc.res.Err)
			}
			got := tc.res.Parent["metadata"].(map[string]any)["managedFields"]
			if tc.want == nil {
				if got != nil {
					t.Errorf("managedFields(%s) = %s, want none", tc.name, mustMarshal(got))
				}
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("managedFields(%s) = %s, want %s", tc.name, mustMarshal(got), mustMarshal(tc.want))
			}
		})
	}
}
