package crdkit

import (
	"encoding/json"
	"strings"
	"testing"

	kjson "sigs.k8s.io/json"
)

// TestCreateJSONHostileInput feeds the create pipeline inputs meant to
// break it: it must answer (an object or a Status), never panic or hang.
func TestCreateJSONHostileInput(t *testing.T) {
	v := loadExample(t).Version("v1")
	head := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x"},"spec":`
	deep := strings.Repeat(`{"a":`, 10000) + "1" + strings.Repeat("}", 10000)
	deeper := strings.Repeat(`[`, 20000) + strings.Repeat("]", 20000)
	huge := "[" + strings.TrimSuffix(strings.Repeat(`"x",`, 200000), ",") + "]"
	for _, tc := range []struct {
		name     string
		body     string
		wantCode int32 // 0: accepted
	}{
		{"10,000-deep object under spec", head + deep + "}", 0},
		{"20,000-deep arrays under spec", head + deeper + "}", 400},
		{"huge unknown array", head + `{"image":"i","junk":` + huge + "}}", 0},
		{"non-UTF-8 string", head + "{\"image\":\"\xff\xfe\"}}", 0},
		{"integer beyond int64", head + `{"replicas":99999999999999999999}}`, 422},
		{"number beyond float64", head + `{"replicas":1e999}}`, 400},
		{"empty body", ``, 400},
		{"not JSON", `{"apiVersion":`, 400},
		{"array", `[]`, 400},
		{"null", `null`, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := v.CreateJSON([]byte(tc.body), CreateOptions{FieldValidation: Strict})
			var code int32
			if st := res.Status(); st != nil {
				code = st.Code
			}
			if tc.wantCode == 0 && res.Err != nil && code != 400 {
				t.Errorf("CreateJSON = %v, want an answer without a server error", res.Err)
			}
			if tc.wantCode != 0 && code != tc.wantCode {
				t.Errorf("CreateJSON code = %d (%v), want %d", code, res.Err, tc.wantCode)
			}
		})
	}
}

// FuzzCreateJSON runs arbitrary bodies through the whole create pipeline in
// every field-validation mode: an answer, never a panic.
func FuzzCreateJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":"b"}},"spec":{"cronSpec":"* * * * */5","replicas":3,"x":null}}`))
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","finalizers":["a"]},"spec":{"replicas":"3","replicas":1}}`))
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"generateName":"g-"},"spec":{"a":[1,{"b":null}]}}`))
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				res := crd.Version(name).CreateJSON(body, CreateOptions{FieldValidation: m})
				if res.Err == nil && res.Object == nil {
					t.Fatalf("CreateJSON(%q) gave neither an object nor an error", body)
				}
			}
		}
	})
}

// updatesCRD has a list-type=map list, deep free-form nesting and a
// transition rule: the shapes an update's pairing walks.
const updatesCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
 "metadata":{"name":"things.hostile.example.com"},
 "spec":{"group":"hostile.example.com","scope":"Namespaced","names":{"plural":"things","singular":"thing","kind":"Thing","listKind":"ThingList"},
  "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{
    "items":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
     "items":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"v":{"type":"string","maxLength":1}}}},
    "free":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
    "fixed":{"type":"string","x-kubernetes-validations":[{"rule":"self == oldSelf","message":"immutable"}]}}},
   "status":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}}}]}}`

