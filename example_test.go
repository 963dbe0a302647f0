package crdkit_test

import (
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crdkit/crdkit"
)

const crontab = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
            properties:
              cronSpec: {type: string}
              replicas: {type: integer}
  - name: v1beta1
    served: true
    storage: false
    deprecated: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`

func ExampleLoad() {
	crd, err := crdkit.Load([]byte(crontab))
	if err != nil {
		panic(err)
	}
	for _, v := range crd.Versions() {
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%s storage=%t %s", v.Name(), v.Storage(), v.DeprecationWarning())))
	}
	// Output:
	// v1 storage=true
	// v1beta1 storage=false stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab
}

func ExampleLoad_refused() {
	bad := []byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
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
          spec: {properties: {replicas: {type: integer}}}
`)
	_, err := crdkit.Load(bad)
	var se *apierrors.StatusError
	if errors.As(err, &se) {
		st := se.Status()
		fmt.Println(st.Code, st.Reason)
		for _, c := range st.Details.Causes {
			fmt.Printf("%s: %s\n", c.Field, c.Message)
		}
	}
	// Output:
	// 422 Invalid
	// spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields
}

// A dry-run update over the live object: the CRD was tightened (image has a
// maxLength now) after the live object was stored. An update that keeps the
// long image is let through (ratcheting), one that changes it is not.
func ExampleVersion_UpdateJSON() {
	crd, err := crdkit.Load([]byte(`
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: crontabs.stable.example.com}
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, singular: crontab, kind: CronTab}
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
            properties:
              image: {type: string, maxLength: 8}
              replicas: {type: integer}
`))
	if err != nil {
		panic(err)
	}
	live := map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly", "namespace": "default", "resourceVersion": "42", "generation": int64(1)},
		"spec":     map[string]any{"image": "registry.example.com/backup", "replicas": int64(1)}}
	v := crd.Version("v1")
	res := v.UpdateJSON([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"42"},
		"spec":{"image":"registry.example.com/backup","replicas":2}}`), live, crdkit.UpdateOptions{})
	fmt.Println(res.Err, res.Object["metadata"].(map[string]any)["generation"])
	res = v.UpdateJSON([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"42"},
		"spec":{"image":"registry.example.com/restore","replicas":1}}`), live, crdkit.UpdateOptions{})
	fmt.Println(res.Err)
	res = v.UpdateJSON([]byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","resourceVersion":"41"},
		"spec":{"image":"registry.example.com/backup","replicas":3}}`), live, crdkit.UpdateOptions{})
	fmt.Println(res.Err)
	// Output:
	// <nil> 2
	// CronTab.stable.example.com "nightly" is invalid: spec.image: Too long: may not be more than 8 bytes
	// Operation cannot be fulfilled on crontabs.stable.example.com "nightly": the object has been modified; please apply your changes to the latest version and try again
}
