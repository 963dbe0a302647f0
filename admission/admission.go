package admission

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	runtimeschema "k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit"
)

// DefaultMaxBodyBytes bounds a request body when Options.MaxBodyBytes is
// zero: room for an object and its old object at the API server's 3 MiB
// request limit, and the review around them.
const DefaultMaxBodyBytes = 7 << 20

// The review versions a handler reads and answers in.
const (
	reviewV1      = "admission.k8s.io/v1"
	reviewV1beta1 = "admission.k8s.io/v1beta1"
)

// Options configure a handler. The zero value checks the reviewed object
// itself, with field validation Warn, and no hooks.
type Options struct {
	// Manifests lists where, in a reviewed object (decoded: the value model
	// of encoding/json with integers as int64), the objects to check are:
	// RFC 6901 JSON pointers, "" for the object itself. Objects whose
	// apiVersion and kind no given CRD serves are not checked. nil checks
	// the reviewed object itself; see ListAt.
	Manifests func(obj map[string]any) []string
	// FieldValidation is the mode unknown and duplicate fields are checked
	// in (empty: Warn, the server's default).
	FieldValidation crdkit.FieldValidation
	// Hooks run after crdkit's checks, in order, when crdkit allowed the
	// request; the first error denies it.
	Hooks []Hook
	// MaxBodyBytes bounds the request body (0: DefaultMaxBodyBytes); a
	// larger body is refused with 413.
	MaxBodyBytes int64
}

// Hook is a check of the user's own. It may add warnings; an error denies
// the request: an error carrying a Status (apierrors.APIStatus) is answered
// with that Status, any other with a 403 Forbidden whose message is the
// error's text. A mutating handler's hook may change req.Object: the patch
// includes its changes.
type Hook func(ctx context.Context, req *Request) (warnings []string, err error)

// Request is what a hook sees.
type Request struct {
	// Review is the request, in its v1 form (a v1beta1 request has the same
	// fields).
	Review *admissionv1.AdmissionRequest
	// Object is the reviewed object, decoded; for a mutating handler, with
	// crdkit's changes already in place. OldObject is the old object of an
	// update, nil otherwise.
	Object    map[string]any
	OldObject map[string]any
	// Manifests are the objects crdkit checked, in order.
	Manifests []Manifest
}

// Manifest is one object crdkit checked inside a reviewed object.
type Manifest struct {
	// Pointer is its RFC 6901 JSON pointer in the reviewed object, "" for
	// the object itself.
	Pointer string
	Version *crdkit.Version
	// Result is crdkit's answer: the dry-run create (or update) for a
	// validating handler, the decoded object for a mutating one.
	Result crdkit.Result
}

// ListAt returns a Manifests function for objects that hold manifests in a
// list at pointer (for example "/spec/manifests"): each element of the list
// is a manifest. An object without the list has none.
func ListAt(pointer string) func(obj map[string]any) []string {
	return func(obj map[string]any) []string {
		l, _ := lookup(obj, pointer).([]any)
		out := make([]string, len(l))
		for i := range l {
			out[i] = pointer + "/" + strconv.Itoa(i)
		}
		return out
	}
}

// handler is what the validating and mutating handlers share: the CRDs by
// the group, version and kind they serve, the options, and the HTTP side.
type handler struct {
	versions map[runtimeschema.GroupVersionKind]*crdkit.Version
	opts     Options
}

