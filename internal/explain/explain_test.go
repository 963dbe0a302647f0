package explain

import (
	"bytes"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func widget(versions ...string) *apiextensionsv1.CustomResourceDefinition {
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
		Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}},
	}}
	for _, v := range versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: true,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Description: "the " + v + " spec"}}}}})
	}
	return crd
}

func TestResource(t *testing.T) {
	crds := []*apiextensionsv1.CustomResourceDefinition{widget("v1beta1", "v1", "v1alpha1")}
	for _, tc := range []struct {
		arg  string
		gv   schema.GroupVersion
		want []string
	}{
		{"widgets", schema.GroupVersion{}, []string{"KIND:       Widget", "VERSION:    v1\n", "the v1 spec"}},
		{"wd.spec", schema.GroupVersion{}, []string{"FIELD: spec <Object>", "the v1 spec"}},
		{"Widget", schema.GroupVersion{Group: "example.com", Version: "v1alpha1"}, []string{"VERSION:    v1alpha1", "the v1alpha1 spec"}},
		{"widgets.example.com.spec", schema.GroupVersion{}, []string{"the v1 spec"}},
	} {
		var b bytes.Buffer
		if err := Resource(&b, crds, tc.arg, tc.gv, false); err != nil {
			t.Errorf("Resource(%s, %v) = %v", tc.arg, tc.gv, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("Resource(%s, %v) = %s, want it to contain %q", tc.arg, tc.gv, b.String(), w)
			}
		}
	}
	var b bytes.Buffer
	if err := Resource(&b, crds, "gadgets", schema.GroupVersion{}, false); err == nil {
		t.Error("Resource(gadgets) = nil error, want not found")
	}
}
