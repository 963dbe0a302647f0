package admission

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/generate"
)

// FuzzServeHTTP sends reviews of fuzzed objects (the object itself, or
// inside a bundle's manifest list) to both handlers. Every answer is a
// review (200) or a 400 for a body that does not decode; the validator's
// verdict for the object itself is the direct create's; the mutator's
// patch, applied with a reference applier, gives the decoded manifests.
func FuzzServeHTTP(f *testing.F) {
	crd := loadCronTab(f)
	v1 := crd.Version("v1")
	g, err := generate.ForVersion(v1, generate.Options{Cases: 60})
	if err != nil {
		f.Fatal(err)
	}
	for i, c := range g.Cases() {
		f.Add(c.Raw, false, false, i%3 == 0)
	}
	f.Add([]byte(goodCronTab), true, true, false)
	f.Add([]byte(unknownCronTab), true, false, true)
	f.Add([]byte(betaCronTab), false, true, true)
	val := NewValidator([]*crdkit.CRD{crd}, Options{})
	mut := NewMutator([]*crdkit.CRD{crd}, Options{})
	valEmb := NewValidator([]*crdkit.CRD{crd}, Options{Manifests: ListAt("/spec/manifests")})
	mutEmb := NewMutator([]*crdkit.CRD{crd}, Options{Manifests: ListAt("/spec/manifests")})
	old := []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"case-1","namespace":"default","resourceVersion":"7","uid":"u"},"spec":{"cronSpec":"* * * * *","replicas":2}}`)
	// update sends obj as an UPDATE over old (for embedded: old's manifest
	// as the counterpart of same-named manifests).
	f.Fuzz(func(t *testing.T, obj []byte, embedded, beta, update bool) {
		rv := reviewV1
		if beta {
			rv = reviewV1beta1
		}
		object := obj
		vh, mh := http.Handler(val), http.Handler(mut)
		if embedded {
			object = []byte(bundle(string(obj), otherKind))
			vh, mh = valEmb, mutEmb
		}
		op, oldObject := "CREATE", []byte(nil)
		if update {
			op, oldObject = "UPDATE", old
			if embedded {
				oldObject = []byte(bundle(string(old)))
			}
		}
		body := []byte(`{"apiVersion":"` + rv + `","kind":"AdmissionReview","request":{"uid":"u-1","operation":"` + op + `","namespace":"default","object":`)
		body = append(body, object...)
		if oldObject != nil {
			body = append(append(body, `,"oldObject":`...), oldObject...)
		}
		body = append(body, "}}"...)
		var answers [2]review
		for i, h := range []http.Handler{vh, mh} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", bytes.NewReader(body)))
			switch rec.Code {
			case 400:
				return // the body does not decode
			case 200:
			default:
				t.Fatalf("ServeHTTP = %d %s", rec.Code, rec.Body)
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &answers[i]); err != nil || answers[i].Response == nil || answers[i].APIVersion != rv {
				t.Fatalf("answer %s: %v", rec.Body, err)
			}
			if r := answers[i].Response; r.Allowed != (r.Result == nil) || r.UID != "u-1" {
				t.Fatalf("answer %s: allowed and result disagree", rec.Body)
			}
		}
		var req review
		if err := json.Unmarshal(body, &req); err != nil {
			t.Fatal(err)
		}
		raw := req.Request.Object.Raw
		if !embedded {
			if m, err := decodeObject(raw); err == nil && m != nil && val.h.version(m) == v1 {
				direct := v1.CreateJSON(raw, crdkit.CreateOptions{Namespace: "default"})
				if update {
					live, _ := decodeObject(old)
					direct = v1.UpdateJSON(raw, live, crdkit.UpdateOptions{})
				}
				if got := answers[0].Response.Result; !reflect.DeepEqual(got, direct.Status()) {
					t.Fatalf("validator Result = %+v, direct create %+v", got, direct.Status())
				}
			}
		}
		r := answers[1].Response
		if !r.Allowed {
			return
		}
		checkPatch(t, raw, r.Patch, func(got map[string]any) {
			want, _ := decodeObject(raw)
			targets, err := mutEmb.h.targets(req.Request, raw, want)
			if !embedded {
				targets, err = mut.h.targets(req.Request, raw, want)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, tg := range targets {
				res := tg.v.DecodeJSON(tg.raw, crdkit.CreateOptions{})
				if tg.pointer == "" {
					want = res.Object
				} else {
					replace(want, tg.pointer, res.Object)
				}
			}
			if !reflect.DeepEqual(normalize(t, got), normalize(t, want)) {
				t.Fatalf("patched = %v\nwant %v\npatch %s", got, want, r.Patch)
			}
		})
	})
}
