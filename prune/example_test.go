package prune_test

import (
	"encoding/json"
	"fmt"

	"github.com/crdkit/crdkit/prune"
	"github.com/crdkit/crdkit/schema"
)

func ExampleObject() {
	s, err := schema.CompileJSON([]byte(`{
		"type": "object",
		"properties": {
			"spec": {
				"type": "object",
				"properties": {
					"replicas": {"type": "integer"},
					"ports": {"type": "array", "items": {"type": "object", "properties": {"port": {"type": "integer"}}}},
					"config": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
				}
			}
		}
	}`))
	if err != nil {
		panic(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(`{
		"apiVersion": "example.com/v1",
		"kind": "Widget",
		"metadata": {"name": "w"},
		"spec": {
			"replicas": 2,
			"replcias": 3,
			"ports": [{"port": 80}, {"port": 443, "protcol": "TCP"}],
			"config": {"anything": {"goes": true}}
		},
		"extra": true
	}`), &obj); err != nil {
		panic(err)
	}

	pruned := prune.Object(obj, s, prune.Options{Root: true}, nil)
	out, _ := json.Marshal(obj)
	fmt.Println(string(out))
	fmt.Println(pruned)
	// Output:
	// {"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"config":{"anything":{"goes":true}},"ports":[{"port":80},{"port":443}],"replicas":2}}
	// [extra spec.ports[1].protcol spec.replcias]
}

func ExampleCopy() {
	s, err := schema.CompileJSON([]byte(`{"type": "object", "properties": {"spec": {"type": "object", "properties": {"a": {}}}}}`))
	if err != nil {
		panic(err)
	}
	in := map[string]any{"spec": map[string]any{"a": 1, "b": 2}}

	out, pruned := prune.Copy(in, s, prune.Options{}, nil)
	fmt.Println(out, pruned)
	fmt.Println(in)
	// Output:
	// map[spec:map[a:1]] [spec.b]
	// map[spec:map[a:1 b:2]]
}

func ExampleJSON() {
	s, err := schema.CompileJSON([]byte(`{
		"type": "object",
		"properties": {
			"spec": {"type": "object", "properties": {"replicas": {"type": "integer"}, "ratio": {"type": "number"}}}
		}
	}`))
	if err != nil {
		panic(err)
	}
	body := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},
		"spec":{"replicas":2,"ratio":0.5,"replcias":{"skipped":[1,2,3]}},"extra":true}`)
	obj, pruned, ok := prune.JSON(body, s, prune.Options{Root: true}, nil)
	fmt.Println(ok, pruned)
	spec := obj["spec"].(map[string]any)
	fmt.Printf("%T %T\n", spec["replicas"], spec["ratio"])

	// A duplicate key: the caller decodes with the server's decoder instead.
	_, _, ok = prune.JSON([]byte(`{"spec":{"replicas":1,"replicas":2}}`), s, prune.Options{Root: true}, nil)
	fmt.Println(ok)
	// Output:
	// true [extra spec.replcias]
	// int64 float64
	// false
}
