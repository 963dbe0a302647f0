package gen

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

const testCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, singular: widget, kind: Widget, listKind: WidgetList}
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [mode]
            oneOf:
            - required: [a]
            - required: [b]
            properties:
              a: {type: string}
              b: {type: string}
              mode: {type: string, enum: [Fast, Slow]}
              replicas: {type: integer, minimum: 1, maximum: 10, default: 1}
              ratio: {type: number, minimum: 0, maximum: 1, exclusiveMaximum: true}
              step: {type: integer, multipleOf: 5, minimum: 0, maximum: 100}
              name: {type: string, pattern: '^[a-z]([-a-z0-9]*[a-z0-9])?$', maxLength: 20}
              version: {type: string, pattern: '^v\d+\.\d+(\.\d+)?$'}
              when: {type: string, format: date-time}
              addr: {type: string, format: ipv4}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              note: {type: string, nullable: true, minLength: 2, maxLength: 8}
              tags: {type: array, items: {type: string}, x-kubernetes-list-type: set, minItems: 1, maxItems: 4}
              ports:
                type: array
                x-kubernetes-list-type: map
                x-kubernetes-list-map-keys: [name]
                items:
                  type: object
                  required: [name]
                  properties:
                    name: {type: string, maxLength: 15}
                    port: {type: integer, minimum: 1, maximum: 65535}
              labels: {type: object, additionalProperties: {type: string}, minProperties: 1, maxProperties: 3}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
          status:
            type: object
            properties:
              phase: {type: string}
