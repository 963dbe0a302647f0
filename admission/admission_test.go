package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

func loadCronTab(t testing.TB) *crdkit.CRD {
	t.Helper()
	data, err := os.ReadFile("../examples/crontab/crd.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		t.Fatal(err)
	}
	return crd
}

// reviewBody is an AdmissionReview request of apiVersion for obj.
func reviewBody(t testing.TB, apiVersion string, op admissionv1.Operation, obj, old string) []byte {
	t.Helper()
	req := map[string]any{"uid": "u-1", "operation": string(op), "namespace": "default",
		"kind":     map[string]any{"group": "stable.example.com", "version": "v1", "kind": "CronTab"},
		"resource": map[string]any{"group": "stable.example.com", "version": "v1", "resource": "crontabs"},
		"userInfo": map[string]any{"username": "alice"}}
	if obj != "" {
		req["object"] = json.RawMessage(obj)
	}
	if old != "" {
		req["oldObject"] = json.RawMessage(old)
	}
	b, err := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "AdmissionReview", "request": req})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// post sends body to h and decodes the review answered.
func post(t testing.TB, h http.Handler, body []byte) (int, review) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
	var rv review
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &rv); err != nil {
			t.Fatalf("answer %s: %v", rec.Body, err)
		}
		if rv.Response == nil {
			t.Fatalf("answer %s has no response", rec.Body)
		}
	}
	return rec.Code, rv
}

