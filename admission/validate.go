package admission

import (
	"context"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/crdkit/crdkit"
)

// Validator is a validating admission webhook (an http.Handler) that
// answers for the objects of the CRDs it was given as the API server would
// answer a dry-run create of them: the server's Status (code, reason,
// message, causes) when it would refuse one, its Warning headers otherwise.
// It is safe for concurrent use.
type Validator struct {
	h handler
}

// NewValidator returns a Validator for the served versions of crds.
func NewValidator(crds []*crdkit.CRD, opts Options) *Validator {
	return &Validator{h: newHandler(crds, opts)}
}

// ServeHTTP answers one AdmissionReview (v1 or v1beta1, in the same
// version): 405 for a method other than POST, 413 for a body over
// Options.MaxBodyBytes, 400 for a body that is not an AdmissionReview.
func (v *Validator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	v.h.serve(w, r, v.Review)
}

// Review answers one admission request. CREATE and UPDATE are checked,
// other operations allowed. Each manifest (see Options.Manifests) of a
// given CRD is checked as a dry-run create of it; the first one refused
// denies the request with its Status, as is; warnings are those of every
// manifest, in order. Then the hooks run.
func (v *Validator) Review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return resp
	}
	obj, err := decodeObject(req.Object.Raw)
	if err != nil {
		return badRequest(resp, "decoding the object: "+err.Error())
	}
	if obj == nil {
		return resp
	}
	old, err := decodeObject(req.OldObject.Raw)
	if err != nil {
		return badRequest(resp, "decoding the old object: "+err.Error())
	}
	targets, err := v.h.targets(req, req.Object.Raw, obj)
	if err != nil {
		return badRequest(resp, "decoding the object: "+err.Error())
	}
	hr := &Request{Review: req, Object: obj, OldObject: old}
	for _, t := range targets {
		res := t.v.CreateJSON(t.raw, crdkit.CreateOptions{FieldValidation: v.h.opts.FieldValidation, Namespace: t.ns})
		resp.Warnings = append(resp.Warnings, res.Warnings...)
		hr.Manifests = append(hr.Manifests, Manifest{Pointer: t.pointer, Version: t.v, Result: res})
		if st := res.Status(); st != nil {
			deny(resp, st)
			return resp
		}
	}
	v.h.runHooks(ctx, hr, resp)
	return resp
}
