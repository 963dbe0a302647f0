package crdkit

import (
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func loadExample(t testing.TB) *CRD {
	t.Helper()
	data, err := os.ReadFile("examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return crd
}

// fixedTime gives the managed fields entries a request writes one time,
// for tests that compare two answers.
var fixedTime = ManagedFields{Now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

func TestCreateJSONPrunesDefaultsAndWarns(t *testing.T) {
	v := loadExample(t).Version("v1")
	in := `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","bogus":1},
	        "spec":{"cronSpec":"* * * * */5","image":"i","extra":true,"image":"j"}}`
	for _, tc := range []struct {
		mode         FieldValidation
		wantWarnings []string
		wantErr      bool
	}{
		{Ignore, nil, false},
		{Warn, []string{`duplicate field "spec.image"`, `unknown field "metadata.bogus"`, `unknown field "spec.extra"`}, false},
		{Strict, nil, true},
	} {
		t.Run(string(tc.mode), func(t *testing.T) {
			res := v.CreateJSON([]byte(in), CreateOptions{FieldValidation: tc.mode, ManagedFields: ManagedFields{Omit: true}})
			if (res.Err != nil) != tc.wantErr {
				t.Fatalf("CreateJSON(%s).Err = %v, want error %t", tc.mode, res.Err, tc.wantErr)
			}
			if tc.wantErr {
				st := res.Status()
				want := `CronTab in version "v1" cannot be handled as a CronTab: strict decoding error: duplicate field "spec.image", unknown field "metadata.bogus", unknown field "spec.extra"`
				if st == nil || st.Code != 400 || st.Message != want {
					t.Errorf("Status = %+v, want 400 %q", st, want)
				}
				return
			}
			if !reflect.DeepEqual(res.Warnings, tc.wantWarnings) {
				t.Errorf("Warnings = %q, want %q", res.Warnings, tc.wantWarnings)
			}
			want := map[string]any{
				"apiVersion": "stable.example.com/v1", "kind": "CronTab",
				"metadata": map[string]any{"name": "x", "namespace": "default", "generation": int64(1)},
				"spec":     map[string]any{"cronSpec": "* * * * */5", "image": "j", "replicas": float64(1)},
			}
			got, _ := json.Marshal(res.Object)
			wantJS, _ := json.Marshal(want)
			if string(got) != string(wantJS) {
				t.Errorf("Object = %s, want %s", got, wantJS)
			}
			if !reflect.DeepEqual(res.Pruned, []string{"spec.extra"}) {
				t.Errorf("Pruned = %q, want [spec.extra]", res.Pruned)
			}
		})
	}
}

func TestCreateJSONMalformedMetadata(t *testing.T) {
	v := loadExample(t).Version("v1")
	res := v.CreateJSON([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","labels":{"a":1}}}`), CreateOptions{})
	st := res.Status()
	if st == nil || st.Code != 400 {
		t.Fatalf("Status = %+v, want a 400", st)
	}
}

func TestReadAppliesStorageDefaults(t *testing.T) {
	crd := loadExample(t)
	stored := map[string]any{
		"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "x", "namespace": "default", "generation": int64(0), "bogus": "dropped"},
		"spec":     map[string]any{"cronSpec": "* * * * */5"},
	}
	got, err := crd.Version("v1beta1").Read(stored)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"generation":1,"name":"x","namespace":"default"},"spec":{"cronSpec":"* * * * */5","replicas":1}}`
	if b, _ := json.Marshal(got); string(b) != want {
		t.Errorf("Read(v1beta1) = %s, want %s", b, want)
	}
	if _, ok := stored["spec"].(map[string]any)["replicas"]; ok {
		t.Errorf("Read modified its input")
	}
}

func TestReadIdentityOnlyWhenSafe(t *testing.T) {
	if !loadExample(t).readIsIdentity {
		t.Errorf("CronTab example: readIsIdentity = false, want true")
	}
	withNull := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{
	"spec":{"type":"object","properties":{"p":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"default":{"a":null}}}}}}}}]}}`
	crd, err := Load([]byte(withNull))
	if err != nil {
		t.Fatal(err)
	}
	if crd.readIsIdentity {
		t.Errorf("a default holding null: readIsIdentity = true, want false")
	}
	res := crd.Version("v1").CreateJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"x"},"spec":{}}`), CreateOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	b, _ := json.Marshal(res.Object["spec"])
	// The read path prunes nothing here: "a" is under preserve-unknown-fields
	// with no schema, and upstream null pruning leaves schemaless nulls alone.
	if string(b) != `{"p":{"a":null}}` {
		t.Errorf("spec = %s, want {\"p\":{\"a\":null}}", b)
	}
}

// managedTime matches the time of a managedFields entry in JSON.
var managedTime = regexp.MustCompile(`"time":"[^"]*"`)

// TestCreateConcurrent runs creates on one compiled CRD from many
// goroutines (meaningful under -race): compiled values are shared, never
// written.
func TestCreateConcurrent(t *testing.T) {
	crd := loadExample(t)
	body := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"x","finalizers":["f"]},"spec":{"cronSpec":"* * * * */5","extra":1,"replicas":null}}`)
	// A fixed time: managed fields entries written a second later differ.
	want := crd.Version("v1").CreateJSON(body, CreateOptions{FieldValidation: Warn, ManagedFields: fixedTime})
	wantJS, _ := json.Marshal(want.Object)
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				for _, v := range []string{"v1", "v1beta1"} {
					res := crd.Version(v).CreateJSON(body, CreateOptions{FieldValidation: Warn, ManagedFields: fixedTime})
					if v == "v1" {
						if got, _ := json.Marshal(res.Object); string(got) != string(wantJS) {
							errs <- string(got)
							return
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent CreateJSON = %s, want %s", e, wantJS)
	}
}

// TestCreateReturnsStatusDefaults: a create drops status (status
// subresource), and the server's read-back applies the status defaults
// again (seen on the server with Flux's Kustomization and Gateway API).
func TestCreateReturnsStatusDefaults(t *testing.T) {
	doc := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"things.example.com"},
	"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"things","kind":"Thing"},
	"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},"schema":{"openAPIV3Schema":{"type":"object","properties":{
	"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true},
	"status":{"type":"object","default":{"observedGeneration":-1},"properties":{"observedGeneration":{"type":"integer"}}}}}}}]}}`
	crd, err := Load([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	res := crd.Version("v1").CreateJSON([]byte(`{"apiVersion":"example.com/v1","kind":"Thing","metadata":{"name":"x"},"spec":{},"status":{"observedGeneration":5}}`), CreateOptions{})
	if res.Err != nil {
		t.Fatal(res.Err)
	}
	if b, _ := json.Marshal(res.Object["status"]); string(b) != `{"observedGeneration":-1}` {
		t.Errorf("status = %s, want the default {\"observedGeneration\":-1}", b)
	}
}

// TestCorpusConcurrent creates every corpus body (as is and with unknown
// fields) and updates the created object with it, from several goroutines
// at once, each CRD compiled afresh so that these are the first uses of its
// compiled values (run with -race): lazily built state must be built once,
// safely, and every answer must be the one a fresh copy of the CRD gives
// when used alone.
func TestCorpusConcurrent(t *testing.T) {
	ref, fresh := corpusBodies(t), corpusBodies(t)
	if len(ref) != len(fresh) || len(ref) < 60 {
		t.Fatalf("%d and %d corpus bodies, want the same, at least 60", len(ref), len(fresh))
	}
	// A body with generateName and no name gets a random name: its
	// answers differ by design, so it is left out.
	for i := 0; i < len(ref); i++ {
		var obj struct {
			Metadata struct{ Name, GenerateName string }
		}
		if json.Unmarshal(ref[i].raw, &obj) == nil && obj.Metadata.Name == "" && obj.Metadata.GenerateName != "" {
			ref, fresh = slices.Delete(ref, i, i+1), slices.Delete(fresh, i, i+1)
			i--
		}
	}
	// A fixed time for the managed fields entries: the answers must be
	// identical.
	mf := fixedTime
	modes := []CreateOptions{{FieldValidation: Ignore, ManagedFields: mf}, {FieldValidation: Strict, ManagedFields: mf}}
	type update struct {
		body []byte
		live map[string]any // read by every goroutine, changed by none
	}
	want := make([][]Result, len(ref))
	updates := make([]*update, len(ref))
	wantUpdate := make([]Result, len(ref))
	// Patches of the created object and applies, which build the CRD's
	// field manager on first use.
	apply := PatchOptions{Force: true, ManagedFields: ManagedFields{FieldManager: "applier", Now: mf.Now}}
	labels := []byte(`{"metadata":{"labels":{"crdkit.example.com/patched":"yes"}}}`)
	patches := func(b corpusBody, u *update) []Result {
		out := []Result{b.v.Apply(b.raw, nil, apply)}
		if u != nil {
			out = append(out, b.v.Apply(b.raw, u.live, apply), b.v.Patch(MergePatch, labels, u.live, PatchOptions{ManagedFields: mf}))
		}
		for i := range out {
			cutTypeErrors(&out[i])
		}
		return out
	}
	wantPatches := make([][]Result, len(ref))
	updated := 0
	for i, b := range ref {
		for _, o := range modes {
			want[i] = append(want[i], b.v.CreateJSON(b.raw, o))
		}
		if want[i][0].Err != nil {
			continue
		}
		live := b.v.CreateJSON(b.raw, modes[0]).Object // not want's, which stays as answered
		md, _ := live["metadata"].(map[string]any)
		var obj map[string]any
		if md == nil || json.Unmarshal(b.raw, &obj) != nil {
			continue
		}
		md["resourceVersion"], md["uid"], md["creationTimestamp"] = "7", "0b3c8e4e-6c2b-4d3f-9a57-0c1f5b8e2a11", "2026-01-02T03:04:05Z"
		om, _ := obj["metadata"].(map[string]any)
		if om == nil {
			continue
		}
		om["resourceVersion"] = "7"
		body, err := json.Marshal(obj)
		if err != nil {
			t.Fatal(err)
		}
		updates[i] = &update{body, live}
		if wantUpdate[i] = b.v.UpdateJSON(body, live, UpdateOptions{ManagedFields: mf}); wantUpdate[i].Err == nil {
			updated++
		}
	}
	for i, b := range ref {
		wantPatches[i] = patches(b, updates[i])
	}
	if updated < len(ref)/2 {
		t.Fatalf("%d of %d bodies updated without error, want at least half", updated, len(ref))
	}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			<-start
			for i, b := range fresh {
				for j, o := range modes {
					if got := b.v.CreateJSON(b.raw, o); !reflect.DeepEqual(got, want[i][j]) {
						t.Errorf("%s, %s: concurrent CreateJSON = %v, alone %v", b.name, o.FieldValidation, got.Err, want[i][j].Err)
					}
				}
				if u := updates[i]; u != nil {
					if got := b.v.UpdateJSON(u.body, u.live, UpdateOptions{ManagedFields: mf}); !reflect.DeepEqual(got, wantUpdate[i]) {
						t.Errorf("%s: concurrent UpdateJSON = %v, alone %v", b.name, got.Err, wantUpdate[i].Err)
					}
				}
				if got := patches(b, updates[i]); !reflect.DeepEqual(got, wantPatches[i]) {
					t.Errorf("%s: concurrent applies and patch = %v, alone %v", b.name, got, wantPatches[i])
				}
			}
		})
	}
	close(start)
	wg.Wait()
}

// cutTypeErrors cuts the list of a 500's message: the field manager
// lists (some of) the fields it cannot type as it meets them in Go map
// order, on the server too, so which and in what order varies.
func cutTypeErrors(r *Result) {
	var se *apierrors.StatusError
	if !errors.As(r.Err, &se) || se.ErrStatus.Code != 500 {
		return
	}
	st := se.ErrStatus
	if i := strings.Index(st.Message, "errors:"); i >= 0 {
		st.Message = st.Message[:i] + "errors: ..."
	}
	r.Err = &apierrors.StatusError{ErrStatus: st}
}
