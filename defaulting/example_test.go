package defaulting_test

import (
	"encoding/json"
	"fmt"

	"github.com/crdkit/crdkit/defaulting"
	"github.com/crdkit/crdkit/schema"
)

// The nullable example of the Kubernetes documentation: foo is not nullable
// and is defaulted, bar is nullable and keeps its null, baz is neither
// nullable nor defaulted and is dropped.
func Example() {
	s, err := schema.CompileJSON([]byte(`{
		"type": "object",
		"properties": {
			"spec": {
				"type": "object",
				"properties": {
					"foo": {"type": "string", "nullable": false, "default": "default"},
					"bar": {"type": "string", "nullable": true},
					"baz": {"type": "string"}
				}
			}
		}
	}`))
	if err != nil {
		panic(err)
	}
	var obj map[string]any
	if err := json.Unmarshal([]byte(`{"spec": {"foo": null, "bar": null, "baz": null}}`), &obj); err != nil {
		panic(err)
	}

	// The server's order: nulls are pruned while decoding, defaults come after.
	defaulting.PruneNulls(obj, s)
	defaulting.Apply(obj, s)

	out, _ := json.Marshal(obj)
	fmt.Println(string(out))
	// Output: {"spec":{"bar":null,"foo":"default"}}
}

// Defaults nested inside a default are applied too: spec defaults to an
// empty object, which then receives the defaults of its own properties.
func ExampleApply() {
	s, err := schema.CompileJSON([]byte(`{
		"type": "object",
		"properties": {
			"spec": {
				"type": "object",
				"default": {},
				"properties": {
					"cronSpec": {"type": "string", "default": "5 0 * * *"},
					"replicas": {"type": "integer", "default": 1}
				}
			}
		}
	}`))
	if err != nil {
		panic(err)
	}
	obj := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab"}
	defaulting.Apply(obj, s)

	out, _ := json.Marshal(obj)
	fmt.Println(string(out))
	// Output: {"apiVersion":"stable.example.com/v1","kind":"CronTab","spec":{"cronSpec":"5 0 * * *","replicas":1}}
}
