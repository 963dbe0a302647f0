package admission

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

// loadUpdates loads examples/updates: a CronTab CRD tightened since its
// live object was stored (image maxLength 16, cronSpec immutable).
func loadUpdates(t *testing.T) (*crdkit.CRD, map[string]any, []byte) {
	t.Helper()
	data, err := os.ReadFile("../examples/updates/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../examples/updates/live.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(raw, &list); err != nil || len(list.Items) == 0 {
		t.Fatalf("live.json: %v", err)
	}
	var live map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(list.Items[0], &live); err != nil {
		t.Fatal(err)
	}
	return crd, live, list.Items[0]
}

func updateReview(t *testing.T, sub string, obj, old string) []byte {
	t.Helper()
	b := reviewBody(t, reviewV1, admissionv1.Update, obj, old)
	if sub != "" {
		var m map[string]any
		json.Unmarshal(b, &m)
		m["request"].(map[string]any)["subResource"] = sub
		b, _ = json.Marshal(m)
	}
	return b
}

func TestValidatorUpdates(t *testing.T) {
	crd, live, liveRaw := loadUpdates(t)
	v1 := crd.Version("v1")
	val := NewValidator([]*crdkit.CRD{crd}, Options{})
	obj := func(cron, image string, replicas int, status string) string {
		s := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","namespace":"default","resourceVersion":"4242"},` +
			`"spec":{"cronSpec":"` + cron + `","image":"` + image + `","replicas":` + itoa(replicas) + `}`
		if status != "" {
			s += `,"status":{"lastRun":"` + status + `"}`
		}
		return s + "}"
	}
	const longImage = "registry.example.com/backup:2026.01"
	for _, tc := range []struct {
		name, sub, obj string
		allowed        bool
	}{
		{"ratchets", "", obj("0 3 * * *", longImage, 2, ""), true},
		{"transition-rule", "", obj("0 4 * * *", longImage, 1, ""), false},
		{"changed-too-long", "", obj("0 3 * * *", "registry.example.com/backup:2026.12", 1, ""), false},
		{"status", "status", obj("0 9 * * *", "x", 1, "2026-12-01T03:00:00Z"), true},
		{"status-invalid", "status", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","namespace":"default","resourceVersion":"4242"},"status":{"lastRun":1}}`, false},
		{"scale-not-checked", "scale", `{"apiVersion":"autoscaling/v1","kind":"Scale"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rv := post(t, val, updateReview(t, tc.sub, tc.obj, string(liveRaw)))
			r := rv.Response
			var want crdkit.Result
			switch tc.sub {
			case "":
				want = v1.UpdateJSON([]byte(tc.obj), live, crdkit.UpdateOptions{})
			case "status":
				want = v1.UpdateStatusJSON([]byte(tc.obj), live, crdkit.UpdateOptions{})
			}
			if r.Allowed != tc.allowed || !reflect.DeepEqual(r.Result, want.Status()) || !reflect.DeepEqual(r.Warnings, want.Warnings) {
				t.Errorf("Review(%s) = %v %+v %q, want %v %+v %q", tc.name, r.Allowed, r.Result, r.Warnings, tc.allowed, want.Status(), want.Warnings)
			}
		})
	}

	// Embedded: the old Work holds the manifest as it was stored (no
	// resourceVersion); the new one changes replicas only. As an update it
	// ratchets; as a create it would be refused (image too long).
	emb := NewValidator([]*crdkit.CRD{crd}, Options{Manifests: ListAt("/spec/manifests")})
	oldManifest := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cronSpec":"0 3 * * *","image":"` + longImage + `","replicas":1}}`
	changed := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},"spec":{"cronSpec":"0 3 * * *","image":"` + longImage + `","replicas":2}}`
	other := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"other"},"spec":{"cronSpec":"0 3 * * *","image":"` + longImage + `"}}`
	_, rv := post(t, emb, reviewBody(t, reviewV1, admissionv1.Update, bundle(changed), bundle(oldManifest)))
	if !rv.Response.Allowed {
		t.Errorf("embedded update that ratchets denied: %+v", rv.Response.Result)
	}
	_, rv = post(t, emb, reviewBody(t, reviewV1, admissionv1.Create, bundle(changed), ""))
	if rv.Response.Allowed || rv.Response.Result.Code != 422 {
		t.Errorf("embedded create with a long image allowed")
	}
	// A manifest without a counterpart is checked as a create.
	_, rv = post(t, emb, reviewBody(t, reviewV1, admissionv1.Update, bundle(changed, other), bundle(oldManifest)))
	if r := rv.Response; r.Allowed || r.Result.Code != 422 || !strings.Contains(r.Result.Message, `"other"`) {
		t.Errorf("embedded update with a new manifest: %+v", r.Result)
	}
	// The transition rule sees the counterpart's cronSpec.
	moved := strings.Replace(changed, "0 3 * * *", "0 5 * * *", 1)
	_, rv = post(t, emb, reviewBody(t, reviewV1, admissionv1.Update, bundle(moved), bundle(oldManifest)))
	if r := rv.Response; r.Allowed || !strings.Contains(r.Result.Message, "cronSpec is immutable") {
		t.Errorf("embedded update breaking the transition rule: %+v", r.Result)
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
