package oracle

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// RawRequest is a request Do does not cover: any method, subresource, query
// and content type on a custom object or its collection.
type RawRequest struct {
	// Method is the HTTP method (GET, PUT, PATCH, DELETE, POST).
	Method string
	// CRD, Version, Namespace and Name address the object as in Request
	// (Namespace "" is "default" for a namespaced CRD; Name "" addresses
	// the collection).
	CRD, Version, Namespace, Name string
	// Subresource is appended to the object's path ("scale", "status").
	Subresource string
	// Query is sent as the URL's query.
	Query url.Values
	// ContentType of Body; empty means application/json when Body is set.
	ContentType string
	// Body is sent byte for byte (nil: no body).
	Body []byte
}

// DoRaw sends one RawRequest. Like Do, it decodes a 2xx body into
// Result.Object and a refusal into Result.Status (causes sorted), and
// collects the Warning headers.
func (s *Server) DoRaw(ctx context.Context, req RawRequest) (Result, error) {
	crd := s.CRD(req.CRD)
	if crd == nil {
		return Result{}, fmt.Errorf("oracle: CRD %q was not installed through this server", req.CRD)
	}
	p := "/apis/" + crd.Spec.Group + "/" + req.Version
	if crd.Spec.Scope == apiextensionsv1.NamespaceScoped {
		ns := req.Namespace
		if ns == "" {
			ns = "default"
		}
		p += "/namespaces/" + url.PathEscape(ns)
	}
	p += "/" + crd.Spec.Names.Plural
	if req.Name != "" {
		p += "/" + url.PathEscape(req.Name)
		if req.Subresource != "" {
			p += "/" + req.Subresource
		}
	}
	ct := req.ContentType
	if ct == "" && req.Body != nil {
		ct = "application/json"
	}
	for i := 0; ; i++ {
		r, err := s.sendRaw(ctx, req.Method, p, req.Query, ct, req.Body)
		if err != nil || i == resolveRetries || r.Code != http.StatusInternalServerError ||
			r.Status == nil || !strings.Contains(r.Status.Message, "error resolving resource") {
			return r, err
		}
	}
}

func (s *Server) sendRaw(ctx context.Context, method, p string, q url.Values, contentType string, body []byte) (Result, error) {
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
	hreq.Header.Set("Accept", "application/json")
	if contentType != "" {
		hreq.Header.Set("Content-Type", contentType)
	}
	return s.exchange(hreq, method, p)
}

// EtcdPrefix is the server's etcd key prefix (--etcd-prefix), which its
// storage errors on DELETE include in an object's key.
func (s *Server) EtcdPrefix() string { return s.etcdPrefix }
