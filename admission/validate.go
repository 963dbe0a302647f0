package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/crdkit/crdkit"
)

// Validator is a validating admission webhook (an http.Handler) that
// answers for the objects of the CRDs it was given as the API server would
// answer a dry-run create of them (or update, see Review): the server's Status (code, reason,
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
// given CRD is checked as a dry-run create of it, or, on UPDATE, as a
// dry-run update of its old counterpart when it has one: the old object
// itself for the reviewed object (a PUT, or a PUT to /status for the
// status subresource; other subresources are not checked), the manifest of
// the same group, kind, namespace and name in the old object for a
// manifest inside it. The first manifest refused denies the request with
// its Status, as is; warnings are those of every manifest, in order. Then
// the hooks run.
//
// An embedded manifest is no stored object: for its update, a manifest
// without metadata.resourceVersion takes its counterpart's, and a
// counterpart without one gets "1", so that the update is checked as the
// target cluster checks a PUT of the manifest over the live object.
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
	var oldManifests map[identity]map[string]any
	if req.Operation == admissionv1.Update && old != nil && v.h.opts.Manifests != nil {
		oldManifests = v.h.manifestsByIdentity(old)
	}
	for _, t := range targets {
		var res crdkit.Result
		uopts := crdkit.UpdateOptions{FieldValidation: v.h.opts.FieldValidation, ManagedFields: crdkit.ManagedFields{Omit: true}}
		switch {
		case req.Operation == admissionv1.Update && t.pointer == "" && old != nil:
			switch req.SubResource {
			case "":
				res = t.v.UpdateJSON(t.raw, old, uopts)
			case "status":
				res = t.v.UpdateStatusJSON(t.raw, old, uopts)
			default:
				continue // scale and other subresources: not the object's schema
			}
		case oldManifests[identityOf(t.obj, t.v)] != nil:
			raw, live, err := forUpdate(t.raw, oldManifests[identityOf(t.obj, t.v)], t.v.CRD().Namespaced())
			if err != nil {
				return badRequest(resp, "decoding the object: "+err.Error())
			}
			res = t.v.UpdateJSON(raw, live, uopts)
		default:
			res = t.v.CreateJSON(t.raw, crdkit.CreateOptions{FieldValidation: v.h.opts.FieldValidation, Namespace: t.ns, ManagedFields: crdkit.ManagedFields{Omit: true}})
		}
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

// identity is what pairs an embedded manifest with its old counterpart.
type identity struct {
	group, kind, namespace, name string
}

// identityOf is obj's identity as an object of v's CRD (namespace
// "default" when a namespaced object names none).
func identityOf(obj map[string]any, v *crdkit.Version) identity {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	if !v.CRD().Namespaced() {
		ns = ""
	} else if ns == "" {
		ns = "default"
	}
	return identity{v.CRD().Group(), v.CRD().Kind(), ns, name}
}

// manifestsByIdentity finds the manifests of the old object, by identity.
func (h *handler) manifestsByIdentity(old map[string]any) map[identity]map[string]any {
	out := map[identity]map[string]any{}
	for _, p := range h.opts.Manifests(old) {
		if p == "" {
			continue
		}
		m, _ := lookup(old, p).(map[string]any)
		if m == nil {
			continue
		}
		if v := h.version(m); v != nil {
			if id := identityOf(m, v); id.name != "" {
				if _, dup := out[id]; !dup {
					out[id] = m
				}
			}
		}
	}
	return out
}

// forUpdate prepares an embedded manifest's update of its counterpart:
// the resourceVersions described at Review, and the counterpart's
// namespace when it names none.
func forUpdate(raw []byte, counterpart map[string]any, namespaced bool) ([]byte, map[string]any, error) {
	live := deepCopy(counterpart).(map[string]any)
	lmd, _ := live["metadata"].(map[string]any)
	if lmd == nil {
		lmd = map[string]any{}
		live["metadata"] = lmd
	}
	if rv, _ := lmd["resourceVersion"].(string); rv == "" {
		lmd["resourceVersion"] = "1"
	}
	if ns, _ := lmd["namespace"].(string); ns == "" && namespaced {
		lmd["namespace"] = "default"
	}
	var obj map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&obj); err != nil {
		return nil, nil, err
	}
	md, _ := obj["metadata"].(map[string]any)
	if md != nil {
		if _, has := md["resourceVersion"]; !has {
			md["resourceVersion"] = lmd["resourceVersion"]
		}
	}
	out, err := json.Marshal(obj)
	return out, live, err
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}