// TestUpdateHostile sends updates whose pairing with the live object could
// explode: a 20,000-item map list, all items changed or all unchanged (and
// all invalid, so ratcheting pairs every item), 5,000-deep nesting on both
// sides, and malformed live objects. Each must be answered.
func TestUpdateHostile(t *testing.T) {
	crd, err := Load([]byte(updatesCRD))
	if err != nil {
		t.Fatal(err)
	}
	v := crd.Version("v1")
	items := func(n int, val string) []any {
		l := make([]any, n)
		for i := range l {
			l[i] = map[string]any{"name": "n" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strings.Repeat("y", i/182), "v": val}
		}
		return l
	}
	deep := func(n int) any {
		var x any = "leaf"
		for range n {
			x = map[string]any{"a": x}
		}
		return x
	}
	obj := func(spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "hostile.example.com/v1", "kind": "Thing",
			"metadata": map[string]any{"name": "t", "namespace": "default", "resourceVersion": "3", "generation": int64(1)}, "spec": spec}
	}
	old := obj(map[string]any{"items": items(20000, "long"), "free": deep(5000), "fixed": "a"})
	for _, tc := range []struct {
		name     string
		new      map[string]any
		live     map[string]any
		wantCode int32
	}{
		{"all items unchanged and invalid", obj(map[string]any{"items": items(20000, "long"), "free": deep(5000), "fixed": "a"}), old, 0},
		{"all items changed", obj(map[string]any{"items": items(20000, "longer"), "free": deep(5000), "fixed": "a"}), old, 422},
		{"transition rule broken", obj(map[string]any{"items": items(20000, "long"), "free": deep(5000), "fixed": "b"}), old, 422},
		{"live without metadata", obj(map[string]any{"fixed": "a"}), map[string]any{"apiVersion": "hostile.example.com/v1", "kind": "Thing"}, 400},
		{"live metadata not an object", obj(map[string]any{"fixed": "a"}), map[string]any{"apiVersion": "hostile.example.com/v1", "kind": "Thing", "metadata": "x"}, 400},
		{"live at another group", obj(map[string]any{"fixed": "a"}), map[string]any{"apiVersion": "other/v1", "kind": "Thing", "metadata": map[string]any{"name": "t"}}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, status := range []bool{false, true} {
				var res Result
				if status {
					res = v.UpdateStatus(tc.new, tc.live, UpdateOptions{})
				} else {
					res = v.Update(tc.new, tc.live, UpdateOptions{})
				}
				if res.Err == nil && res.Object == nil {
					t.Fatal("no answer")
				}
				if st := res.Status(); !status && tc.wantCode != 0 && (st == nil || st.Code != tc.wantCode) {
					t.Errorf("Update = %v, want %d", res.Err, tc.wantCode)
				}
			}
		})
	}
}

// FuzzUpdateJSON runs arbitrary bodies over arbitrary live objects through
// both update pipelines in every field-validation mode: an answer, never a
// panic, and live is never modified.
func FuzzUpdateJSON(f *testing.F) {
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2"},"spec":{"cronSpec":"* * * * */5","replicas":3}}`),
		[]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","namespace":"default","resourceVersion":"2","generation":4,"uid":"u"},"spec":{"replicas":30},"status":{"a":1}}`))
	f.Add([]byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"2","uid":"v"},"spec":{"a":[1]}}`),
		[]byte(`{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"x","resourceVersion":"9"},"spec":{"a":[2]}}`))
	f.Add([]byte(`{"metadata":{"name":"y","resourceVersion":"x"}}`), []byte(`{"metadata":{"name":"x"}}`))
	crd := loadExample(f)
	f.Fuzz(func(t *testing.T, body, liveJSON []byte) {
		var live map[string]any
		if err := kjson.UnmarshalCaseSensitivePreserveInts(liveJSON, &live); err != nil || live == nil {
			return
		}
		before, _ := json.Marshal(live)
		for _, name := range []string{"v1", "v1beta1"} {
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				for _, res := range []Result{
					crd.Version(name).UpdateJSON(body, live, UpdateOptions{FieldValidation: m}),
					crd.Version(name).UpdateStatusJSON(body, live, UpdateOptions{FieldValidation: m}),
				} {
					if res.Err == nil && res.Object == nil {
						t.Fatalf("UpdateJSON(%q, %q) gave neither an object nor an error", body, liveJSON)
					}
				}
			}
		}
		if after, _ := json.Marshal(live); string(after) != string(before) {
			t.Fatalf("live modified:\n%s\n%s", before, after)
		}
	})
}
