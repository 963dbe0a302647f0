package crdkit

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	kjson "sigs.k8s.io/json"

	"github.com/crdkit/crdkit/definition"
	"github.com/crdkit/crdkit/internal/corpus"
	"github.com/crdkit/crdkit/schema"
)

// serverProps decodes an openAPIV3Schema as the server decodes a CRD's
// (sigs.k8s.io/json into the v1 type, then the conversion to the internal
// type) and gives it as the facade hands it to package schema.
func serverProps(js []byte) (*schema.Props, error) {
	v1 := new(apiextensionsv1.JSONSchemaProps)
	if err := kjson.UnmarshalCaseSensitivePreserveInts(js, v1); err != nil {
		return nil, err
	}
	internal := new(apiextensions.JSONSchemaProps)
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(v1, internal, nil); err != nil {
		return nil, err
	}
	p := definition.SchemaProps(internal)
	clearItemsOrigin(p)
	return p, nil
}

// clearItemsOrigin drops what only the facade sets: the server's own items
// value, for error texts.
func clearItemsOrigin(p *schema.Props) {
	if p == nil {
		return
	}
	p.ItemsOrigin = nil
	for _, l := range [][]*schema.Props{{p.Items, p.Not}, p.ItemsArray, p.AllOf, p.OneOf, p.AnyOf} {
		for _, c := range l {
			clearItemsOrigin(c)
		}
	}
	for _, m := range []map[string]*schema.Props{p.Properties, p.PatternProperties, p.Definitions} {
		for _, c := range m {
			clearItemsOrigin(c)
		}
	}
	for _, d := range p.Dependencies {
		clearItemsOrigin(d.Schema)
	}
	for _, b := range []*schema.PropsOrBool{p.AdditionalProperties, p.AdditionalItems} {
		if b != nil {
			clearItemsOrigin(b.Schema)
		}
	}
}

// checkParseProps compares schema.ParseProps with the server's decode: both
// refuse the input, or both give the same Props.
func checkParseProps(t *testing.T, js []byte) {
	want, werr := serverProps(js)
	got, gerr := schema.ParseProps(js)
	if (gerr == nil) != (werr == nil) {
		t.Fatalf("ParseProps(%s) error = %v, want the server's %v", js, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("ParseProps(%s) = %s, want (the server's decode) %s", js, g, w)
	}
}

// parsePropsInputs repeat keys in every way the server's decoder treats
// differently from keeping the last occurrence, and some it treats alike.
var parsePropsInputs = []string{
	`{"type":"string","type":"object"}`,
	`{"type":"string","type":null}`,
	`{"type":"object","Type":"string"}`,
	`{"properties":{"a":{"type":"string"}},"properties":{"b":{"type":"integer"}}}`,
	`{"properties":{"a":{"type":"string"},"a":{"format":"x"}}}`,
	`{"properties":{"a":{"type":"string"}},"properties":null}`,
	`{"allOf":[{"properties":{"":{},"00":{},"0":{}},"properties":{}}]}`,
	`{"not":{"type":"string","pattern":"a"},"not":{"format":"x","pattern":null}}`,
	`{"not":{"type":"string"},"not":null}`,
	`{"x-kubernetes-preserve-unknown-fields":true,"x-kubernetes-preserve-unknown-fields":null}`,
	`{"maximum":1,"maximum":null,"minimum":2,"minimum":3}`,
	`{"allOf":[{"type":"string"},{"type":"integer"}],"allOf":[{"format":"x"}]}`,
	`{"allOf":[{"type":"string"},{"type":"integer"}],"allOf":[{}],"allOf":[null,null,null]}`,
	`{"allOf":[{"type":"string"}],"allOf":[],"allOf":[null]}`,
	`{"required":["a","b"],"required":["c"],"required":[null,null]}`,
	`{"enum":[1,2],"enum":[null]}`,
	`{"enum":[1,"x"],"enum":[null,null,null]}`,
	`{"default":{"a":1},"default":{"b":2},"example":1,"example":null}`,
	`{"default":{"a":1,"a":2}}`,
	`{"items":{"type":"string"},"items":{"format":"x"}}`,
	`{"items":{"type":"string"},"items":[{"format":"x"},null]}`,
	`{"items":[{"type":"string"}],"items":"x"}`,
	`{"additionalProperties":{"type":"string"},"additionalProperties":true}`,
	`{"additionalProperties":1,"additionalProperties":false}`,
	`{"dependencies":{"a":["b"]},"dependencies":{"c":{"type":"string"},"a":null}}`,
	`{"externalDocs":{"url":"u"},"externalDocs":{"description":"d","url":null}}`,
	`{"x-kubernetes-validations":[{"rule":"self.a","message":"m"}],"x-kubernetes-validations":[{"message":null,"reason":"FieldValueInvalid"},{"rule":"r"}]}`,
	`{"x-kubernetes-validations":[{"rule":"a","optionalOldSelf":true}],"x-kubernetes-validations":[{"optionalOldSelf":null}]}`,
	`{"type":1,"type":"object"}`,
	`{"maxLength":1.5,"maxLength":1}`,
	`{"properties":{"a":{"type":1},"a":{"type":"string"}}}`,
	`{"not":{"default":1e999},"not":{"type":"string"}}`,
	`{"properties":{"a":{"items":{"type":"string","type":"integer","x-kubernetes-list-type":"set"}}}}`,
	`{"description":"a\"b:c","description":"\u00e9:"}`,
	// No repeated key: the fast path.
	`{"type":"object","properties":{"a":{"type":"string","default":"x"}},"required":["a"]}`,
	`{"dependencies":{"a":[]},"items":[],"enum":[]}`,
}

func TestParsePropsIsTheServers(t *testing.T) {
	agree, total := 0, 0
	check := func(name string, js []byte) {
		total++
		if t.Run(name, func(t *testing.T) { checkParseProps(t, js) }) {
			agree++
		}
	}
	for _, in := range parsePropsInputs {
		check(in, []byte(in))
	}
	schemas := corpusSchemaJSON(t)
	for i, js := range schemas {
		check(fmt.Sprintf("corpus %d", i), js)
	}
	if len(schemas) == 0 {
		t.Log("corpus not found (set CRDKIT_CORPUS): corpus schemas skipped")
	}
	fmt.Printf("conformance: ParseProps against the server's decode %d/%d (%d inputs with repeated keys and others, %d corpus schemas)\n",
		agree, total, len(parsePropsInputs), len(schemas))
}

func FuzzParseProps(f *testing.F) {
	for _, in := range parsePropsInputs {
		f.Add([]byte(in))
	}
	for _, js := range corpusSchemaJSON(f) {
		if len(js) < 64<<10 {
			f.Add(js)
		}
	}
	f.Fuzz(checkParseProps)
}

// corpusSchemaJSON returns the openAPIV3Schema of every version of the
// corpus CRDs as the files spell it; none without the corpus.
func corpusSchemaJSON(tb testing.TB) [][]byte {
	dir, ok := corpus.Root()
	if !ok {
		return nil
	}
	docs, err := corpus.Walk(filepath.Join(dir, "crds"))
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, d := range docs {
		var crd struct {
			Kind string
			Spec struct {
				Versions []struct {
					Schema struct {
						OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
					}
				}
			}
		}
		if json.Unmarshal(d.JSON, &crd) != nil || crd.Kind != "CustomResourceDefinition" {
			continue
		}
		for _, v := range crd.Spec.Versions {
			if len(v.Schema.OpenAPIV3Schema) > 0 {
				out = append(out, v.Schema.OpenAPIV3Schema)
			}
		}
	}
	return out
}