func newHandler(crds []*crdkit.CRD, opts Options) handler {
	h := handler{versions: map[runtimeschema.GroupVersionKind]*crdkit.Version{}, opts: opts}
	for _, c := range crds {
		for _, v := range c.Versions() {
			if v.Served() {
				h.versions[runtimeschema.GroupVersionKind{Group: c.Group(), Version: v.Name(), Kind: c.Kind()}] = v
			}
		}
	}
	if h.opts.MaxBodyBytes <= 0 {
		h.opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if h.opts.FieldValidation == "" {
		h.opts.FieldValidation = crdkit.Warn
	}
	return h
}

// review is a decoded AdmissionReview request.
type review struct {
	APIVersion string                         `json:"apiVersion"`
	Kind       string                         `json:"kind"`
	Request    *admissionv1.AdmissionRequest  `json:"request,omitempty"`
	Response   *admissionv1.AdmissionResponse `json:"response,omitempty"`
}

// serve is the HTTP side of both handlers: POST only (405), a JSON body
// (400 otherwise) of at most MaxBodyBytes (413), an AdmissionReview v1 or
// v1beta1 with a request (400 otherwise); the answer is the review with
// answer's response, in the request's review version.
func (h *handler) serve(w http.ResponseWriter, r *http.Request, answer func(context.Context, *admissionv1.AdmissionRequest) *admissionv1.AdmissionResponse) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "only POST is served", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" {
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			http.Error(w, fmt.Sprintf("Content-Type %q is not application/json", ct), http.StatusBadRequest)
			return
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			http.Error(w, fmt.Sprintf("request body is larger than %d bytes", h.opts.MaxBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "reading the request body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var rv review
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &rv); err != nil {
		http.Error(w, "the body is not an AdmissionReview: "+err.Error(), http.StatusBadRequest)
		return
	}
	if (rv.APIVersion != reviewV1 && rv.APIVersion != reviewV1beta1) || rv.Kind != "AdmissionReview" {
		http.Error(w, fmt.Sprintf("the body is %s %q, not an AdmissionReview of %s or %s", rv.Kind, rv.APIVersion, reviewV1, reviewV1beta1), http.StatusBadRequest)
		return
	}
	if rv.Request == nil {
		http.Error(w, "the AdmissionReview has no request", http.StatusBadRequest)
		return
	}
	resp := answer(r.Context(), rv.Request)
	resp.UID = rv.Request.UID
	out, err := json.Marshal(review{APIVersion: rv.APIVersion, Kind: "AdmissionReview", Response: resp})
	if err != nil {
		http.Error(w, "encoding the answer: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(out)
}

// target is one manifest to check: where it is, its bytes and its version.
type target struct {
	pointer string
	obj     map[string]any // decoded
	raw     []byte
	v       *crdkit.Version
	ns      string // the request's namespace, for the reviewed object itself
}

// targets finds the manifests of a reviewed object that a given CRD serves.
// obj is the object decoded; raw its bytes.
func (h *handler) targets(req *admissionv1.AdmissionRequest, raw []byte, obj map[string]any) ([]target, error) {
	pointers := []string{""}
	if h.opts.Manifests != nil {
		pointers = h.opts.Manifests(obj)
	}
	var tree any // the object with numbers as written, for manifests inside it
	var out []target
	for _, p := range pointers {
		m, _ := lookup(obj, p).(map[string]any)
		if m == nil {
			continue
		}
		v := h.version(m)
		if v == nil {
			continue
		}
		t := target{pointer: p, obj: m, v: v}
		if p == "" {
			t.raw, t.ns = raw, req.Namespace
		} else {
			if tree == nil {
				d := json.NewDecoder(bytes.NewReader(raw))
				d.UseNumber()
				if err := d.Decode(&tree); err != nil {
					return nil, err
				}
			}
			b, err := json.Marshal(lookup(tree, p))
			if err != nil {
				return nil, err
			}
			t.raw = b
		}
		out = append(out, t)
	}
	return out, nil
}

// version is the version serving obj's apiVersion and kind, or nil.
func (h *handler) version(obj map[string]any) *crdkit.Version {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	gv, err := runtimeschema.ParseGroupVersion(av)
	if err != nil {
		return nil
	}
	return h.versions[gv.WithKind(kind)]
}

// runHooks runs the hooks on req, adding their warnings to resp; the first
// error denies.
func (h *handler) runHooks(ctx context.Context, req *Request, resp *admissionv1.AdmissionResponse) bool {
	for _, hook := range h.opts.Hooks {
		warnings, err := hook(ctx, req)
		resp.Warnings = append(resp.Warnings, warnings...)
		if err != nil {
			deny(resp, statusOf(err))
			return false
		}
	}
	return true
}

// statusOf is the Status a hook's error is answered with.
func statusOf(err error) *metav1.Status {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		s := st.Status()
		return &s
	}
	return &metav1.Status{Status: metav1.StatusFailure, Code: http.StatusForbidden, Reason: metav1.StatusReasonForbidden, Message: err.Error()}
}

func deny(resp *admissionv1.AdmissionResponse, st *metav1.Status) {
	resp.Allowed = false
	resp.Result = st
}

// badRequest denies with a 400 whose message is msg.
func badRequest(resp *admissionv1.AdmissionResponse, msg string) *admissionv1.AdmissionResponse {
	st := apierrors.NewBadRequest(msg).Status()
	deny(resp, &st)
	return resp
}

// decodeObject decodes a reviewed object (nil for none).
func decodeObject(raw []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil, nil
	}
	var m map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("the object is not a JSON object")
	}
	return m, nil
}

// lookup returns the value at an RFC 6901 pointer, nil when there is none.
func lookup(v any, pointer string) any {
	if pointer == "" {
		return v
	}
	if pointer[0] != '/' {
		return nil
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) || (len(tok) > 1 && tok[0] == '0') {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// replace sets the value at pointer in root (the pointer exists: it came
// from lookup); "" replaces nothing, the caller does.
func replace(root any, pointer string, val any) {
	i := strings.LastIndexByte(pointer, '/')
	if i < 0 {
		return
	}
	tok := strings.ReplaceAll(strings.ReplaceAll(pointer[i+1:], "~1", "/"), "~0", "~")
	switch x := lookup(root, pointer[:i]).(type) {
	case map[string]any:
		x[tok] = val
	case []any:
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 && n < len(x) {
			x[n] = val
		}
	}
}
