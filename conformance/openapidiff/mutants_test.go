package openapidiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/handler"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/conformance/crdmut"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/openapi"
)

// TestMutants: seeded mutations of the corpus CRDs (crdmut); those the server
// would still accept (crdkit.Load) are published by both builders.
func TestMutants(t *testing.T) {
	agree, total, refused := mutants(t, 17, 12, func(rng *rand.Rand, m map[string]any) string { return crdmut.Mutate(rng, m, 1) })
	fmt.Printf("conformance: openapi mutants %d/%d versions agree (%d mutants refused, skipped)\n", agree, total, refused)
}

// TestNumberMutants: the corpus CRDs with large integers (past 2^53, at the
// ends of int64 and past them) in defaults, enums, examples and bounds
// (crdmut.MutateNumbers), published by both builders and compared with the
// numbers as written.
func TestNumberMutants(t *testing.T) {
	agree, total, refused := mutants(t, 53, 4, func(rng *rand.Rand, m map[string]any) string { return crdmut.MutateNumbers(rng, m, 1+rng.IntN(3)) })
	fmt.Printf("conformance: openapi large-integer mutants %d/%d versions agree (%d mutants refused, skipped)\n", agree, total, refused)
	if total < refused {
		t.Errorf("%d large-integer mutants published, %d refused: the mutations should mostly make CRDs the server accepts", total, refused)
	}
}

// mutants publishes perDoc mutants of every corpus CRD (seeded) with both
// builders and counts the served versions that agree, and the mutants
// crdkit.Load refuses.
func mutants(t *testing.T, seed uint64, perDoc int, mutate func(*rand.Rand, map[string]any) string) (agree, total, refused int) {
	dir, ok := corpus.Root()
	if !ok {
		t.Skip("no corpus")
	}
	docs, err := corpus.Walk(filepath.Join(dir, "crds"))
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed))
	for _, d := range docs {
		if !strings.Contains(string(d.JSON), `"CustomResourceDefinition"`) {
			continue
		}
		for i := 0; i < perDoc; i++ {
			var m map[string]any
			dec := json.NewDecoder(bytes.NewReader(d.JSON))
			dec.UseNumber() // the corpus's numbers stay as written
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			desc := mutate(rng, m)
			js, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			c, err := crdkit.Load(js)
			if err != nil {
				refused++
				continue
			}
			crd := c.Definition()
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				total++
				if msg := compareVersion(t, crd, v); msg != "" {
					t.Errorf("%s %s after %s:\n%s", d.Name, v.Name, desc, msg)
					continue
				}
				agree++
			}
		}
	}
	return agree, total, refused
}

func compareVersion(t *testing.T, crd *apiextensionsv1.CustomResourceDefinition, v apiextensionsv1.CustomResourceDefinitionVersion) string {
	want3, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{IncludeSelectableFields: true})
	if err != nil {
		return err.Error()
	}
	merged, err := builder.MergeSpecsV3(want3)
	if err != nil {
		return err.Error()
	}
	got3, err := openapi.BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd}, crd.Spec.Group, v.Name)
	if err != nil {
		return err.Error()
	}
	var d []string
	diff(generic(t, got3), generic(t, merged), "v3", &d)
	schemaValueDiffs(got3.Components.Schemas, merged.Components.Schemas, "v3", &d)
	want2, err := builder.BuildOpenAPIV2(crd, v.Name, builder.Options{V2: true, IncludeSelectableFields: true})
	if err != nil {
		return err.Error()
	}
	want2.Definitions = handler.PruneDefaults(want2.Definitions)
	one := crd.DeepCopy()
	one.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{v}
	got2, err := openapi.BuildV2([]*apiextensionsv1.CustomResourceDefinition{one})
	if err != nil {
		return err.Error()
	}
	wantDefs := map[string]any{}
	for k, x := range generic(t, want2.Definitions).(map[string]any) {
		if _, ok := got2.Definitions[k]; ok {
			wantDefs[k] = x
		}
	}
	diff(generic(t, got2.Paths), generic(t, want2.Paths.Paths), "v2 paths", &d)
	diff(generic(t, got2.Definitions), wantDefs, "v2 definitions", &d)
	diff(generic(t, got2.Parameters), generic(t, want2.Parameters), "v2 parameters", &d)
	schemaValueDiffs(definitionPointers(got2.Definitions), definitionPointers(want2.Definitions), "v2 definitions", &d)
	return strings.Join(d, "\n")
}
