package crdjson_test

import (
	"fmt"

	"github.com/crdkit/crdkit/internal/crdjson"
)

func ExampleDecode() {
	crd, ok := crdjson.Decode([]byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
		"metadata":{"name":"crontabs.stable.example.com"},
		"spec":{"group":"stable.example.com","names":{"plural":"crontabs","kind":"CronTab"},"scope":"Namespaced",
		"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object",
		"properties":{"spec":{"type":"object","properties":{"replicas":{"type":"integer","minimum":1,"default":1}}}}}}}]}}`))
	fmt.Println(ok, crd.Name, string(crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["replicas"].Default.Raw))

	// Not sure: a key the type does not have (upstream's strict decoder
	// reports it; the caller decodes as before to keep its message).
	_, ok = crdjson.Decode([]byte(`{"kind":"CustomResourceDefinition","spec":{"grop":"x"}}`))
	fmt.Println(ok)
	// Output:
	// true crontabs.stable.example.com 1
	// false
}
