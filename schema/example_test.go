package schema_test

import (
	"fmt"

	"github.com/crdkit/crdkit/schema"
)

// The seed documentation's third non-structural example, with the server's
// verdict (the texts are those of apiextensions-apiserver v0.37.2).
func ExampleValidateStructural() {
	p, err := schema.ParseProps([]byte(`{
		"properties": {
			"foo": {"pattern": "abc"},
			"metadata": {"type": "object", "properties": {
				"name": {"type": "string", "pattern": "^a"},
				"finalizers": {"type": "array", "items": {"type": "string", "pattern": "my-finalizer"}}}}},
		"anyOf": [{
			"properties": {"bar": {"type": "integer", "minimum": 42}},
			"required": ["bar"],
			"description": "foo bar object"}]}`))
	if err != nil {
		panic(err)
	}
	if err := schema.BuildError(p); err != nil {
		panic(err)
	}
	for _, e := range schema.ValidateStructural(p, schema.NewPath("openAPIV3Schema")) {
		fmt.Println(e)
	}
	// Output:
	// openAPIV3Schema.anyOf[0].description: Forbidden: must be empty to be structural
	// openAPIV3Schema.anyOf[0].properties[bar].type: Forbidden: must be empty to be structural
	// openAPIV3Schema.properties[bar]: Required value: because it is defined in openAPIV3Schema.anyOf[0].properties[bar]
	// openAPIV3Schema.properties[foo].type: Required value: must not be empty for specified object fields
	// openAPIV3Schema.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified
	// openAPIV3Schema.type: Required value: must not be empty at the root
}

func ExampleBuildError() {
	p, err := schema.ParseProps([]byte(`{"type":"object","properties":{"spec":{"$ref":"#/definitions/Spec"}}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.BuildError(p))
	// Output:
	// OpenAPIV3Schema '$ref' is not supported
}

func ExampleCompile() {
	s, err := schema.CompileJSON([]byte(`{
		"type": "object",
		"properties": {
			"spec": {"type": "object", "properties": {
				"replicas": {"type": "integer", "minimum": 1, "default": 1},
				"image": {"type": "string", "pattern": "^[a-z]+$"}}}}}`))
	if err != nil {
		panic(err)
	}
	for name, p := range s.Property("spec").Properties() {
		def, ok := p.Default()
		fmt.Println(name, p.Type(), def, ok, p.Pattern())
	}
	fmt.Println(s.Summary()&schema.HasDefaults != 0)
	// Output:
	// image string <nil> false ^[a-z]+$
	// replicas integer 1 true <nil>
	// true
}

func ExampleCheckCRDSchema() {
	p, err := schema.ParseProps([]byte(`{"type":"object","properties":{"tags":{
		"type":"array","x-kubernetes-list-type":"map","items":{"type":"string"}}}}`))
	if err != nil {
		panic(err)
	}
	for _, e := range schema.CheckCRDSchema(p, schema.NewPath("openAPIV3Schema"), schema.CreateOptions) {
		fmt.Println(e)
	}
	// Output:
	// openAPIV3Schema.properties[tags].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map
	// openAPIV3Schema.properties[tags].items.type: Invalid value: "string": must be object if parent array's x-kubernetes-list-type is map
}

func ExamplePath() {
	p := schema.NewPath("spec").Child("ports").Index(0).Key("http").Child("name")
	fmt.Println(p)
	// Output:
	// spec.ports[0][http].name
}

func ExampleResolveFieldPath() {
	s, err := schema.ParseProps([]byte(`{"type":"object","properties":{"spec":{"type":"object","properties":{
		"labels":{"type":"object","additionalProperties":{"type":"string"}}}}}}`))
	if err != nil {
		panic(err)
	}
	pth, node, err := schema.ResolveFieldPath(s, ".spec.labels['app.kubernetes.io/name']", true)
	fmt.Println(pth, node.Type, err)
	_, _, err = schema.ResolveFieldPath(s, ".spec.missing", true)
	fmt.Println(err)
	// Output:
	// spec.labels[app.kubernetes.io/name] string <nil>
	// does not refer to a valid field
}
