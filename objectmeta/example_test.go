package objectmeta_test

import (
	"fmt"

	"github.com/crdkit/crdkit/objectmeta"
	"github.com/crdkit/crdkit/schema"
)

func ExampleGet() {
	obj := map[string]any{"metadata": map[string]any{
		"name":   "web",
		"labels": map[string]any{"app": "web"},
		"colour": "blue", // not an ObjectMeta field
	}}
	meta, _, unknown, err := objectmeta.Get(obj, objectmeta.GetOptions{ReturnUnknownFieldPaths: true, Prefix: "metadata"})
	fmt.Println(meta.Name, meta.Labels, unknown, err)
	_ = objectmeta.Set(obj, meta)
	fmt.Println(obj["metadata"])
	// Output:
	// web map[app:web] [metadata.colour] <nil>
	// map[labels:map[app:web] name:web]
}

func ExampleValidate() {
	s, _ := schema.Compile(&schema.Props{Type: "object", Properties: map[string]*schema.Props{
		"template": {Type: "object", XEmbeddedResource: true, XPreserveUnknownFields: boolPtr(true)},
	}})
	obj := map[string]any{"template": map[string]any{
		"kind":     "Pod",
		"metadata": map[string]any{"name": "a/b"},
	}}
	for _, e := range objectmeta.Validate(nil, obj, s, objectmeta.ValidateOptions{}) {
		fmt.Println(e)
	}
	// Output:
	// template.apiVersion: Required value
	// template.metadata.name: Invalid value: "a/b": may not contain '/'
}

func ExampleFinalizerWarnings() {
	obj := map[string]any{"metadata": map[string]any{"finalizers": []any{"cleanup", "example.com/cleanup"}}}
	for _, w := range objectmeta.FinalizerWarnings(obj) {
		fmt.Println(w)
	}
	// Output:
	// metadata.finalizers: "cleanup": prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers
}

func boolPtr(b bool) *bool { return &b }
