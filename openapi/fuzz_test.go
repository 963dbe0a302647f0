package openapi

import (
	"encoding/json"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

// FuzzBuild: any schema that decodes gives documents or an error, never a
// panic, and the same documents on every call.
func FuzzBuild(f *testing.F) {
	for _, s := range []string{
		`{"type":"object"}`,
		`{"type":"object","x-kubernetes-preserve-unknown-fields":true}`,
		`{"type":"object","properties":{"spec":{"x-kubernetes-int-or-string":true,"anyOf":[{"type":"integer"},{"type":"string"}]}}}`,
		`{"type":"object","properties":{"a":{"type":"array","nullable":true,"items":{"type":"object","x-kubernetes-embedded-resource":true}}},"required":["a"]}`,
		`{"properties":{"m":{"additionalProperties":{"nullable":true,"allOf":[{"not":{"enum":[1]}}]}}},"oneOf":[{"required":["m"]}]}`,
		`{"type":"object","properties":{"d":{"default":{"x":[1,2.5,null]},"x-kubernetes-validations":[{"rule":"true"}]}}}`,
		`{"type":"object","properties":{"i":{"type":"integer","default":9007199254740993,"enum":[-9223372036854775808,18446744073709551616,1e400],"example":-0,"maximum":9223372036854775807}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := new(apiextensionsv1.JSONSchemaProps)
		if json.Unmarshal(data, p) != nil {
			return
		}
		crd := crdWith(`{}`)
		crd.Spec.Versions[0].Schema.OpenAPIV3Schema = p
		crds := []*apiextensionsv1.CustomResourceDefinition{crd}
		a, err := BuildV3(crds, "example.com", "v1")
		if err != nil {
			return
		}
		b, _ := BuildV3(crds, "example.com", "v1")
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Fatalf("BuildV3 differs between calls")
		}
		if _, err := BuildV2(crds); err != nil {
			t.Fatalf("BuildV2 = %v after BuildV3 succeeded", err)
		}
	})
}
