// Package webhook is the admission webhook of the admission-webhook
// example: crdkit's validating and mutating handlers for a set of CRDs,
// checking either the reviewed object itself or, for objects that carry
// manifests for another cluster under spec.manifests, each manifest, with a
// policy hook after crdkit's checks.
package webhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/admission"
)

// FrozenAnnotation marks a manifest the policy refuses to let through.
const FrozenAnnotation = "policy.example.com/frozen"

// Manifests finds what to check: each element of spec.manifests when the
// object has that list, else the object itself.
func Manifests(obj map[string]any) []string {
	if spec, _ := obj["spec"].(map[string]any); spec != nil {
		if _, ok := spec["manifests"].([]any); ok {
			return admission.ListAt("/spec/manifests")(obj)
		}
	}
	return []string{""}
}

// Policy is the example's own check, run after crdkit's: a manifest
// annotated policy.example.com/frozen: "true" may not be created or
// changed.
func Policy(_ context.Context, r *admission.Request) ([]string, error) {
	for _, m := range r.Manifests {
		md, _ := m.Result.Object["metadata"].(map[string]any)
		ann, _ := md["annotations"].(map[string]any)
		if ann[FrozenAnnotation] == "true" {
			return nil, fmt.Errorf("manifest %q is frozen (%s)", m.Pointer, FrozenAnnotation)
		}
	}
	return nil, nil
}

// New serves /validate and /mutate for crds.
func New(crds []*crdkit.CRD) http.Handler {
	opts := admission.Options{Manifests: Manifests, Hooks: []admission.Hook{Policy}}
	mux := http.NewServeMux()
	mux.Handle("/validate", admission.NewValidator(crds, opts))
	mux.Handle("/mutate", admission.NewMutator(crds, admission.Options{Manifests: Manifests}))
	return mux
}
