package openapidiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/kube-openapi/pkg/handler"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/openapi"
)

// crds returns the corpus CRDs and the rule CRDs in testdata.
func crds(t testing.TB) []*apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	var out []*apiextensionsv1.CustomResourceDefinition
	if dir, ok := corpus.Root(); ok {
		cs, err := corpus.CRDs(filepath.Join(dir, "crds"))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			out = append(out, c.CustomResourceDefinition)
		}
	}
	files, _ := filepath.Glob("testdata/*.yaml")
	for _, f := range files {
		bs, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(bs), "\n---\n") {
			crd := new(apiextensionsv1.CustomResourceDefinition)
			if err := yaml.UnmarshalStrict([]byte(doc), crd); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, crd)
		}
	}
	return out
}

// generic is v's JSON as generic values, numbers kept as written
// (json.Number): a float64 would make 9007199254740993 and 9007199254740992
// equal.
func generic(t testing.TB, v any) any {
	t.Helper()
	bs, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(bs))
	dec.UseNumber()
	var out any
	if err := dec.Decode(&out); err != nil {
		t.Fatal(err)
	}
	return out
}

// diff names the first JSON paths where a and b differ.
func diff(a, b any, path string, out *[]string) {
	if len(*out) > 5 {
		return
	}
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			diff(am[k], bm[k], path+"/"+k, out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		as, _ := json.Marshal(a)
		bs, _ := json.Marshal(b)
		*out = append(*out, fmt.Sprintf("%s: crdkit %.300s, upstream %.300s", path, as, bs))
	}
}

func TestV3(t *testing.T) {
	agree, total := 0, 0
	for _, crd := range crds(t) {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			total++
			want, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{IncludeSelectableFields: true})
			if err != nil {
				t.Fatal(err)
			}
			merged, err := builder.MergeSpecsV3(want)
			if err != nil {
				t.Fatal(err)
			}
			got, err := openapi.BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd}, crd.Spec.Group, v.Name)
			if err != nil {
				t.Fatal(err)
			}
			var d []string
			diff(generic(t, got), generic(t, merged), "", &d)
			schemaValueDiffs(got.Components.Schemas, merged.Components.Schemas, "components/schemas", &d)
			if len(d) > 0 {
				t.Errorf("BuildV3(%s, %s):\n%s", crd.Name, v.Name, strings.Join(d, "\n"))
				continue
			}
			agree++
		}
	}
	fmt.Printf("conformance: openapi-v3 upstream builder %d/%d documents agree\n", agree, total)
}

func TestV2(t *testing.T) {
	agree, total := 0, 0
	for _, crd := range crds(t) {
		for _, v := range crd.Spec.Versions {
			if !v.Served {
				continue
			}
			total++
			want, err := builder.BuildOpenAPIV2(crd, v.Name, builder.Options{V2: true, IncludeSelectableFields: true})
			if err != nil {
				t.Fatal(err)
			}
			want.Definitions = handler.PruneDefaults(want.Definitions)
			cv := *crd
			cv.Spec.Versions = []apiextensionsv1.CustomResourceDefinitionVersion{v}
			got, err := openapi.BuildV2([]*apiextensionsv1.CustomResourceDefinition{&cv})
			if err != nil {
				t.Fatal(err)
			}
			wantDefs := map[string]any{}
			for k, d := range generic(t, want.Definitions).(map[string]any) {
				if _, ok := got.Definitions[k]; ok {
					wantDefs[k] = d
				}
			}
			wantParams := map[string]any{}
			for k, d := range generic(t, want.Parameters).(map[string]any) {
				wantParams[k] = d
			}
			var d []string
			diff(generic(t, got.Paths), generic(t, want.Paths.Paths), "paths", &d)
			diff(generic(t, got.Definitions), wantDefs, "definitions", &d)
			diff(generic(t, got.Parameters), wantParams, "parameters", &d)
			schemaValueDiffs(definitionPointers(got.Definitions), definitionPointers(want.Definitions), "definitions", &d)
			if len(got.Definitions) != 2 {
				d = append(d, fmt.Sprintf("%d definitions, want 2", len(got.Definitions)))
			}
			if len(d) > 0 {
				t.Errorf("BuildV2(%s, %s):\n%s", crd.Name, v.Name, strings.Join(d, "\n"))
				continue
			}
			agree++
		}
	}
	fmt.Printf("conformance: openapi-v2 upstream builder %d/%d documents agree\n", agree, total)
}
