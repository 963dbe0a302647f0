package openapi_test

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"github.com/crdkit/crdkit/openapi"
)

func cronTab() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ListKind: "CronTabList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Required: []string{"image"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"image": {Type: "string", Nullable: true},
							"port":  {XIntOrString: true},
						}},
					},
				}},
			}},
		},
	}
}

func ExampleBuildV3() {
	doc, err := openapi.BuildV3([]*apiextensionsv1.CustomResourceDefinition{cronTab()}, "stable.example.com", "v1")
	if err != nil {
		panic(err)
	}
	spec := doc.Components.Schemas["com.example.stable.v1.CronTab"].Properties["spec"]
	port := spec.Properties["port"]
	fmt.Println("required:", spec.Required)
	fmt.Println("port anyOf:", port.AnyOf[0].Type, port.AnyOf[1].Type)
	fmt.Println("get:", doc.Paths.Paths["/apis/stable.example.com/v1/namespaces/{namespace}/crontabs/{name}"].Get.OperationId)
	// Output:
	// required: [image]
	// port anyOf: [integer] [string]
	// get: readStableExampleComV1NamespacedCronTab
}

func ExampleBuildV2() {
	doc, err := openapi.BuildV2([]*apiextensionsv1.CustomResourceDefinition{cronTab()})
	if err != nil {
		panic(err)
	}
	spec := doc.Definitions["com.example.stable.v1.CronTab"].Properties["spec"]
	// v2 drops the nullable field from required and the int-or-string junctors.
	fmt.Println("required:", spec.Required)
	fmt.Println("port anyOf:", len(spec.Properties["port"].AnyOf))
	fmt.Println("list parameters:", len(doc.Paths["/apis/stable.example.com/v1/crontabs"].Parameters))
	// Output:
	// required: []
	// port anyOf: 0
	// list parameters: 12
}
