package builtin_test

import (
	"fmt"

	"github.com/crdkit/crdkit/builtin"
)

func Example() {
	c := builtin.New()
	body := []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings"},"data":{"PORT":8080}}`)
	res := c.Check(body, "v1", "ConfigMap", builtin.Options{FieldValidation: "Strict"})
	fmt.Println(res.Status().Code, res.Err)

	body = []byte(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replica":2}}`)
	res = c.Check(body, "apps/v1", "Deployment", builtin.Options{FieldValidation: "Warn"})
	fmt.Println(res.Err, res.Warnings, res.Namespace)
	// Output:
	// 400 ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string
	// <nil> [unknown field "spec.replica"] default
}
