package generate_test

import (
	"fmt"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/generate"
)

const crontabCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab, listKind: CronTabList}
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
`

func Example() {
	crd, err := crdkit.Load([]byte(crontabCRD))
	if err != nil {
		panic(err)
	}
	g, err := generate.ForVersion(crd.Version("v1"), generate.Options{Cases: 40})
	if err != nil {
		panic(err)
	}
	obj, _ := g.Valid(1, "sample")
	data, _ := generate.Marshal(obj)
	fmt.Println(string(data))
	for _, c := range g.Cases()[:12] {
		fmt.Printf("%s: %s\n", c.Name, c.Expect)
	}
	// Output:
	// {"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"sample","namespace":"default"},"spec":{"cronSpec":"37 * * * *","replicas":4}}
	// valid/seed-1: accepted
	// valid/seed-2: accepted
	// valid/seed-3: accepted
	// minimal: accepted
	// rich: accepted
	// unknown-field/crdkitUnknown: accepted
	// null/spec.cronSpec: unstated
	// null-absent/spec.replicas@base1: unstated
	// break-pattern/spec.cronSpec@base1: refused: spec.cronSpec FieldValueInvalid
	// break-minimum/spec.replicas@base1: refused: spec.replicas FieldValueInvalid
	// break-maximum/spec.replicas@base2: refused: spec.replicas FieldValueInvalid
	// break-required/spec.cronSpec: refused: spec.cronSpec FieldValueRequired
}

// A fuzz target of your own CRD: every input is turned into a valid object.
func ExampleGenerator_FromBytes() {
	crd, err := crdkit.Load([]byte(crontabCRD))
	if err != nil {
		panic(err)
	}
	g, err := generate.ForVersion(crd.Version("v1"), generate.Options{})
	if err != nil {
		panic(err)
	}
	for _, input := range [][]byte{nil, []byte("fuzzer input")} {
		obj := g.FromBytes(input)
		res := crd.Version("v1").Create(obj, crdkit.CreateOptions{})
		fmt.Println(res.Err == nil)
	}
	// Output:
	// true
	// true
}
