package gen_test

import (
	"fmt"

	"github.com/crdkit/crdkit/conformance/gen"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func Example() {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	_ = yaml.Unmarshal([]byte(`
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab}
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
            required: [cronSpec]
            properties:
              cronSpec: {type: string, pattern: '^(\d+|\*)( (\d+|\*)){4}$'}
              replicas: {type: integer, minimum: 1, maximum: 10}
`), crd)
	g, err := gen.New(crd, "v1", gen.Options{Cases: 8})
	if err != nil {
		panic(err)
	}
	obj, _ := gen.Marshal(g.Object(1, "sample"))
	fmt.Println(string(obj))
	for _, c := range g.Cases() {
		fmt.Println(c.Name)
	}
	// Output:
	// {"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"sample","namespace":"default"},"spec":{"cronSpec":"37 * * * *","replicas":4}}
	// valid/seed-1
	// valid/seed-2
	// valid/seed-3
	// minimal
	// rich
	// unknown-field/crdkitUnknown
	// null/spec.cronSpec
	// null-absent/spec.replicas@base1
}
