package oracle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const crdPath = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"

// establishedDelay is how long the server keeps sleeping in creates after a
// CRD's Established transition (customresource_handler.go: "justCreated").
const establishedDelay = 2 * time.Second

// InstallResult is the outcome of one CRD of a batch.
type InstallResult struct {
	// Name is the document's metadata.name (as sent; may be empty or invalid).
	Name string
	// Code is the HTTP code of the create: 201 when accepted.
	Code int
	// Status is the server's refusal (sorted causes), nil when accepted.
	Status *metav1.Status
	// Warnings are the create's Warning header texts.
	Warnings []string
	// Took is the round trip of the create request.
	Took time.Duration
	// Established reports whether the CRD reached Established=True.
	Established bool
	// Condition explains a CRD that was accepted but not established
	// (NamesAccepted=False on a name conflict, Established=False for an
	// invalid conversion CA bundle).
	Condition string
	// CRD is the CRD as the server stored it (defaults applied, conditions
	// set), nil when refused.
	CRD *apiextensionsv1.CustomResourceDefinition
}

// InstallCRDs is InstallRawCRDs for typed CRDs (sent as their JSON encoding).
func (s *Server) InstallCRDs(ctx context.Context, crds []*apiextensionsv1.CustomResourceDefinition) ([]InstallResult, error) {
	docs := make([][]byte, len(crds))
	for i, c := range crds {
		cc := c.DeepCopy()
		cc.APIVersion, cc.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
		b, err := json.Marshal(cc)
		if err != nil {
			return nil, err
		}
		docs[i] = b
	}
	return s.InstallRawCRDs(ctx, docs)
}

