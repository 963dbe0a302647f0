package crdkit

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/crdkit/crdkit/objectmeta"
)

func loadUpdatesExample(t testing.TB) (*Version, map[string]any) {
	t.Helper()
	data, err := os.ReadFile("examples/updates/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("examples/updates/live.json")
	if err != nil {
		t.Fatal(err)
	}
	var list struct{ Items []json.RawMessage }
	if err := json.Unmarshal(raw, &list); err != nil {
		t.Fatal(err)
	}
	return crd.Version("v1"), decodeJSON(t, string(list.Items[0]))
}

func decodeJSON(t testing.TB, s string) map[string]any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	v, err := normalizeValue(numbersToValues(m), 0)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func numbersToValues(x any) any {
	switch t := x.(type) {
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, _ := t.Float64()
		return f
	case map[string]any:
		for k, e := range t {
			t[k] = numbersToValues(e)
		}
	case []any:
		for i, e := range t {
			t[i] = numbersToValues(e)
		}
	}
	return x
}

func TestUpdate(t *testing.T) {
	v, live := loadUpdatesExample(t)
	spec := `"spec":{"cronSpec":"0 3 * * *","image":"registry.example.com/backup:2026.01","replicas":2}`
	cases := []struct {
		name, body string
		status     bool
		code       int32
		message    string
		generation int64
		check      func(t *testing.T, obj map[string]any)
	}{
		{name: "spec change bumps generation, keeps status, ratchets image",
			body:       `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"4242"},` + spec + `,"status":{"lastRun":"x"}}`,
			generation: 4, check: func(t *testing.T, obj map[string]any) {
				if st := obj["status"].(map[string]any)["lastRun"]; st != "2026-11-30T03:00:00Z" {
					t.Errorf("status.lastRun = %v, want live's", st)
				}
			}},
		{name: "metadata-only change keeps generation",
			body:       `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"4242","labels":{"a":"b"}},"spec":{"cronSpec":"0 3 * * *","image":"registry.example.com/backup:2026.01","replicas":1}}`,
			generation: 3},
		{name: "resourceVersion missing",
			body: `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly"},` + spec + `}`,
			code: 422, message: `crontabs.stable.example.com "nightly" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`},
		{name: "resourceVersion stale",
			body: `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"1"},` + spec + `}`,
			code: 409, message: `Operation cannot be fulfilled on crontabs.stable.example.com "nightly": the object has been modified; please apply your changes to the latest version and try again`},
		{name: "another name",
			body: `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"daily","resourceVersion":"4242"},` + spec + `}`,
			code: 400, message: `the name of the object (daily) does not match the name on the URL (nightly)`},
		{name: "changed image does not ratchet",
			body: `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"4242"},"spec":{"image":"registry.example.com/other:1"}}`,
			code: 422, message: `CronTab.stable.example.com "nightly" is invalid: [spec.image: Too long: may not be more than 16 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]`},
		{name: "status update keeps spec and generation", status: true,
			body:       `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"4242","labels":{"x":"y"}},"spec":{"replicas":9},"status":{"lastRun":"now"}}`,
			generation: 3, check: func(t *testing.T, obj map[string]any) {
				if r := obj["spec"].(map[string]any)["replicas"]; r != int64(1) {
					t.Errorf("spec.replicas = %v, want live's 1", r)
				}
				if l := obj["status"].(map[string]any)["lastRun"]; l != "now" {
					t.Errorf("status.lastRun = %v, want now", l)
				}
				if _, ok := obj["metadata"].(map[string]any)["labels"]; ok {
					t.Error("a status update kept the request's labels")
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before, _ := json.Marshal(live)
			var res Result
			if c.status {
				res = v.UpdateStatusJSON([]byte(c.body), live, UpdateOptions{})
			} else {
				res = v.UpdateJSON([]byte(c.body), live, UpdateOptions{})
			}
			if after, _ := json.Marshal(live); string(after) != string(before) {
				t.Fatalf("UpdateJSON modified live:\n%s\n%s", before, after)
			}
			if c.code == 0 {
				if res.Err != nil {
					t.Fatalf("UpdateJSON(%s) = %v, want accepted", c.name, res.Err)
				}
				md := res.Object["metadata"].(map[string]any)
				if g := md["generation"]; g != c.generation {
					t.Errorf("generation = %v, want %d", g, c.generation)
				}
				for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
					if _, ok := md[k]; ok {
						t.Errorf("result has metadata.%s", k)
					}
				}
				if c.check != nil {
					c.check(t, res.Object)
				}
				return
			}
			st := res.Status()
			if st == nil || st.Code != c.code || st.Message != c.message {
				t.Fatalf("UpdateJSON(%s) = %v, want %d %s", c.name, res.Err, c.code, c.message)
			}
		})
	}
}

func TestUpdateStatusWithoutSubresource(t *testing.T) {
	v := loadExample(t).Version("v1")
	live := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "x", "namespace": "default", "resourceVersion": "5"}}
	res := v.UpdateStatus(live, live, UpdateOptions{})
	if st := res.Status(); st == nil || st.Code != 404 {
		t.Fatalf("UpdateStatus without the status subresource = %v, want 404", res.Err)
	}
}