const (
	goodCronTab    = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","image":"x","replicas":2}}`
	badCronTab     = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","replicas":15}}`
	unknownCronTab = `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","extra":1}}`
	betaCronTab    = `{"apiVersion":"stable.example.com/v1beta1","kind":"CronTab","metadata":{"name":"a"},"spec":{}}`
	otherKind      = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}`
)

func TestValidator(t *testing.T) {
	crd := loadCronTab(t)
	v1 := crd.Version("v1")
	direct := func(obj string) *crdkit.Result {
		res := v1.CreateJSON([]byte(obj), crdkit.CreateOptions{Namespace: "default"})
		return &res
	}
	val := NewValidator([]*crdkit.CRD{crd}, Options{})
	for _, tc := range []struct {
		name, review, obj string
		op                admissionv1.Operation
		allowed           bool
		warnings          []string
		status            *metav1.Status
	}{
		{"valid", reviewV1, goodCronTab, admissionv1.Create, true, nil, nil},
		{"invalid", reviewV1, badCronTab, admissionv1.Create, false, nil, direct(badCronTab).Status()},
		{"invalid-v1beta1", reviewV1beta1, badCronTab, admissionv1.Create, false, nil, direct(badCronTab).Status()},
		{"unknown-field", reviewV1, unknownCronTab, admissionv1.Create, true, direct(unknownCronTab).Warnings, nil},
		{"deprecated", reviewV1, betaCronTab, admissionv1.Create, true, crd.Version("v1beta1").CreateJSON([]byte(betaCronTab), crdkit.CreateOptions{}).Warnings, nil},
		{"other-kind", reviewV1, otherKind, admissionv1.Create, true, nil, nil},
		{"delete", reviewV1, badCronTab, admissionv1.Delete, true, nil, nil},
		{"connect-no-object", reviewV1, "", admissionv1.Connect, true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, rv := post(t, val, reviewBody(t, tc.review, tc.op, tc.obj, ""))
			if code != http.StatusOK {
				t.Fatalf("code = %d", code)
			}
			r := rv.Response
			if rv.APIVersion != tc.review || rv.Kind != "AdmissionReview" || r.UID != "u-1" {
				t.Errorf("answer = %s %s uid %s, want %s AdmissionReview u-1", rv.APIVersion, rv.Kind, r.UID, tc.review)
			}
			if r.Allowed != tc.allowed || !reflect.DeepEqual(r.Warnings, tc.warnings) {
				t.Errorf("Review(%s) = allowed %v warnings %q, want %v %q", tc.name, r.Allowed, r.Warnings, tc.allowed, tc.warnings)
			}
			if !reflect.DeepEqual(r.Result, tc.status) {
				t.Errorf("Review(%s).Result = %+v, want %+v", tc.name, r.Result, tc.status)
			}
			if len(tc.warnings) == 0 && tc.name == "unknown-field" {
				t.Errorf("no warnings expected from the direct create")
			}
		})
	}
}

func TestHooks(t *testing.T) {
	crd := loadCronTab(t)
	var seen []string
	var mu sync.Mutex
	policy := func(_ context.Context, r *Request) ([]string, error) {
		mu.Lock()
		seen = append(seen, r.Review.Name)
		mu.Unlock()
		img, _, _ := nestedString(r.Object, "spec", "image")
		switch {
		case img == "forbidden":
			return []string{"policy: image checked"}, errors.New("image forbidden is not allowed")
		case img == "conflict":
			return nil, apierrors.NewConflict(crdkitGR, "a", errors.New("busy"))
		}
		return []string{"policy: image checked"}, nil
	}
	val := NewValidator([]*crdkit.CRD{crd}, Options{Hooks: []Hook{policy}})
	obj := func(img string) string {
		return `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","image":"` + img + `"}}`
	}
	_, rv := post(t, val, reviewBody(t, reviewV1, admissionv1.Create, obj("ok"), ""))
	if !rv.Response.Allowed || !reflect.DeepEqual(rv.Response.Warnings, []string{"policy: image checked"}) {
		t.Errorf("hook allowed: %+v", rv.Response)
	}
	_, rv = post(t, val, reviewBody(t, reviewV1, admissionv1.Create, obj("forbidden"), ""))
	if r := rv.Response; r.Allowed || r.Result.Code != 403 || r.Result.Reason != metav1.StatusReasonForbidden || r.Result.Message != "image forbidden is not allowed" {
		t.Errorf("hook plain error: %+v %+v", r, r.Result)
	}
	_, rv = post(t, val, reviewBody(t, reviewV1, admissionv1.Create, obj("conflict"), ""))
	if r := rv.Response; r.Allowed || r.Result.Code != 409 || r.Result.Reason != metav1.StatusReasonConflict {
		t.Errorf("hook status error: %+v", r.Result)
	}
	n := len(seen)
	_, rv = post(t, val, reviewBody(t, reviewV1, admissionv1.Create, badCronTab, ""))
	if rv.Response.Allowed || rv.Response.Result.Code != 422 || len(seen) != n {
		t.Errorf("crdkit's refusal: allowed %v, hook ran %d times more", rv.Response.Allowed, len(seen)-n)
	}
}

var crdkitGR = runtimeschema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}

