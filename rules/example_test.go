package rules_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/crdkit/crdkit/rules"
	"github.com/crdkit/crdkit/schema"
)

func Example() {
	s, err := schema.CompileJSON([]byte(`{
	  "type": "object",
	  "properties": {
	    "spec": {
	      "type": "object",
	      "x-kubernetes-validations": [
	        {"rule": "self.minReplicas <= self.maxReplicas", "message": "minReplicas must not exceed maxReplicas"},
	        {"rule": "self.name.startsWith('app-')", "messageExpression": "'name ' + self.name + ' must start with app-'", "fieldPath": ".name"}
	      ],
	      "properties": {
	        "name": {"type": "string", "maxLength": 63},
	        "minReplicas": {"type": "integer"},
	        "maxReplicas": {"type": "integer"}
	      }
	    }
	  }
	}`))
	if err != nil {
		panic(err)
	}
	v, err := rules.Compile(s)
	if err != nil {
		panic(err)
	}
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"},
		"spec":     map[string]any{"name": "web", "minReplicas": int64(5), "maxReplicas": int64(3)},
	}
	errs, left := v.Validate(obj, rules.RuntimeBudget)
	for _, e := range errs {
		fmt.Println(e)
	}
	fmt.Println(left < rules.RuntimeBudget)

	// At CRD time: an expression that does not compile.
	bad, _ := schema.CompileJSON([]byte(`{"type":"object","properties":{"spec":{"type":"object",
	  "x-kubernetes-validations":[{"rule":"self.replicas > 0"}]}}}`))
	for _, e := range rules.Check(bad, field.NewPath("spec", "validation", "openAPIV3Schema"), nil) {
		fmt.Println(e.Field, e.Type)
	}
	// Output:
	// spec: Invalid value: minReplicas must not exceed maxReplicas
	// spec.name: Invalid value: name web must start with app-
	// true
	// spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule Invalid value
}
