package definition

import (
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	kjson "sigs.k8s.io/json"
)

// fuzzCRD decodes a fuzzed CRD document into the internal form, or nil.
func fuzzCRD(js []byte) *apiextensions.CustomResourceDefinition {
	v1 := new(apiextensionsv1.CustomResourceDefinition)
	if _, err := kjson.UnmarshalStrict(js, v1); err != nil {
		return nil
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	out := new(apiextensions.CustomResourceDefinition)
	if apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, out, nil) != nil {
		return nil
	}
	return out
}

const fuzzLive = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"self.size >= 0"}],"properties":{"size":{"type":"integer","default":1},"tags":{"type":"array","maxItems":10,"x-kubernetes-list-type":"set","items":{"type":"string","maxLength":10}}}}}}}}]},"status":{"storedVersions":["v1"],"conditions":[{"type":"Established","status":"True"}]}}`

// FuzzValidateUpdate runs the update path (PrepareForUpdate, ValidateUpdate,
// WarningsOnUpdate) on any pair of CRD documents: no panic, no more
// than 20 s, and the live CRD left as it was.
func FuzzValidateUpdate(f *testing.F) {
	f.Add([]byte(fuzzLive), []byte(fuzzLive))
	f.Add([]byte(fuzzLive[:len(fuzzLive)-1]+`,"spec":{"scope":"Cluster"}}`), []byte(fuzzLive))
	f.Add([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.example.com"},"spec":{"group":"example.com","scope":"Namespaced","names":{"plural":"widgets","kind":"Widget"},"versions":[{"name":"v2","served":true,"storage":true,"selectableFields":[{"jsonPath":".spec.x"}],"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object","properties":{"x":{"type":"string","format":"foo"},"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["k"],"items":{"type":"object","properties":{"k":{"type":"string"}}}}}}}}}}],"conversion":{"strategy":"Webhook","webhook":{"conversionReviewVersions":["v1"],"clientConfig":{"url":"https://x","caBundle":"eA=="}}}}}`), []byte(fuzzLive))
	f.Fuzz(func(t *testing.T, newJS, oldJS []byte) {
		if len(newJS) > 1<<14 || len(oldJS) > 1<<14 {
			return
		}
		crd, old := fuzzCRD(newJS), fuzzCRD(oldJS)
		if crd == nil || old == nil {
			return
		}
		PrepareForUpdate(crd, old)
		before, oldBefore := crd.DeepCopy(), old.DeepCopy()
		done := make(chan field.ErrorList, 1)
		go func() {
			errs := ValidateUpdate(crd, old)
			if len(errs) == 0 {
				WarningsOnUpdate(crd, old)
			}
			done <- errs
		}()
		var errs field.ErrorList
		select {
		case errs = <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("ValidateUpdate takes more than 20s on\n%s\n%s", newJS, oldJS)
		}
		for _, e := range errs {
			_ = e.Error()
		}
		_ = before // crd's defaults may be coerced in place, as the server does
		if !apiequalityDeepEqual(oldBefore, old) {
			t.Fatalf("ValidateUpdate modified the live CRD")
		}
	})
}

func apiequalityDeepEqual(a, b *apiextensions.CustomResourceDefinition) bool {
	return apiequality.Semantic.DeepEqual(a, b)
}
