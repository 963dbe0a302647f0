package schema

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// corpusSchemas returns the openAPIV3Schema of every version of every CRD in
// the shared corpus ($CRDKIT_CORPUS, or ../../shared/corpus), by
// "<crd>/<version>", sorted; nil when the corpus is absent.
func corpusSchemas(t testing.TB) map[string][]byte {
	dir := os.Getenv("CRDKIT_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared", "corpus")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "crds", "*", "*.yaml"))
	if len(files) == 0 {
		t.Logf("corpus not found at %s (set CRDKIT_CORPUS): corpus seeds skipped", dir)
		return nil
	}
	docSep := regexp.MustCompile(`(?m)^---[ \t]*$`)
	out := map[string][]byte{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range docSep.Split(string(raw), -1) {
			js, err := yaml.YAMLToJSON([]byte(doc))
			if err != nil {
				continue
			}
			var crd struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
				Spec struct {
					Versions []struct {
						Name   string `json:"name"`
						Schema struct {
							OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
						} `json:"schema"`
					} `json:"versions"`
				} `json:"spec"`
			}
			if json.Unmarshal(js, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
				continue
			}
			for _, v := range crd.Spec.Versions {
				if len(v.Schema.OpenAPIV3Schema) > 0 {
					out[crd.Metadata.Name+"/"+v.Name] = v.Schema.OpenAPIV3Schema
				}
			}
		}
	}
	return out
}

func sortedNames(m map[string][]byte) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// fuzzSeeds are handwritten inputs for FuzzCompile beyond the golden cases:
// every keyword family, CRD-time checks, and nesting around the depth bound.
var fuzzSeeds = []string{
	`{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name","port","name"],"items":{"type":"object","required":["name"],"properties":{"name":{"type":"string","nullable":true},"port":{"type":"object"}}}}}}}}`,
	`{"type":"object","properties":{"spec":{"type":"object","properties":{"l":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"object","nullable":true}},"m":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}}}`,
	`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-validations":[{"rule":"true","fieldPath":".a"},{"rule":"true","fieldPath":"['a']"},{"rule":"true","fieldPath":".m['k']"},{"rule":"true","fieldPath":"a"},{"rule":"true","fieldPath":"[a]"},{"rule":"true","fieldPath":".b"},{"rule":"","message":" "},{"rule":"a\nb"},{"rule":"x","reason":"Nope","messageExpression":" "}],"properties":{"a":{"type":"string"},"m":{"type":"object","additionalProperties":{"type":"string"}}}}}}`,
	`{"type":"object","properties":{"metadata":{"type":"object","default":{}},"kind":{"type":"string","default":"x"},"spec":{"type":"object","properties":{"e":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true,"properties":{"metadata":{"type":"object","additionalProperties":{"type":"string","default":"a"},"x-kubernetes-embedded-resource":true}}}}}}}`,
	`{"type":"null","uniqueItems":true,"x-kubernetes-map-type":"weird","x-kubernetes-list-type":"weird","additionalProperties":{"type":"string"},"properties":{"a":{"type":"foo"}},"definitions":{"d":{"$ref":"#"}},"dependencies":{"a":{"type":"string"}},"patternProperties":{"(":{}},"additionalItems":{"id":"x"},"items":[{"default":1},{}]}`,
	`{"type":"object","properties":{"p":{"x-kubernetes-int-or-string":true,"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]},{"pattern":"^[0-9]+%?$"}]}},"anyOf":[{"properties":{"p":{"pattern":"a{1001}"}}}]}`,
	`{"type":"object","properties":{"s":{"type":"string","pattern":"(?i)^(a|b|c)*$","enum":["a",1,null,{"x":[1,2]}],"default":"a","maxLength":-1,"minimum":1e308,"multipleOf":0}}}`,
	// Around the depth bound (512): deeper inputs only cost time, as
	// ParseProps is quadratic in the nesting depth.
	nest("items", 511), nest("items", 513), nest("properties", 513),
	nest("allOf", 514), nest("not", 514), nest("additionalProperties", 513),
	`{"type":"object","x-kubernetes-validations":[` + strings.Repeat(`{"rule":"self.x","fieldPath":".x"},`, 200) + `{"rule":"self.x"}],"properties":{"x":{"type":"string"}}}`,
}

// fuzzBudget is how long one input may take. Generous: CI machines are
// shared and the race detector slows everything down several times.
const fuzzBudget = 10 * time.Second

// FuzzCompile feeds arbitrary bytes to every entry point: ParseProps, then
// BuildError, ValidateStructural, CheckCRDSchema and Compile. None may panic
// or hang, and their answers must fit together.
func FuzzCompile(f *testing.F) {
	for _, c := range readStructuralCases(f) {
		f.Add([]byte(c.Schema))
	}
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	corpus := corpusSchemas(f)
	for _, name := range sortedNames(corpus) {
		f.Add(corpus[name])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		start := time.Now()
		p, err := ParseProps(data)
		if err != nil {
			if p != nil {
				t.Fatalf("ParseProps(%q) = %v, %v, want nil with the error", data, p, err)
			}
			return
		}
		berr := BuildError(p)
		errs := ValidateStructural(p, NewPath("x"))
		for i := 1; i < len(errs); i++ {
			if errs[i-1].Error() > errs[i].Error() {
				t.Fatalf("ValidateStructural(%q) = %s, want sorted by text", data, errs.Error())
			}
		}
		if again := ValidateStructural(p, NewPath("x")); again.Error() != errs.Error() {
			t.Fatalf("ValidateStructural(%q) = %s, then %s, want the same", data, errs.Error(), again.Error())
		}
		crdErrs := CheckCRDSchema(p, NewPath("x"), CreateOptions)
		for _, e := range append(errs, crdErrs...) {
			if e == nil || e.Type == "" || e.Field == "" || !strings.HasPrefix(e.Field, "x") {
				t.Fatalf("checks(%q) produced a malformed error %#v", data, e)
			}
			_ = e.Error()
		}
		s, cerr := Compile(p)
		switch {
		case berr != nil && cerr == nil:
			t.Fatalf("Compile(%q) succeeded, want BuildError's %v", data, berr)
		case berr != nil && cerr.Error() != berr.Error():
			t.Fatalf("Compile(%q) = %v, want BuildError's %v", data, cerr, berr)
		case berr == nil && cerr != nil:
			// Only a pattern can fail on its own, and the structural check
			// (or, in a forbidden place, another structural error) reports it.
			if !strings.HasPrefix(cerr.Error(), "pattern ") || len(errs) == 0 {
				t.Fatalf("Compile(%q) = %v, want success (BuildError accepted it; ValidateStructural: %v)", data, cerr, errs)
			}
		case berr == nil && s == nil:
			t.Fatalf("Compile(%q) = nil, nil, want a schema", data)
		}
		if errors.Is(berr, ErrTooDeep) && !strings.Contains(crdErrs.Error(), ErrTooDeep.Error()) {
			t.Fatalf("CheckCRDSchema(%q) = %v, want it to report the depth bound too", data, crdErrs)
		}
		if s != nil {
			var b strings.Builder
			fingerprint(s, &b, 0)
			if s.NumProperties() != len(p.Properties) {
				t.Fatalf("Compile(%q).NumProperties() = %d, want %d", data, s.NumProperties(), len(p.Properties))
			}
		}
		if d := time.Since(start); d > fuzzBudget {
			t.Fatalf("checks(%d bytes) took %v, want under %v", len(data), d, fuzzBudget)
		}
	})
}
