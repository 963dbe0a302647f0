package benchmarks

import (
	"path/filepath"
	"sort"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/handler"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/openapi"
)

// openAPICase is one served version of a corpus CRD: the whole CRD for v3,
// and a copy with only that version for v2 (BuildV2 builds every served
// version, the server's builder one).
type openAPICase struct {
	name    string
	crd     *apiextensionsv1.CustomResourceDefinition
	one     *apiextensionsv1.CustomResourceDefinition
	version string
}

// openAPICases are six corpus CRD versions spread over the corpus, in name order.
func openAPICases(tb testing.TB) []openAPICase {
	crds, err := corpus.CRDs(filepath.Join(benchCorpus(tb), "crds"))
	if err != nil {
		tb.Fatal(err)
	}
	var all []openAPICase
	for _, c := range crds {
		for _, v := range c.Spec.Versions {
			if !v.Served {
				continue
			}
			one := c.DeepCopy()
			one.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{v}
			all = append(all, openAPICase{name: c.Spec.Names.Plural + "-" + v.Name, crd: c.CustomResourceDefinition, one: one, version: v.Name})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].name < all[j].name })
	var out []openAPICase
	for i := 0; i < len(all); i += max(1, len(all)/6) {
		out = append(out, all[i])
	}
	return out
}

var openAPISink any

// BenchmarkOpenAPI builds what the server publishes for one CRD version, as
// its controllers do on every CRD change: the v3 document (BuildOpenAPIV3 and
// MergeSpecsV3 upstream) and the v2 part (BuildOpenAPIV2 and PruneDefaults).
func BenchmarkOpenAPI(b *testing.B) {
	for _, c := range openAPICases(b) {
		crds := []*apiextensionsv1.CustomResourceDefinition{c.crd}
		ones := []*apiextensionsv1.CustomResourceDefinition{c.one}
		b.Run(c.name+"/v3/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := openapi.BuildV3(crds, c.crd.Spec.Group, c.version)
				if err != nil {
					b.Fatal(err)
				}
				openAPISink = d
			}
		})
		b.Run(c.name+"/v3/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := upstreamV3(c.crd, c.version)
				if err != nil {
					b.Fatal(err)
				}
				openAPISink = d
			}
		})
		b.Run(c.name+"/v2/crdkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := openapi.BuildV2(ones)
				if err != nil {
					b.Fatal(err)
				}
				openAPISink = d
			}
		})
		b.Run(c.name+"/v2/upstream", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				d, err := builder.BuildOpenAPIV2(c.crd, c.version, builder.Options{V2: true, IncludeSelectableFields: true})
				if err != nil {
					b.Fatal(err)
				}
				d.Definitions = handler.PruneDefaults(d.Definitions)
				openAPISink = d
			}
		})
	}
}

func upstreamV3(crd *apiextensionsv1.CustomResourceDefinition, version string) (any, error) {
	d, err := builder.BuildOpenAPIV3(crd, version, builder.Options{IncludeSelectableFields: true})
	if err != nil {
		return nil, err
	}
	return builder.MergeSpecsV3(d)
}

// TestOpenAPIBenchInputs runs each side once on every input.
func TestOpenAPIBenchInputs(t *testing.T) {
	for _, c := range openAPICases(t) {
		if _, err := openapi.BuildV3([]*apiextensionsv1.CustomResourceDefinition{c.crd}, c.crd.Spec.Group, c.version); err != nil {
			t.Errorf("BuildV3(%s) = %v", c.name, err)
		}
		if _, err := upstreamV3(c.crd, c.version); err != nil {
			t.Errorf("upstream v3 (%s) = %v", c.name, err)
		}
		if _, err := openapi.BuildV2([]*apiextensionsv1.CustomResourceDefinition{c.one}); err != nil {
			t.Errorf("BuildV2(%s) = %v", c.name, err)
		}
	}
}
