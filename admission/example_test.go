package admission_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/admission"
)

func Example() {
	data, err := os.ReadFile("../examples/crontab/crd.yaml")
	if err != nil {
		panic(err)
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		panic(err)
	}
	// Bundles hold CronTab manifests for another cluster under spec.manifests.
	noLatest := func(_ context.Context, r *admission.Request) ([]string, error) {
		for _, m := range r.Manifests {
			spec, _ := m.Result.Object["spec"].(map[string]any)
			if img, _ := spec["image"].(string); strings.HasSuffix(img, ":latest") {
				return nil, fmt.Errorf("%s: image %s: pin a version", m.Pointer, img)
			}
		}
		return nil, nil
	}
	opts := admission.Options{Manifests: admission.ListAt("/spec/manifests"), Hooks: []admission.Hook{noLatest}}
	mux := http.NewServeMux()
	mux.Handle("/validate", admission.NewValidator([]*crdkit.CRD{crd}, opts))
	mux.Handle("/mutate", admission.NewMutator([]*crdkit.CRD{crd}, opts))

	review := func(manifest string) []byte {
		return []byte(`{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","operation":"CREATE",
"object":{"apiVersion":"example.com/v1","kind":"Bundle","metadata":{"name":"b"},"spec":{"manifests":[` + manifest + `]}}}}`)
	}
	for _, tc := range []struct{ path, manifest string }{
		{"/mutate", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"cronSpec":"* * * * *"}}`},
		{"/validate", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"replicas":20}}`},
		{"/validate", `{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"a"},"spec":{"image":"backup:latest"}}`},
	} {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, tc.path, bytes.NewReader(review(tc.manifest))))
		var answer admissionv1.AdmissionReview
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			panic(err)
		}
		if r := answer.Response; r.Allowed {
			fmt.Printf("%s: allowed, patch %s\n", tc.path, r.Patch)
		} else {
			fmt.Printf("%s: denied, %d %s\n", tc.path, r.Result.Code, r.Result.Message)
		}
	}
	// Output:
	// /mutate: allowed, patch [{"op":"add","path":"/spec/manifests/0/spec/replicas","value":1}]
	// /validate: denied, 422 CronTab.stable.example.com "a" is invalid: spec.replicas: Invalid value: 20: spec.replicas in body should be less than or equal to 10
	// /validate: denied, 403 /spec/manifests/0: image backup:latest: pin a version
}