func nestedString(obj map[string]any, keys ...string) (string, bool, error) {
	var cur any = obj
	for _, k := range keys {
		m, _ := cur.(map[string]any)
		cur = m[k]
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// bundle is an object holding manifests at /spec/manifests.
func bundle(manifests ...string) string {
	return `{"apiVersion":"apps.example.com/v1","kind":"Bundle","metadata":{"name":"b","namespace":"default"},"spec":{"target":"edge","manifests":[` + strings.Join(manifests, ",") + `]}}`
}

func TestEmbeddedManifests(t *testing.T) {
	crd := loadCronTab(t)
	v1 := crd.Version("v1")
	opts := Options{Manifests: ListAt("/spec/manifests")}
	val := NewValidator([]*crdkit.CRD{crd}, opts)
	_, rv := post(t, val, reviewBody(t, reviewV1, admissionv1.Create, bundle(goodCronTab, otherKind, unknownCronTab, badCronTab), ""))
	want := v1.CreateJSON([]byte(badCronTab), crdkit.CreateOptions{})
	if r := rv.Response; r.Allowed || !reflect.DeepEqual(r.Result, want.Status()) {
		t.Errorf("bundle with a bad manifest: %+v, want %+v", r.Result, want.Status())
	}
	if r := rv.Response; !reflect.DeepEqual(r.Warnings, v1.CreateJSON([]byte(unknownCronTab), crdkit.CreateOptions{}).Warnings) {
		t.Errorf("bundle warnings = %q", r.Warnings)
	}
	_, rv = post(t, val, reviewBody(t, reviewV1, admissionv1.Create, bundle(goodCronTab), ""))
	if !rv.Response.Allowed {
		t.Errorf("bundle of a good manifest denied: %+v", rv.Response.Result)
	}
	_, rv = post(t, val, reviewBody(t, reviewV1, admissionv1.Create, `{"apiVersion":"apps.example.com/v1","kind":"Bundle","metadata":{"name":"b"}}`, ""))
	if !rv.Response.Allowed {
		t.Errorf("bundle without manifests denied")
	}

	mut := NewMutator([]*crdkit.CRD{crd}, opts)
	body := bundle(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *","extra":1}}`, otherKind, `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"c"},"spec":{"image":"i"}}`)
	_, rv = post(t, mut, reviewBody(t, reviewV1, admissionv1.Create, body, ""))
	wantPatch := `[{"op":"remove","path":"/spec/manifests/0/spec/extra"},{"op":"add","path":"/spec/manifests/0/spec/replicas","value":1},{"op":"add","path":"/spec/manifests/2/spec/replicas","value":1}]`
	if r := rv.Response; !r.Allowed || string(r.Patch) != wantPatch || r.PatchType == nil || *r.PatchType != admissionv1.PatchTypeJSONPatch {
		t.Errorf("Mutator patch = %s (allowed %v), want %s", r.Patch, r.Allowed, wantPatch)
	}
	checkPatch(t, []byte(body), rv.Response.Patch, func(obj map[string]any) {
		for i, m := range obj["spec"].(map[string]any)["manifests"].([]any) {
			raw, _ := json.Marshal(m)
			if res := v1.DecodeJSON(raw, crdkit.CreateOptions{}); res.Err == nil && m.(map[string]any)["kind"] == "CronTab" {
				if !reflect.DeepEqual(normalize(t, res.Object), normalize(t, m)) {
					t.Errorf("patched manifest %d = %v, want %v", i, m, res.Object)
				}
			}
		}
	})
}

func TestMutator(t *testing.T) {
	crd := loadCronTab(t)
	var hookSaw map[string]any
	mark := func(_ context.Context, r *Request) ([]string, error) {
		hookSaw = r.Object
		md := r.Object["metadata"].(map[string]any)
		md["labels"] = map[string]any{"checked/by": "crdkit"}
		return nil, nil
	}
	mut := NewMutator([]*crdkit.CRD{crd}, Options{Hooks: []Hook{mark}})
	for _, tc := range []struct {
		name, obj, patch string
		allowed          bool
	}{
		{"defaults", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}`,
			`[{"op":"add","path":"/metadata/labels","value":{"checked/by":"crdkit"}},{"op":"add","path":"/spec/replicas","value":1}]`, true},
		{"prunes", unknownCronTab, `[{"op":"add","path":"/metadata/labels","value":{"checked/by":"crdkit"}},{"op":"remove","path":"/spec/extra"},{"op":"add","path":"/spec/replicas","value":1}]`, true},
		{"other-kind", otherKind, `[{"op":"add","path":"/metadata/labels","value":{"checked/by":"crdkit"}}]`, true},
		{"escapes", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a","annotations":{"a/b~c":"1"}},"spec":{"replicas":null}}`,
			`[{"op":"add","path":"/metadata/labels","value":{"checked/by":"crdkit"}},{"op":"replace","path":"/spec/replicas","value":1}]`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, rv := post(t, mut, reviewBody(t, reviewV1beta1, admissionv1.Create, tc.obj, ""))
			r := rv.Response
			if r.Allowed != tc.allowed || string(r.Patch) != tc.patch {
				t.Errorf("Mutator(%s) = allowed %v patch %s, want %v %s", tc.name, r.Allowed, r.Patch, tc.allowed, tc.patch)
			}
			if rv.APIVersion != reviewV1beta1 {
				t.Errorf("answered in %s", rv.APIVersion)
			}
			checkPatch(t, []byte(tc.obj), r.Patch, func(got map[string]any) {
				if !reflect.DeepEqual(normalize(t, got), normalize(t, hookSaw)) {
					t.Errorf("patched = %v, want %v", got, hookSaw)
				}
			})
		})
	}
	// A manifest the decoder refuses (Strict, unknown field): the decoder's 400.
	strict := NewMutator([]*crdkit.CRD{crd}, Options{FieldValidation: crdkit.Strict})
	_, rv := post(t, strict, reviewBody(t, reviewV1, admissionv1.Create, unknownCronTab, ""))
	want := crd.Version("v1").DecodeJSON([]byte(unknownCronTab), crdkit.CreateOptions{FieldValidation: crdkit.Strict})
	if r := rv.Response; r.Allowed || !reflect.DeepEqual(r.Result, want.Status()) || want.Status().Code != 400 {
		t.Errorf("strict: %+v, want %+v", r.Result, want.Status())
	}
}

func TestHTTPRefusals(t *testing.T) {
	crd := loadCronTab(t)
	val := NewValidator([]*crdkit.CRD{crd}, Options{MaxBodyBytes: 4096})
	good := reviewBody(t, reviewV1, admissionv1.Create, goodCronTab, "")
	for _, tc := range []struct {
		name, method, ctype string
		body                []byte
		code                int
	}{
		{"get", http.MethodGet, "", nil, 405},
		{"put", http.MethodPut, "application/json", good, 405},
		{"too-large", http.MethodPost, "", append(good[:len(good)-1], []byte(`,"pad":"`+strings.Repeat("x", 5000)+`"}`)...), 413},
		{"not-json", http.MethodPost, "", []byte("not json"), 400},
		{"content-type", http.MethodPost, "text/plain", good, 400},
		{"wrong-kind", http.MethodPost, "", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"ConversionReview","request":{}}`), 400},
		{"wrong-version", http.MethodPost, "", []byte(`{"apiVersion":"admission.k8s.io/v2","kind":"AdmissionReview","request":{}}`), 400},
		{"no-request", http.MethodPost, "", []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview"}`), 400},
		{"ok", http.MethodPost, "application/json; charset=utf-8", good, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tc.method, "/", bytes.NewReader(tc.body))
			if tc.ctype != "" {
				req.Header.Set("Content-Type", tc.ctype)
			}
			val.ServeHTTP(rec, req)
			if rec.Code != tc.code {
				t.Errorf("ServeHTTP(%s) = %d %s, want %d", tc.name, rec.Code, rec.Body, tc.code)
			}
			if tc.code == 405 && rec.Header().Get("Allow") != "POST" {
				t.Errorf("405 without Allow: POST")
			}
		})
	}
	// An object that is not a JSON object is answered with a denial.
	_, rv := post(t, val, reviewBody(t, reviewV1, admissionv1.Create, `[1]`, ""))
	if rv.Response.Allowed || rv.Response.Result.Code != 400 {
		t.Errorf("array object: %+v", rv.Response)
	}
}