// InstallRawCRDs creates every CRD document (JSON) of the batch, waits until
// each accepted one is Established, and then waits once until the newest
// Established transition (truncated to seconds, as the server stores it) is
// more than two seconds old, so that creates of custom objects are not slowed
// by the server's "just created" sleep. Results are in document order; a
// refused CRD is reported in its result, not as an error. The error reports
// transport failures and CRDs that were accepted but never settled.
func (s *Server) InstallRawCRDs(ctx context.Context, docs [][]byte) ([]InstallResult, error) {
	results := make([]InstallResult, len(docs))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for i, doc := range docs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			start := time.Now()
			r, err := s.CreateCRDRaw(ctx, doc, CreateCRDOptions{})
			results[i] = InstallResult{Name: docName(doc), Code: r.Code, Status: r.Status, Warnings: r.Warnings, Took: time.Since(start)}
			errs[i] = err
			if err == nil && r.Allowed() {
				if n, _, _ := nestedString(r.Object, "metadata", "name"); n != "" {
					results[i].Name = n
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return results, err
	}

	var newest time.Time
	pending := map[int]bool{}
	for i, r := range results {
		if r.Code == http.StatusCreated {
			pending[i] = true
		}
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(pending) > 0 {
		for i := range pending {
			crd, err := s.GetCRD(ctx, results[i].Name)
			if err != nil {
				return results, err
			}
			if crd == nil {
				continue
			}
			results[i].CRD = crd
			for _, c := range crd.Status.Conditions {
				switch {
				case c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue:
					results[i].Established = true
					if c.LastTransitionTime.Time.After(newest) {
						newest = c.LastTransitionTime.Time
					}
					delete(pending, i)
				case c.Type == apiextensionsv1.NamesAccepted && c.Status == apiextensionsv1.ConditionFalse,
					c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionFalse && c.Reason == "InvalidCABundle":
					// Settled: the server never establishes these.
					results[i].Condition = fmt.Sprintf("%s=%s: %s: %s", c.Type, c.Status, c.Reason, c.Message)
					delete(pending, i)
				}
			}
		}
		if len(pending) == 0 {
			break
		}
		if time.Now().After(deadline) {
			var names []string
			for i := range pending {
				names = append(names, results[i].Name)
			}
			return results, fmt.Errorf("oracle: %d CRDs not established after 2m: %v", len(pending), names)
		}
		select {
		case <-ctx.Done():
			return results, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}

	s.mu.Lock()
	for _, r := range results {
		if r.Established {
			s.crds[r.Name] = r.CRD
		}
	}
	s.mu.Unlock()

	// The server builds a CRD's handlers (schemas, validators, CEL programs,
	// storage) on its first request. Do it now, one CRD at a time, while the
	// Established delay runs out, rather than under the first burst of
	// parallel requests.
	for i := range results {
		if results[i].Established {
			if err := s.warmUp(ctx, results[i].CRD); err != nil {
				return results, err
			}
		}
	}

	if !newest.IsZero() {
		// The server compares time.Since(lastTransitionTime) with 2s on the
		// stored condition, which has second precision.
		wait := time.Until(newest.Truncate(time.Second).Add(establishedDelay + 100*time.Millisecond))
		if wait > 0 {
			select {
			case <-ctx.Done():
				return results, ctx.Err()
			case <-time.After(wait):
			}
		}
	}
	return results, nil
}

// CreateCRDOptions configure [Server.CreateCRDRaw].
type CreateCRDOptions struct {
	// DryRun asks for the verdict without persisting the CRD.
	DryRun          bool
	FieldValidation FieldValidation
}

// CreateCRDRaw POSTs one CRD document (JSON) as is and returns the server's
// verdict: 201 with the stored CRD in Object, or a refusal (usually 422
// Invalid) with its causes sorted by SortCauses. It does not wait for the CRD
// to be established and does not make it usable with Do: use InstallRawCRDs.
func (s *Server) CreateCRDRaw(ctx context.Context, doc []byte, opts CreateCRDOptions) (Result, error) {
	q := url.Values{}
	if opts.DryRun {
		q.Set("dryRun", "All")
	}
	if opts.FieldValidation != "" {
		q.Set("fieldValidation", string(opts.FieldValidation))
	}
	return s.send(ctx, http.MethodPost, crdPath, q, "application/json", doc)
}

// GetCRD returns the CRD as stored, or nil when it does not exist.
func (s *Server) GetCRD(ctx context.Context, name string) (*apiextensionsv1.CustomResourceDefinition, error) {
	if name == "" {
		return nil, errors.New("oracle: GetCRD needs a name")
	}
	r, err := s.send(ctx, http.MethodGet, crdPath+"/"+url.PathEscape(name), nil, "application/json", nil)
	if err != nil {
		return nil, err
	}
	if r.Code == http.StatusNotFound {
		return nil, nil
	}
	if !r.Allowed() {
		return nil, fmt.Errorf("oracle: get CRD %s: %d %s", name, r.Code, r.Status.Message)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := json.Unmarshal(r.Body, crd); err != nil {
		return nil, err
	}
	return crd, nil
}

// CRD returns the CRD named name as stored when InstallRawCRDs established
// it, or nil. The returned value must not be modified.
func (s *Server) CRD(name string) *apiextensionsv1.CustomResourceDefinition {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.crds[name]
}

// DeleteCRDs deletes the named CRDs (with their objects) and waits until they
// are gone. Missing CRDs are not an error.
func (s *Server) DeleteCRDs(ctx context.Context, names ...string) error {
	for _, n := range names {
		r, err := s.send(ctx, http.MethodDelete, crdPath+"/"+url.PathEscape(n), nil, "application/json", nil)
		if err != nil {
			return err
		}
		if !r.Allowed() && r.Code != http.StatusNotFound {
			return fmt.Errorf("oracle: delete CRD %s: %d %s", n, r.Code, r.Status.Message)
		}
	}
	s.mu.Lock()
	for _, n := range names {
		delete(s.crds, n)
	}
	s.mu.Unlock()
	deadline := time.Now().Add(2 * time.Minute)
	for _, n := range names {
		for {
			crd, err := s.GetCRD(ctx, n)
			if err != nil {
				return err
			}
			if crd == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("oracle: CRD %s still present after 2m", n)
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	return nil
}

func docName(doc []byte) string {
	var m struct {
		Metadata struct {
			Name any `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(doc, &m) == nil {
		if n, ok := m.Metadata.Name.(string); ok {
			return n
		}
	}
	return ""
}

func nestedString(m map[string]any, keys ...string) (string, bool, error) {
	var cur any = m
	for _, k := range keys {
		mm, ok := cur.(map[string]any)
		if !ok {
			return "", false, fmt.Errorf("%s is not an object", k)
		}
		cur, ok = mm[k]
		if !ok {
			return "", false, nil
		}
	}
	s, ok := cur.(string)
	return s, ok, nil
}

// warmUp lists a CRD's objects once (limit 1) so that the server builds its
// serving information.
func (s *Server) warmUp(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	version := ""
	for _, v := range crd.Spec.Versions {
		if v.Served {
			version = v.Name
			break
		}
	}
	if version == "" {
		return nil
	}
	p := "/apis/" + crd.Spec.Group + "/" + version + "/" + crd.Spec.Names.Plural
	r, err := s.sendRetry(ctx, http.MethodGet, p, url.Values{"limit": {"1"}}, "application/json", nil)
	if err != nil {
		return err
	}
	if !r.Allowed() {
		return fmt.Errorf("oracle: warm-up list of %s: %d %s", crd.Name, r.Code, r.Status.Message)
	}
	return nil
}

// UpdateCRD PUTs crd (its metadata.resourceVersion must be the stored one),
// as a dry run when opts say so, and returns the server's verdict, the stored CRD in Object when accepted.
// The server starts serving the new schema shortly after, not at once:
// callers that depend on it wait for an answer that shows it.
func (s *Server) UpdateCRD(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition, opts CreateCRDOptions) (Result, error) {
	cc := crd.DeepCopy()
	cc.APIVersion, cc.Kind = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	b, err := json.Marshal(cc)
	if err != nil {
		return Result{}, err
	}
	q := url.Values{}
	if opts.DryRun {
		q.Set("dryRun", "All")
	}
	if opts.FieldValidation != "" {
		q.Set("fieldValidation", string(opts.FieldValidation))
	}
	return s.send(ctx, http.MethodPut, crdPath+"/"+url.PathEscape(crd.Name), q, "application/json", b)
}

// UpdateCRDRaw PUTs one CRD document (JSON) as is to the CRD name, as a
// dry run when opts say so, and returns the server's verdict.
func (s *Server) UpdateCRDRaw(ctx context.Context, name string, doc []byte, opts CreateCRDOptions) (Result, error) {
	q := url.Values{}
	if opts.DryRun {
		q.Set("dryRun", "All")
	}
	if opts.FieldValidation != "" {
		q.Set("fieldValidation", string(opts.FieldValidation))
	}
	return s.send(ctx, http.MethodPut, crdPath+"/"+url.PathEscape(name), q, "application/json", doc)
}
