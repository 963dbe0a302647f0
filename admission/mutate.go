package admission

import (
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"

	"github.com/crdkit/crdkit"
)

// Mutator is a mutating admission webhook (an http.Handler) that answers
// for the objects of the CRDs it was given with the RFC 6902 JSON patch
// that turns each into the object the API server's decoder makes of it:
// unknown fields pruned, non-nullable nulls dropped, embedded resources
// coerced, defaults applied (see crdkit's Version.DecodeJSON). It is safe
// for concurrent use.
type Mutator struct {
	h handler
}

// NewMutator returns a Mutator for the served versions of crds.
func NewMutator(crds []*crdkit.CRD, opts Options) *Mutator {
	return &Mutator{h: newHandler(crds, opts)}
}

// ServeHTTP answers one AdmissionReview, as Validator.ServeHTTP does.
func (m *Mutator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	m.h.serve(w, r, m.Review)
}

// Review answers one admission request. For CREATE and UPDATE, each
// manifest of a given CRD is decoded as the server decodes it and put in
// place of the original; a manifest the server's decoder refuses denies
// the request with its Status (a 400). Then the hooks run, and the answer
// carries the patch from the reviewed object to the result, when there is
// a change, and the decoder's warnings (unknown fields in Warn mode).
func (m *Mutator) Review(ctx context.Context, req *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse {
	resp := &admissionv1.AdmissionResponse{UID: req.UID, Allowed: true}
	if req.Operation != admissionv1.Create && req.Operation != admissionv1.Update {
		return resp
	}
	orig, err := decodeObject(req.Object.Raw)
	if err != nil {
		return badRequest(resp, "decoding the object: "+err.Error())
	}
	if orig == nil {
		return resp
	}
	old, err := decodeObject(req.OldObject.Raw)
	if err != nil {
		return badRequest(resp, "decoding the old object: "+err.Error())
	}
	targets, err := m.h.targets(req, req.Object.Raw, orig)
	if err != nil {
		return badRequest(resp, "decoding the object: "+err.Error())
	}
	obj, _ := decodeObject(req.Object.Raw) // a second copy, to change
	hr := &Request{Review: req, Object: obj, OldObject: old}
	for _, t := range targets {
		res := t.v.DecodeJSON(t.raw, crdkit.CreateOptions{FieldValidation: m.h.opts.FieldValidation})
		resp.Warnings = append(resp.Warnings, res.Warnings...)
		hr.Manifests = append(hr.Manifests, Manifest{Pointer: t.pointer, Version: t.v, Result: res})
		if st := res.Status(); st != nil {
			deny(resp, st)
			return resp
		}
		if t.pointer == "" {
			hr.Object = res.Object
		} else {
			replace(hr.Object, t.pointer, res.Object)
		}
	}
	if !m.h.runHooks(ctx, hr, resp) {
		return resp
	}
	ops := diff(nil, "", orig, hr.Object)
	if len(ops) == 0 {
		return resp
	}
	patch, err := json.Marshal(ops)
	if err != nil {
		return badRequest(resp, "encoding the patch: "+err.Error())
	}
	pt := admissionv1.PatchTypeJSONPatch
	resp.Patch, resp.PatchType = patch, &pt
	return resp
}

// op is one RFC 6902 operation.
type op struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// MarshalJSON writes value for add and replace even when it is null.
func (o op) MarshalJSON() ([]byte, error) {
	if o.Op == "remove" {
		return json.Marshal(struct {
			Op   string `json:"op"`
			Path string `json:"path"`
		}{o.Op, o.Path})
	}
	return json.Marshal(struct {
		Op    string `json:"op"`
		Path  string `json:"path"`
		Value any    `json:"value"`
	}{o.Op, o.Path, o.Value})
}

// diff appends the operations that turn a into b at path: maps key by key
// (removals, changes, then additions, each in key order), lists of the same
// length element by element, anything else replaced whole.
func diff(ops []op, path string, a, b any) []op {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			break
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			if _, ok := y[k]; !ok {
				ops = append(ops, op{Op: "remove", Path: path + "/" + escape(k)})
			}
		}
		for _, k := range keys {
			if yv, ok := y[k]; ok {
				ops = diff(ops, path+"/"+escape(k), x[k], yv)
			}
		}
		added := make([]string, 0)
		for k := range y {
			if _, ok := x[k]; !ok {
				added = append(added, k)
			}
		}
		slices.Sort(added)
		for _, k := range added {
			ops = append(ops, op{Op: "add", Path: path + "/" + escape(k), Value: y[k]})
		}
		return ops
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			break
		}
		for i := range x {
			ops = diff(ops, path+"/"+strconv.Itoa(i), x[i], y[i])
		}
		return ops
	}
	if equal(a, b) {
		return ops
	}
	return append(ops, op{Op: "replace", Path: path, Value: b})
}

// equal compares two scalars (or mismatched values) as JSON does: numbers
// by their encoding, so that int64 1 and float64 1 are equal.
func equal(a, b any) bool {
	if reflect.DeepEqual(a, b) {
		return true
	}
	switch a.(type) {
	case int64, float64:
		switch b.(type) {
		case int64, float64:
			x, err1 := json.Marshal(a)
			y, err2 := json.Marshal(b)
			return err1 == nil && err2 == nil && string(x) == string(y)
		}
	}
	return false
}

func escape(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}
