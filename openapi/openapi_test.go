package openapi

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"sync"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/kube-openapi/pkg/validation/spec"
)

func props(js string) *apiextensionsv1.JSONSchemaProps {
	p := new(apiextensionsv1.JSONSchemaProps)
	if err := json.Unmarshal([]byte(js), p); err != nil {
		panic(err)
	}
	return p
}

func crdWith(schema string, mutate ...func(*apiextensionsv1.CustomResourceDefinition)) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.ClusterScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props(schema)}}},
	}}
	for _, m := range mutate {
		m(crd)
	}
	return crd
}

func specJSON(t *testing.T, s spec.Schema) string {
	t.Helper()
	bs, err := json.Marshal(s.Properties["spec"])
	if err != nil {
		t.Fatal(err)
	}
	return string(bs)
}

// The server's rules, one case each; the conformance module checks the
// same against the server's builder and the server on the corpus.
func TestSchemaRules(t *testing.T) {
	for _, tc := range []struct {
		name, schema string
		v3, v2       string
	}{
		{"int-or-string unfolds",
			`{"type":"object","properties":{"spec":{"x-kubernetes-int-or-string":true}}}`,
			`{"anyOf":[{"type":"integer"},{"type":"string"}],"x-kubernetes-int-or-string":true}`,
			`{"x-kubernetes-int-or-string":true}`},
		{"int-or-string with other anyOf gets an allOf",
			`{"type":"object","properties":{"spec":{"x-kubernetes-int-or-string":true,"anyOf":[{"minimum":1},{"maxLength":2}]}}}`,
			`{"allOf":[{"anyOf":[{"type":"integer"},{"type":"string"}]}],"anyOf":[{"minimum":1},{"maxLength":2}],"x-kubernetes-int-or-string":true}`,
			`{"x-kubernetes-int-or-string":true}`},
		{"nullable leaves required in v2",
			`{"type":"object","properties":{"spec":{"type":"object","required":["a","b"],"properties":{"a":{"type":"array","nullable":true,"items":{"type":"string"}},"b":{"type":"string"}}}}}`,
			`{"type":"object","required":["a","b"],"properties":{"a":{"type":"array","nullable":true,"items":{"type":"string"}},"b":{"type":"string"}}}`,
			`{"type":"object","required":["b"],"properties":{"a":{},"b":{"type":"string"}}}`},
		{"defaults pruned in v2",
			`{"type":"object","properties":{"spec":{"type":"object","properties":{"a":{"type":"integer","default":3,"maximum":5}}}}}`,
			`{"type":"object","properties":{"a":{"type":"integer","default":3,"maximum":5}}}`,
			`{"type":"object","properties":{"a":{"type":"integer","maximum":5}}}`},
		{"large integers keep every digit; bounds are float64s",
			`{"type":"object","properties":{"spec":{"type":"integer","default":9007199254740993,"enum":[9007199254740993,-9223372036854775808],"example":9223372036854775807,"maximum":9007199254740993}}}`,
			`{"type":"integer","default":9007199254740993,"maximum":9007199254740992,"enum":[9007199254740993,-9223372036854775808],"example":9223372036854775807}`,
			`{"type":"integer","maximum":9007199254740992,"enum":[9007199254740993,-9223372036854775808],"example":9223372036854775807}`},
		{"numbers past int64 and with fractions are float64s",
			`{"type":"object","properties":{"spec":{"type":"number","default":9223372036854775808,"enum":[1.0,2.50,1e2]}}}`,
			`{"type":"number","default":9223372036854776000,"enum":[1,2.5,100]}`,
			`{"type":"number","enum":[1,2.5,100]}`},
		{"large integers inside an object default",
			`{"type":"object","properties":{"spec":{"type":"object","default":{"a":[-9007199254740993]},"properties":{"a":{"type":"array","items":{"type":"integer"}}}}}}`,
			`"default":{"a":[-9007199254740993]}`,
			`{"type":"object","properties":{"a":{"type":"array","items":{"type":"integer"}}}}`},
		{"preserve-unknown object loses structure in v2",
			`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"a":{"type":"string"}}}}}`,
			`{"type":"object","properties":{"a":{"type":"string"}},"x-kubernetes-preserve-unknown-fields":true}`,
			`{"x-kubernetes-preserve-unknown-fields":true}`},
		{"embedded resource gets type and object meta",
			`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-embedded-resource":true,"properties":{"a":{"type":"string"}}}}}`,
			`"required":["kind","apiVersion"]`,
			`"$ref":"#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"`},
		{"junctors dropped in v2, CEL rules kept",
			`{"type":"object","properties":{"spec":{"type":"string","oneOf":[{"pattern":"a"}],"not":{"enum":["b"]},"x-kubernetes-validations":[{"rule":"self != 'c'"}]}}}`,
			`{"type":"string","oneOf":[{"pattern":"a"}],"not":{"enum":["b"]},"x-kubernetes-validations":[{"rule":"self != 'c'"}]}`,
			`{"type":"string","x-kubernetes-validations":[{"rule":"self != 'c'"}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			crd := crdWith(tc.schema)
			d3, err := BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd}, "example.com", "v1")
			if err != nil {
				t.Fatal(err)
			}
			d2, err := BuildV2([]*apiextensionsv1.CustomResourceDefinition{crd})
			if err != nil {
				t.Fatal(err)
			}
			got3 := specJSON(t, *d3.Components.Schemas["com.example.v1.Thing"])
			got2 := specJSON(t, d2.Definitions["com.example.v1.Thing"])
			if got3 != tc.v3 && !strings.Contains(got3, tc.v3) {
				t.Errorf("v3 spec = %s, want %s", got3, tc.v3)
			}
			if got2 != tc.v2 && !strings.Contains(got2, tc.v2) {
				t.Errorf("v2 spec = %s, want %s", got2, tc.v2)
			}
		})
	}
}

func TestServedVersionsOnly(t *testing.T) {
	crd := crdWith(`{"type":"object"}`, func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Versions = append(c.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: "v2", Served: false,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props(`{"type":"object"}`)}})
	})
	crds := []*apiextensionsv1.CustomResourceDefinition{crd}
	if _, err := BuildV3(crds, "example.com", "v2"); !errors.Is(err, ErrNotFound) {
		t.Errorf("BuildV3(unserved) = %v, want ErrNotFound", err)
	}
	if _, err := BuildV3(crds, "other.com", "v1"); !errors.Is(err, ErrNotFound) {
		t.Errorf("BuildV3(other group) = %v, want ErrNotFound", err)
	}
	d2, err := BuildV2(crds)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := d2.Definitions["com.example.v2.Thing"]; ok {
		t.Error("v2 document has the unserved version")
	}
	if len(d2.Paths) != 2 { // cluster scoped, no subresources: collection and item
		t.Errorf("v2 paths = %d, want 2", len(d2.Paths))
	}
}

func TestSubresourcesAndScope(t *testing.T) {
	crd := crdWith(`{"type":"object"}`, func(c *apiextensionsv1.CustomResourceDefinition) {
		c.Spec.Scope = apiextensionsv1.NamespaceScoped
		c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{
			Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
			Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.r", StatusReplicasPath: ".status.r"},
		}
	})
	d, err := BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd}, "example.com", "v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/apis/example.com/v1/things", "/apis/example.com/v1/namespaces/{namespace}/things",
		"/apis/example.com/v1/namespaces/{namespace}/things/{name}", "/apis/example.com/v1/namespaces/{namespace}/things/{name}/status",
		"/apis/example.com/v1/namespaces/{namespace}/things/{name}/scale"} {
		if d.Paths.Paths[p] == nil {
			t.Errorf("no path %s", p)
		}
	}
	if got := d.Paths.Paths["/apis/example.com/v1/things"].Get.OperationId; got != "listExampleComV1ThingForAllNamespaces" {
		t.Errorf("operationId = %s", got)
	}
	if d.Components.Schemas[scaleModel] == nil {
		t.Error("no Scale schema")
	}
}

// TestConcurrentAndDeterministic: the documents do not depend on the call
// or the goroutine (run with -race).
func TestConcurrentAndDeterministic(t *testing.T) {
	crd := crdWith(`{"type":"object","properties":{"spec":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true}}}`)
	crds := []*apiextensionsv1.CustomResourceDefinition{crd}
	var wg sync.WaitGroup
	out := make([]string, 8)
	for i := range out {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d3, err := BuildV3(crds, "example.com", "v1")
			if err != nil {
				t.Error(err)
				return
			}
			d2, err := BuildV2(crds)
			if err != nil {
				t.Error(err)
				return
			}
			a, _ := json.Marshal(d3)
			b, _ := json.Marshal(d2)
			out[i] = string(a) + string(b)
		}()
	}
	wg.Wait()
	for i := range out {
		if out[i] != out[0] {
			t.Fatalf("document %d differs from document 0", i)
		}
	}
}

// TestNumberValues: defaults, enums and examples hold what the server's
// builder holds, int64 for an integer literal that fits and float64 for any
// other number, so a program reading the document gets every digit; the
// built-in schemas keep the Go ints of the server's generated definitions.
func TestNumberValues(t *testing.T) {
	crd := crdWith(`{"type":"object","properties":{"spec":{"type":"number","default":9007199254740993,"enum":[-9223372036854775808,9223372036854775808,1.0],"example":{"a":[9223372036854775807]}}}}`,
		func(c *apiextensionsv1.CustomResourceDefinition) {
			c.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{
				Scale: &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.r", StatusReplicasPath: ".status.r"}}
		})
	d, err := BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd}, "example.com", "v1")
	if err != nil {
		t.Fatal(err)
	}
	s := d.Components.Schemas["com.example.v1.Thing"].Properties["spec"]
	var scaleDefault any
	if ss := d.Components.Schemas["io.k8s.api.autoscaling.v1.ScaleSpec"]; ss != nil {
		scaleDefault = ss.Properties["replicas"].Default
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"default", s.Default, int64(9007199254740993)},
		{"enum", s.Enum, []any{int64(-9223372036854775808), float64(9223372036854775808), float64(1)}},
		{"example", s.Example, map[string]any{"a": []any{int64(9223372036854775807)}}},
		{"ScaleSpec replicas default", scaleDefault, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("%s = %#v (%T), want %#v (%T)", tc.name, tc.got, tc.got, tc.want, tc.want)
			}
		})
	}
}