// TestConcurrent sends the same reviews from 8 goroutines (run with -race)
// and checks every answer is the one a single request gets.
func TestConcurrent(t *testing.T) {
	crd := loadCronTab(t)
	hs := []http.Handler{NewValidator([]*crdkit.CRD{crd}, Options{}), NewMutator([]*crdkit.CRD{crd}, Options{})}
	bodies := [][]byte{}
	for _, o := range []string{goodCronTab, badCronTab, unknownCronTab, betaCronTab} {
		bodies = append(bodies, reviewBody(t, reviewV1, admissionv1.Create, o, ""))
	}
	withRV := strings.Replace(goodCronTab, `"name":"a"`, `"name":"a","namespace":"default","resourceVersion":"3"`, 1)
	bodies = append(bodies, reviewBody(t, reviewV1, admissionv1.Update, strings.Replace(withRV, `"replicas":2`, `"replicas":3`, 1), withRV))
	want := map[string]string{}
	answer := func(h int, b []byte) string {
		rec := httptest.NewRecorder()
		hs[h].ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(b)))
		return rec.Body.String()
	}
	for h := range hs {
		for i, b := range bodies {
			want[fmt.Sprint(h, i)] = answer(h, b)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				h, i := n%2, (n+g)%len(bodies)
				if got := answer(h, bodies[i]); got != want[fmt.Sprint(h, i)] {
					t.Errorf("concurrent answer %d/%d = %s, want %s", h, i, got, want[fmt.Sprint(h, i)])
					return
				}
			}
		}()
	}
	wg.Wait()
}

