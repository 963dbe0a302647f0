package crdkit_test

import (
	"fmt"
	"os"
	"reflect"

	"github.com/crdkit/crdkit"
)

// CronTab is a controller's typed view of the CronTab custom resource.
type CronTab struct {
	APIVersion string      `json:"apiVersion"`
	Kind       string      `json:"kind"`
	Metadata   Meta        `json:"metadata"`
	Spec       CronTabSpec `json:"spec"`
}

type Meta struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

type CronTabSpec struct {
	CronSpec string `json:"cronSpec"`
	Image    string `json:"image"`
	Replicas *int64 `json:"replicas,omitempty"`
}

// A controller defaults its desired object client-side with the CRD's own
// defaults, so that comparing it with the live object (which the server
// defaulted) shows no spurious difference.
func ExampleDefaultTyped() {
	data, err := os.ReadFile("examples/crontab/crd.yaml")
	if err != nil {
		panic(err)
	}
	crd, err := crdkit.Load(data)
	if err != nil {
		panic(err)
	}
	desired := &CronTab{
		APIVersion: "stable.example.com/v1", Kind: "CronTab",
		Metadata: Meta{Name: "nightly", Namespace: "default"},
		Spec:     CronTabSpec{CronSpec: "0 3 * * *", Image: "backup:1"},
	}
	// What the API server returns for this object (replicas defaulted to 1).
	one := int64(1)
	live := &CronTab{
		APIVersion: "stable.example.com/v1", Kind: "CronTab",
		Metadata: Meta{Name: "nightly", Namespace: "default"},
		Spec:     CronTabSpec{CronSpec: "0 3 * * *", Image: "backup:1", Replicas: &one},
	}
	fmt.Println("equal before defaulting:", reflect.DeepEqual(desired, live))
	if err := crdkit.DefaultTyped(crd.Version("v1"), desired); err != nil {
		panic(err)
	}
	fmt.Println("replicas:", *desired.Spec.Replicas)
	fmt.Println("equal after defaulting:", reflect.DeepEqual(desired, live))
	// Output:
	// equal before defaulting: false
	// replicas: 1
	// equal after defaulting: true
}
