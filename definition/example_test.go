package definition_test

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit/definition"
)

// internal decodes a v1 CRD document into the server's internal form, as
// the server does before it validates a CRD create.
func internal(doc string) *apiextensions.CustomResourceDefinition {
	v1 := new(apiextensionsv1.CustomResourceDefinition)
	if err := yaml.UnmarshalStrict([]byte(doc), v1); err != nil {
		panic(err)
	}
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(v1)
	out := new(apiextensions.CustomResourceDefinition)
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(v1, out, nil); err != nil {
		panic(err)
	}
	out.Status.StoredVersions = []string{"v1"}
	return out
}

// A default of the wrong type. The only version's schema is reported at
// spec.validation, where the server's conversion lifts a schema that every
// version shares; the value check names no field, as the server's does.
func ExampleValidate() {
	crd := internal(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: big}
`)
	for _, e := range definition.Validate(crd) {
		fmt.Println(e)
	}
	// Output:
	// spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "string":  in body must be of type integer: "string"
}

// The server's CRD strategy warns about formats it does not recognize (it
// then validates nothing for them) and about set lists of objects.
func ExampleWarningsOnCreate() {
	crd := internal(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          port: {type: integer, format: uint16}
          when: {type: string, format: date-time}
`)
	fmt.Println(definition.WarningsOnCreate(crd))
	// Output:
	// [unrecognized format "uint16"]
}