func TestUpdateConcurrent(t *testing.T) {
	v, live := loadUpdatesExample(t)
	obj := decodeJSON(t, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"4242"},"spec":{"cronSpec":"0 3 * * *","image":"registry.example.com/backup:2026.01","replicas":3}}`)
	want := v.Update(obj, live, UpdateOptions{ManagedFields: fixedTime})
	if want.Err != nil {
		t.Fatal(want.Err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if got := v.Update(obj, live, UpdateOptions{ManagedFields: fixedTime}); !reflect.DeepEqual(got, want) {
					t.Errorf("concurrent Update = %v, want %v", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestUpdateFastCorpus runs every corpus object, as is and with unknown
// fields, as an update (and a status update) of itself as created, with
// a label added, through the fast steps and without them: the answers
// must be the same, and canonical metadata must be kept in some of them.
func TestUpdateFastCorpus(t *testing.T) {
	bodies := corpusBodies(t)
	if len(bodies) < 60 {
		t.Fatalf("%d corpus bodies, want at least 60", len(bodies))
	}
	compared, canonical, canonicalManaged := 0, 0, 0
	for _, b := range bodies {
		created := b.v.CreateJSON(b.raw, CreateOptions{FieldValidation: Ignore})
		if created.Err != nil {
			continue
		}
		live := created.Object
		md, _ := live["metadata"].(map[string]any)
		if md == nil {
			continue
		}
		md["resourceVersion"] = "7"
		md["uid"] = "0b3c8e4e-6c2b-4d3f-9a57-0c1f5b8e2a11"
		md["creationTimestamp"] = "2026-01-02T03:04:05Z"
		var obj map[string]any
		if err := json.Unmarshal(b.raw, &obj); err != nil {
			t.Fatal(err)
		}
		om, _ := obj["metadata"].(map[string]any)
		if om == nil {
			continue
		}
		om["resourceVersion"] = "7"
		labels, _ := om["labels"].(map[string]any)
		if labels == nil {
			labels = map[string]any{}
			om["labels"] = labels
		}
		labels["crdkit.test/changed"] = "yes"
		raw, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if objectmeta.Canonical(om) {
			canonical++
		}
		// The same body with live's managed fields, as a client that
		// read live sends it back.
		om["managedFields"] = md["managedFields"]
		rawManaged, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := md["managedFields"]; ok && objectmeta.Canonical(om) {
			canonicalManaged++
		}
		for _, status := range []bool{false, true} {
			if status && !b.v.statusSubresource {
				continue
			}
			for _, m := range []FieldValidation{Ignore, Warn, Strict} {
				for _, body := range [][]byte{raw, rawManaged} {
					for _, mf := range []ManagedFields{fixedTime, {Omit: true}} {
						opts := UpdateOptions{FieldValidation: m, ManagedFields: mf}
						fast := b.v.updateWith(body, nil, live, opts, status, true)
						slow := b.v.updateWith(body, nil, live, opts, status, false)
						if err := sameResult(fast, slow); err != nil {
							t.Errorf("%s (status %v, %s, omit %v): fast update of %s: %v", b.name, status, m, mf.Omit, body, err)
						}
						compared++
					}
				}
			}
		}
	}
	t.Logf("%d updates compared; %d bodies with canonical metadata, %d with managed fields", compared, canonical, canonicalManaged)
	if compared < 100 || canonical < 10 || canonicalManaged < 10 {
		t.Errorf("%d updates compared, %d bodies with canonical metadata, %d with managed fields: the fast steps are not exercised", compared, canonical, canonicalManaged)
	}
}
