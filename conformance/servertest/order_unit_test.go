package servertest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	kjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"
)

// TestUpstreamReordersEveryOrder checks the last check of cause order on
// four causes of sibling properties, whose order follows the iteration of
// the schema's properties map: one compiled validator gives only some of
// the six orders (an iteration rotates a fixed layout), servers compiled
// apart give the others, so upstreamReorders must find every order but the
// server's own (and the causes of two items of a list in another order than
// theirs).
func TestUpstreamReordersEveryOrder(t *testing.T) {
	crd := prometheusCRD(t)
	raw := []byte(`{"apiVersion":"monitoring.coreos.com/v1","kind":"Prometheus","metadata":{"name":"x"},"spec":{"containers":{},"scrapeClasses":[{"name":"a","metricRelabelings":[{"action":"bogus"}]},{"name":"b","tlsConfig":{"certFile":5}}],"shardRetentionPolicy":{"whenScaled":"bogus"}}}`)
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj); err != nil {
		t.Fatal(err)
	}
	u := newUpstreamValidator(crd, "v1")
	if u == nil {
		t.Fatal("no validator for prometheuses v1")
	}
	var server []Cause
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, u.validator) {
		server = append(server, Cause{e.Field, string(e.Type), e.ErrorBody()})
	}
	if len(server) != 4 {
		t.Fatalf("causes %q, want four", server)
	}
	item := func(c []Cause, i int) int {
		return slices.IndexFunc(c, func(c Cause) bool { return strings.HasPrefix(c.Field, fmt.Sprintf("spec.scrapeClasses[%d]", i)) })
	}
	for _, p := range permutations(len(server))[1:] {
		ours := make([]Cause, len(p))
		for i, j := range p {
			ours[i] = server[j]
		}
		if item(ours, 1) < item(ours, 0) {
			continue // the items of a list come in their order
		}
		if !upstreamReorders(crd, "v1", raw, server, ours) {
			t.Errorf("upstreamReorders(%q, %q) = false, want true", server, ours)
		}
	}
	if upstreamReorders(crd, "v1", raw, server, slices.Clone(server)) {
		t.Errorf("upstreamReorders(%q) in the server's own order = true, want false", server)
	}
}

// TestUpstreamReordersAfterACopy checks that the validator upstreamReorders
// keeps for a CRD is that CRD's: a changed copy with the same name (as the
// ratcheting test's tightened CRDs, compared first) must not answer for the
// CRD itself, where its causes differ and the reorder would go unseen.
func TestUpstreamReordersAfterACopy(t *testing.T) {
	crd := prometheusCRD(t)
	tightened := crd.DeepCopy()
	for i, v := range tightened.Spec.Versions {
		if v.Name != "v1" {
			continue
		}
		// The copy allows any whenScaled: one of the CRD's causes is not
		// among the copy's.
		spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
		p := spec.Properties["shardRetentionPolicy"]
		w := p.Properties["whenScaled"]
		w.Enum = nil
		p.Properties["whenScaled"] = w
		spec.Properties["shardRetentionPolicy"] = p
		tightened.Spec.Versions[i].Schema.OpenAPIV3Schema.Properties["spec"] = spec
	}
	raw := []byte(`{"apiVersion":"monitoring.coreos.com/v1","kind":"Prometheus","metadata":{"name":"x"},"spec":{"containers":{},"shardRetentionPolicy":{"whenScaled":"bogus"}}}`)
	var obj map[string]any
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, &obj); err != nil {
		t.Fatal(err)
	}
	var server []Cause
	for _, e := range apiservervalidation.ValidateCustomResource(nil, obj, newUpstreamValidator(crd, "v1").validator) {
		server = append(server, Cause{e.Field, string(e.Type), e.ErrorBody()})
	}
	if len(server) != 2 {
		t.Fatalf("causes %q, want two", server)
	}
	ours := []Cause{server[1], server[0]}
	// The copy first: it does not give both causes.
	if upstreamReorders(tightened, "v1", raw, server, ours) {
		t.Errorf("upstreamReorders under the copy = true, want false")
	}
	if !upstreamReorders(crd, "v1", raw, server, ours) {
		t.Errorf("upstreamReorders(%q, %q) after the copy = false, want true", server, ours)
	}
}

// permutations returns every order of 0..n-1, the identity first.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := len(p); i >= 0; i-- {
			q := append(append(slices.Clone(p[:i]), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// prometheusCRD reads the corpus's Prometheus CRD, or skips.
func prometheusCRD(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	if corpusDir() == "" {
		t.Skip("corpus not found: set CRDKIT_CORPUS to the corpus root (the directory holding crds/)")
	}
	data, err := os.ReadFile(filepath.Join(corpusDir(), "prometheus-operator", "monitoring.coreos.com_prometheuses.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	crd := new(apiextensionsv1.CustomResourceDefinition)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}