`

func loadCRD(t testing.TB, doc []byte) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(doc, crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func TestCasesDeterministic(t *testing.T) {
	crd := loadCRD(t, []byte(testCRD))
	g1, err := New(crd, "v1", Options{})
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := New(crd, "v1", Options{})
	a, b := g1.Cases(), g2.Cases()
	if len(a) != len(b) || len(a) == 0 {
		t.Fatalf("Cases() lengths %d and %d", len(a), len(b))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Raw, b[i].Raw) {
			t.Fatalf("Cases()[%d] = %s %s, then %s %s", i, a[i].Name, a[i].Raw, b[i].Name, b[i].Raw)
		}
	}
	g3, _ := New(crd, "v1", Options{Seed: 2})
	c := g3.Cases()
	same := len(a) == len(c)
	for i := 0; same && i < len(a); i++ {
		same = bytes.Equal(a[i].Raw, c[i].Raw)
	}
	if same {
		t.Errorf("Cases() with seeds 1 and 2 are identical")
	}
}

func TestCasesJSON(t *testing.T) {
	crd := loadCRD(t, []byte(testCRD))
	g, _ := New(crd, "v1", Options{Cases: 400})
	cases := g.Cases()
	names := map[string]bool{}
	muts := map[string]int{}
	for _, c := range cases {
		if names[c.Name] {
			t.Errorf("duplicate case name %s", c.Name)
		}
		names[c.Name] = true
		muts[c.Mutation]++
		if c.Mutation == "json" {
			continue
		}
		if !json.Valid(c.Raw) {
			t.Errorf("Case(%s).Raw = %s, not valid JSON", c.Name, c.Raw)
		}
		if c.APIVersion != "example.com/v1" || c.Kind != "Widget" || c.Namespace != "default" || c.ObjectName == "" {
			t.Errorf("Case(%s) identity = %s %s %s %s", c.Name, c.APIVersion, c.Kind, c.Namespace, c.ObjectName)
		}
	}
	for _, m := range Mutations {
		if m == "defaults-all-missing" {
			continue // depends on the base containing a defaulted field
		}
		if muts[m] == 0 {
			t.Errorf("no case for mutation %s", m)
		}
	}
	dup := 0
	for _, c := range cases {
		if c.Mutation == "duplicate-key" {
			var m map[string]any
			if err := json.Unmarshal(c.Raw, &m); err != nil {
				t.Errorf("Case(%s): %v", c.Name, err)
			}
			dup++
		}
	}
	if dup == 0 {
		t.Errorf("no duplicate-key case")
	}
}

// serverValidate runs the server's OpenAPI and list-type validation on obj.
func serverValidate(t testing.TB, crd *apiextensionsv1.CustomResourceDefinition, version string, obj map[string]any) field.ErrorList {
	t.Helper()
	var s *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			s = v.Schema.OpenAPIV3Schema
		}
	}
	if s == nil {
		return nil
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s, internal, nil); err != nil {
		t.Fatal(err)
	}
	v, _, err := validation.NewSchemaValidator(internal)
	if err != nil {
		t.Fatal(err)
	}
	errs := validation.ValidateCustomResource(nil, obj, v)
	if ss, err := structuralschema.NewStructural(internal); err == nil {
		errs = append(errs, listtype.ValidateListSetsAndMaps(nil, ss, obj)...)
	}
	return errs
}

func TestObjectValid(t *testing.T) {
	crd := loadCRD(t, []byte(testCRD))
	g, _ := New(crd, "v1", Options{})
	for seed := uint64(1); seed <= 50; seed++ {
		obj := g.Object(seed, "x")
		if errs := serverValidate(t, crd, "v1", obj); len(errs) > 0 {
			b, _ := Marshal(obj)
			t.Errorf("Object(%d) = %s: %v", seed, b, errs)
		}
	}
}

// TestCorpusObjectsValid reports how often generated corpus objects pass the
// server's OpenAPI and list-type validation (CEL not included).
func TestCorpusObjectsValid(t *testing.T) {
	dir := os.Getenv("CRDKIT_CORPUS")
	if dir != "" {
		dir = filepath.Join(dir, "crds")
	} else {
		dir = filepath.Join("..", "..", "..", "shared", "corpus", "crds")
	}
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("corpus not found at %s (set CRDKIT_CORPUS to the corpus root)", dir)
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") {
			files = append(files, p)
		}
		return nil
	})
	total, bad := 0, 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(data), "\n---") {
			if !strings.Contains(doc, "CustomResourceDefinition") {
				continue
			}
			crd := loadCRD(t, []byte(doc))
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				g, err := New(crd, v.Name, Options{})
				if err != nil {
					t.Fatal(err)
				}
				for seed := uint64(1); seed <= 5; seed++ {
					total++
					if errs := serverValidate(t, crd, v.Name, g.Object(seed, "x")); len(errs) > 0 {
						bad++
						t.Logf("%s/%s seed %d: %v", crd.Name, v.Name, seed, errs)
					}
				}
			}
		}
	}
	t.Logf("corpus objects: %d generated, %d fail OpenAPI/list-type validation", total, bad)
	if total > 0 && bad*10 > total {
		t.Errorf("%d of %d generated corpus objects are invalid", bad, total)
	}
}

func TestSkipStatus(t *testing.T) {
	crd := loadCRD(t, []byte(testCRD))
	g, _ := New(crd, "v1", Options{SkipStatus: true, OptionalRatio: 1})
	statusCases := 0
	for _, c := range g.Cases() {
		var m map[string]any
		if json.Unmarshal(c.Raw, &m) != nil {
			continue
		}
		if _, ok := m["status"]; ok {
			if c.Mutation != "status" && c.Mutation != "multi" && c.Mutation != "duplicate-key" {
				t.Errorf("Case(%s) has a status with SkipStatus", c.Name)
			}
			statusCases++
		}
	}
	if statusCases == 0 {
		t.Errorf("no status mutation case")
	}
}

// TestMultiErrors checks that MultiErrors appends cases of every kind of
// MultiErrorMutations after the cases without it, which do not change, and
// that most of them have several errors in the server's validation.
func TestMultiErrors(t *testing.T) {
	crd := loadCRD(t, []byte(testCRD))
	plain, _ := New(crd, "v1", Options{})
	multi, _ := New(crd, "v1", Options{MultiErrors: 40})
	a, b := plain.Cases(), multi.Cases()
	if len(b) <= len(a)+20 || len(b) > len(a)+40 {
		t.Fatalf("Cases() with MultiErrors 40 = %d cases, want %d and 20 to 40 more", len(b), len(a))
	}
	for i := range a {
		if a[i].Name != b[i].Name || !bytes.Equal(a[i].Raw, b[i].Raw) {
			t.Fatalf("Cases()[%d] = %s %s with MultiErrors, %s %s without", i, b[i].Name, b[i].Raw, a[i].Name, a[i].Raw)
		}
	}
	kinds := map[string]int{}
	several := 0
	for _, c := range b[len(a):] {
		kinds[c.Mutation]++
		var obj map[string]any
		if err := json.Unmarshal(c.Raw, &obj); err != nil {
			t.Fatalf("Case(%s): %v", c.Name, err)
		}
		errs := serverValidate(t, crd, "v1", normalizeNumbers(obj).(map[string]any))
		if len(errs) >= 2 {
			several++
		}
		t.Logf("%s: %d errors", c.Name, len(errs))
	}
	for _, m := range MultiErrorMutations {
		if m != "embedded-schema" && kinds[m] == 0 {
			t.Errorf("no case for mutation %s", m)
		}
	}
	if n := len(b) - len(a); several*4 < n*3 {
		t.Errorf("%d of %d cases have several errors, want most", several, n)
	}
}

// normalizeNumbers turns encoding/json's float64 integers into int64, as
// the server decodes them.
func normalizeNumbers(v any) any {
	switch x := v.(type) {
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = normalizeNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalizeNumbers(e)
		}
	}
	return v
}