// checkPatch applies patch to doc with applyPatch and calls check with the
// result (nothing to apply for an empty patch).
func checkPatch(t testing.TB, doc, patch []byte, check func(map[string]any)) {
	t.Helper()
	var obj any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(doc, &obj); err != nil {
		t.Fatal(err)
	}
	if len(patch) > 0 {
		var err error
		if obj, err = applyPatch(obj, patch); err != nil {
			t.Fatalf("applying %s: %v", patch, err)
		}
	}
	m, _ := obj.(map[string]any)
	check(m)
}

// applyPatch is a reference RFC 6902 applier for add, remove and replace.
func applyPatch(doc any, patch []byte) (any, error) {
	var ops []struct {
		Op    string           `json:"op"`
		Path  string           `json:"path"`
		Value *json.RawMessage `json:"value"`
	}
	if err := json.Unmarshal(patch, &ops); err != nil {
		return nil, err
	}
	for _, o := range ops {
		var val any
		if o.Op != "remove" {
			if o.Value == nil {
				return nil, fmt.Errorf("%s %s without a value", o.Op, o.Path)
			}
			if err := kjson.UnmarshalCaseSensitivePreserveInts(*o.Value, &val); err != nil {
				return nil, err
			}
		}
		if o.Path == "" {
			if o.Op != "replace" {
				return nil, fmt.Errorf("%s at the root", o.Op)
			}
			doc = val
			continue
		}
		toks := strings.Split(o.Path, "/")[1:]
		for i := range toks {
			toks[i] = strings.ReplaceAll(strings.ReplaceAll(toks[i], "~1", "/"), "~0", "~")
		}
		parent := doc
		for _, tok := range toks[:len(toks)-1] {
			switch p := parent.(type) {
			case map[string]any:
				var ok bool
				if parent, ok = p[tok]; !ok {
					return nil, fmt.Errorf("%s: no %q", o.Path, tok)
				}
			case []any:
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(p) {
					return nil, fmt.Errorf("%s: bad index %q", o.Path, tok)
				}
				parent = p[i]
			default:
				return nil, fmt.Errorf("%s: not a container", o.Path)
			}
		}
		last := toks[len(toks)-1]
		switch p := parent.(type) {
		case map[string]any:
			_, exists := p[last]
			switch {
			case o.Op == "add":
				p[last] = val
			case !exists:
				return nil, fmt.Errorf("%s %s: no such member", o.Op, o.Path)
			case o.Op == "remove":
				delete(p, last)
			case o.Op == "replace":
				p[last] = val
			default:
				return nil, fmt.Errorf("op %q", o.Op)
			}
		case []any:
			i, err := strconv.Atoi(last)
			if err != nil || i < 0 || i >= len(p) || o.Op != "replace" {
				return nil, fmt.Errorf("%s %s on a list", o.Op, o.Path)
			}
			p[i] = val
		default:
			return nil, fmt.Errorf("%s: parent not a container", o.Path)
		}
	}
	return doc, nil
}

// normalize re-encodes a value so that int64 and float64 spellings of a
// number compare equal.
func normalize(t testing.TB, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
