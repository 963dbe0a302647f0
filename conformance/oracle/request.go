package oracle

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilnet "k8s.io/apimachinery/pkg/util/net"
)

// Op is the kind of a custom-object request.
type Op string

// Operations understood by [Server.Do].
const (
	// OpCreate POSTs Body to the collection.
	OpCreate Op = "create"
	// OpUpdate PUTs Body to the object.
	OpUpdate Op = "update"
	// OpUpdateStatus PUTs Body to the object's status subresource.
	OpUpdateStatus Op = "update-status"
	// OpGet GETs the object, or lists the collection when Name is empty.
	OpGet Op = "get"
	// OpGetTable is OpGet with
	// Accept: application/json;as=Table;v=v1;g=meta.k8s.io.
	OpGetTable Op = "get-table"
	// OpDelete DELETEs the object (Body, if any, is sent as DeleteOptions).
	OpDelete Op = "delete"
	// OpPatch PATCHes the object with Body, of the content type PatchType.
	OpPatch Op = "patch"
	// OpPatchStatus is OpPatch to the object's status subresource.
	OpPatchStatus Op = "patch-status"
)

// UserAgent is the User-Agent of every request. The server takes the
// field manager of a request without a fieldManager parameter from it (the
// part before the first "/"): "crdkit", crdkit's default field manager.
const UserAgent = "crdkit/oracle"

// FieldValidation is the fieldValidation query parameter.
type FieldValidation string

// Field validation modes. FieldValidationDefault sends no parameter; the
// server then behaves as Warn.
const (
	FieldValidationDefault FieldValidation = ""
	Ignore                 FieldValidation = "Ignore"
	Warn                   FieldValidation = "Warn"
	Strict                 FieldValidation = "Strict"
)

// TableAccept is the Accept header of OpGetTable.
const TableAccept = "application/json;as=Table;v=v1;g=meta.k8s.io"

// Request is one custom-object request.
type Request struct {
	Op Op
	// CRD is the metadata.name of a CRD installed through this Server, for
	// example "crontabs.stable.example.com". It gives group, plural and scope.
	CRD string
	// Version is the served version to address, e.g. "v1".
	Version string
	// Namespace of a namespaced resource. When empty it is taken from Body's
	// metadata.namespace, else "default". Ignored for cluster-scoped CRDs.
	Namespace string
	// Name of the object for update, status, get and delete. When empty it
	// is taken from Body's metadata.name (get with no name lists).
	Name string
	// Body is sent byte for byte.
	Body []byte
	// DryRun adds dryRun=All (create, update, status update, delete).
	DryRun          bool
	FieldValidation FieldValidation
	// PatchType is the Content-Type of OpPatch and OpPatchStatus, e.g.
	// "application/merge-patch+json".
	PatchType string
	// FieldManager and Force are the fieldManager and force parameters.
	FieldManager string
	Force        bool
}

// Result is the server's answer.
type Result struct {
	// Code is the HTTP status code.
	Code int
	// Status is the decoded metav1.Status of a non-2xx answer (a body that is
	// not a Status becomes Status{Code, Message: body}); nil on success.
	// Its causes are sorted with SortCauses.
	Status *metav1.Status
	// Warnings holds the text of each Warning header, in order.
	Warnings []string
	// Object is the decoded body of a 2xx answer.
	Object map[string]any
	// Body is the raw response body.
	Body []byte
}

// Allowed reports whether the request succeeded (2xx).
func (r Result) Allowed() bool { return r.Code >= 200 && r.Code < 300 }

// Do sends one custom-object request. The error reports a transport problem
// or an unknown CRD; refusals by the server are in Result.
func (s *Server) Do(ctx context.Context, req Request) (Result, error) {
	crd := s.CRD(req.CRD)
	if crd == nil {
		return Result{}, fmt.Errorf("oracle: CRD %q was not installed through this server", req.CRD)
	}
	ns, name := req.Namespace, req.Name
	if (ns == "" || name == "") && len(req.Body) > 0 {
		var m struct {
			Metadata struct {
				Name      any `json:"name"`
				Namespace any `json:"namespace"`
			} `json:"metadata"`
		}
		if json.Unmarshal(req.Body, &m) == nil {
			if v, ok := m.Metadata.Name.(string); ok && name == "" {
				name = v
			}
			if v, ok := m.Metadata.Namespace.(string); ok && ns == "" {
				ns = v
			}
		}
	}
	if ns == "" {
		ns = "default"
	}
	p := "/apis/" + crd.Spec.Group + "/" + req.Version
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		p += "/namespaces/" + url.PathEscape(ns)
	}
	p += "/" + crd.Spec.Names.Plural

	method := http.MethodGet
	accept := "application/json"
	needName := true
	switch req.Op {
	case OpCreate:
		method, needName = http.MethodPost, false
	case OpUpdate:
		method = http.MethodPut
	case OpUpdateStatus:
		method = http.MethodPut
	case OpGet, OpGetTable:
		needName = false
		if req.Op == OpGetTable {
			accept = TableAccept
		}
	case OpDelete:
		method = http.MethodDelete
	case OpPatch, OpPatchStatus:
		method = http.MethodPatch
		accept = "application/json;ct=" + req.PatchType
	default:
		return Result{}, fmt.Errorf("oracle: unknown op %q", req.Op)
	}
	if name != "" && req.Op != OpCreate {
		p += "/" + url.PathEscape(name)
	} else if needName {
		return Result{}, fmt.Errorf("oracle: %s needs a name", req.Op)
	}
	if req.Op == OpUpdateStatus || req.Op == OpPatchStatus {
		p += "/status"
	}
	q := url.Values{}
	if req.DryRun {
		q.Set("dryRun", "All")
	}
	if req.FieldValidation != "" {
		q.Set("fieldValidation", string(req.FieldValidation))
	}
	if req.FieldManager != "" {
		q.Set("fieldManager", req.FieldManager)
	}
	if req.Force {
		q.Set("force", "true")
	}
	return s.sendRetry(ctx, method, p, q, accept, req.Body)
}

