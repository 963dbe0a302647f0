package upgrade_test

import (
	"fmt"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/upgrade"
)

const manifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets, kind: Widget}
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
              size: {type: integer, maximum: 100}
`

// A maximum lowered below a value an object holds: the server accepts the
// CRD update, the object's no-op update passes (ratcheting), any change of
// the value and a create of the same content are refused.
func ExampleCheck() {
	live, next := new(apiextensionsv1.CustomResourceDefinition), new(apiextensionsv1.CustomResourceDefinition)
	_ = yaml.Unmarshal([]byte(manifest), live)
	_ = yaml.Unmarshal([]byte(strings.Replace(manifest, "maximum: 100", "maximum: 10", 1)), next)
	live, _ = crdkit.Installed(live)
	next.ResourceVersion = live.ResourceVersion
	obj := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default", "resourceVersion": "7"},
		"spec":     map[string]any{"size": int64(50)}}
	r, err := upgrade.Check(live, next, []map[string]any{obj})
	if err != nil {
		panic(err)
	}
	fmt.Println("update:", r.Update.Code)
	fmt.Println("change:", r.Changes[0])
	o := r.Objects[0]
	fmt.Println("no-op update:", o.NoOpUpdate.Code, "create:", o.Create.Code)
	fmt.Println("ratcheted:", o.Ratcheted[0].Field, "change to", o.Ratcheted[0].Change, "->", o.Ratcheted[0].ChangeVerdict.Code)
	// Output:
	// update: 200
	// change: spec.size: maximum tightened (100 -> 10)
	// no-op update: 200 create: 422
	// ratcheted: spec.size change to 51 -> 422
}