// resolveRetries bounds retries of "error resolving resource".
const resolveRetries = 3

// throttleRetries bounds retries of a 429 Too Many Requests, one second apart.
const throttleRetries = 10

// sendRetry is send, retried when the server answers 500 "error resolving
// resource": it failed to build a CRD's handlers, a transient failure seen
// under heavy CPU contention that happens before the request is handled.
func (s *Server) sendRetry(ctx context.Context, method, p string, q url.Values, accept string, body []byte) (Result, error) {
	for i, throttled := 0, 0; ; i++ {
		r, err := s.send(ctx, method, p, q, accept, body)
		if err == nil && r.Code == http.StatusTooManyRequests && throttled < throttleRetries {
			// The server asks to come back later (a LIST while a resource's
			// watch cache is being initialised, or flow control), as
			// client-go would: wait a second and try again.
			throttled++
			i--
			select {
			case <-ctx.Done():
				return r, ctx.Err()
			case <-time.After(time.Second):
			}
			continue
		}
		if err != nil || i == resolveRetries || r.Code != http.StatusInternalServerError ||
			r.Status == nil || !strings.Contains(r.Status.Message, "error resolving resource") {
			return r, err
		}
		select {
		case <-ctx.Done():
			return r, ctx.Err()
		case <-time.After(time.Duration(i+1) * 200 * time.Millisecond):
		}
	}
}

// DryRunCreate is Do with OpCreate and DryRun.
func (s *Server) DryRunCreate(ctx context.Context, crd, version string, body []byte, fv FieldValidation) (Result, error) {
	return s.Do(ctx, Request{Op: OpCreate, CRD: crd, Version: version, Body: body, DryRun: true, FieldValidation: fv})
}

// send performs one HTTP request against the server. accept may end in
// ";ct=TYPE": the body's Content-Type (else application/json).
func (s *Server) send(ctx context.Context, method, p string, q url.Values, accept string, body []byte) (Result, error) {
	u := strings.TrimSuffix(s.base.String(), "/") + p
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	hreq, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return Result{}, err
	}
	accept, ct, _ := strings.Cut(accept, ";ct=")
	if ct == "" {
		ct = "application/json"
	}
	hreq.Header.Set("Accept", accept)
	hreq.Header.Set("User-Agent", UserAgent)
	if body != nil {
		hreq.Header.Set("Content-Type", ct)
	}
	return s.exchange(hreq, method, p)
}

// exchange sends a request and reads the server's answer: the code, the body,
// the Warning headers' texts, and the object or the Status (causes sorted;
// a body that is not a Status becomes one with its text as the message).
func (s *Server) exchange(hreq *http.Request, method, p string) (Result, error) {
	resp, err := s.client.Do(hreq)
	if err != nil {
		return Result{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return Result{}, err
	}
	res := Result{Code: resp.StatusCode, Body: data}
	if hs := resp.Header.Values("Warning"); len(hs) > 0 {
		ws, _ := utilnet.ParseWarningHeaders(hs)
		for _, w := range ws {
			res.Warnings = append(res.Warnings, w.Text)
		}
	}
	if res.Allowed() {
		if len(data) > 0 {
			if err := json.Unmarshal(data, &res.Object); err != nil {
				return res, fmt.Errorf("oracle: decode %s %s response: %w", method, p, err)
			}
		}
		return res, nil
	}
	st := &metav1.Status{}
	if err := json.Unmarshal(data, st); err != nil || st.Kind != "Status" {
		st = &metav1.Status{Status: metav1.StatusFailure, Code: int32(resp.StatusCode), Message: strings.TrimSpace(string(data))}
	}
	SortCauses(st)
	res.Status = st
	return res, nil
}
