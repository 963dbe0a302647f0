package crdkit_test

import (
	"errors"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/crdkit/crdkit"
	"github.com/crdkit/crdkit/openapi"
	"github.com/crdkit/crdkit/printcolumns"
	"github.com/crdkit/crdkit/rules"
)

// The inputs of the tour.
var (
	yamlOrJSON = []byte(`
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
    subresources: {status: {}, scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}}
    additionalPrinterColumns: [{name: Replicas, type: integer, jsonPath: .spec.replicas}]
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations: [{rule: "self.replicas <= 5 || has(self.image)", message: "many replicas need an image"}]
            properties:
              cronSpec: {type: string}
              image: {type: string, maxLength: 8}
              replicas: {type: integer, default: 1}
          status: {type: object, properties: {phase: {type: string}}}
  - {name: v1beta1, served: true, storage: false, deprecated: true, schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
`)
	body = []byte(`{"apiVersion":"stable.example.com/v1","kind":"CronTab","metadata":{"name":"nightly","namespace":"default","resourceVersion":"7"},
		"spec":{"cronSpec":"0 3 * * *","image":"backup:v1234","colour":"blue"}}`)
	live = map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab",
		"metadata": map[string]any{"name": "nightly", "namespace": "default", "resourceVersion": "7", "generation": int64(2), "uid": "u1"},
		"spec":     map[string]any{"cronSpec": "0 3 * * *", "image": "backup:v1234", "replicas": int64(1)}}
	obj           = map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "x"}, "spec": map[string]any{"replicas": int64(9)}}
	objects       = []map[string]any{live}
	applyConfig   = []byte("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata: {name: nightly, namespace: default}\nspec: {image: \"backup:2\"}\n")
	data          = []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"x"},"spec":{}}`)
	myTypedObject = TourCronTab{APIVersion: "stable.example.com/v1", Kind: "CronTab"}
)

// TourCronTab is a controller's Go type for the tour's CRD.
type TourCronTab struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Spec       struct {
		CronSpec string `json:"cronSpec,omitempty"`
		Replicas *int64 `json:"replicas,omitempty"`
	} `json:"spec"`
}

// Example is the README's quick tour of the API: TestREADMETour checks that
// the README shows the lines between the tour markers, as they are here.
func Example() {
	// tour:begin
	crd, err := crdkit.Load(yamlOrJSON) // one apiextensions.k8s.io/v1 CRD
	var se *apierrors.StatusError
	if errors.As(err, &se) { // refused: the server's Status, byte for byte
		st := se.Status() // 400 when the document does not decode, 422 with causes
		fmt.Println(st.Code, st.Message)
	}
	bad, _ := crdkit.Load(data, crdkit.LoadOptions{AllowInvalid: true}) // load anyway, then:
	errs := bad.Lint()                                                  // field.ErrorList: what the server reports on create
	fmt.Println(len(errs), errs[0])

	for _, v := range crd.Versions() { // priority order, as kubectl and discovery use
		fmt.Printf("%s served=%t storage=%t %q\n", v.Name(), v.Served(), v.Storage(), v.DeprecationWarning())
	}

	v := crd.Version("v1")
	// a dry-run create
	res := v.CreateJSON(body, crdkit.CreateOptions{FieldValidation: crdkit.Warn})
	fmt.Println(res.Err)      // nil, or an *apierrors.StatusError: 400 decoding / strict errors, 422 with causes
	fmt.Println(res.Warnings) // its Warning headers: deprecation, unknown and duplicate fields, finalizer names
	fmt.Println(res.Pruned)   // the paths pruning removed
	_ = res.Object            // what the server returns (pruned, defaulted, stored and read back); nil when refused

	// a dry-run PUT over the live object (as GET returns it): resourceVersion, generation, status kept,
	// ratcheting (unchanged invalid values pass), transition rules (oldSelf); and a PUT to /status
	res = v.UpdateJSON(body, live, crdkit.UpdateOptions{FieldValidation: crdkit.Warn})
	fmt.Println(res.Err, res.Object["spec"], res.Object["metadata"].(map[string]any)["generation"])
	res = v.UpdateStatusJSON(body, live, crdkit.UpdateOptions{})
	fmt.Println(res.Err)

	// PATCH over the live object: a merge patch (or JSON patch), and a server-side apply; results
	// carry metadata.managedFields as the server writes them (ManagedFields.Omit leaves them out)
	res = v.Patch(crdkit.MergePatch, []byte(`{"spec":{"replicas":3}}`), live, crdkit.PatchOptions{})
	fmt.Println(res.Err, res.Object["spec"])
	res = v.Apply(applyConfig, live, crdkit.PatchOptions{ManagedFields: crdkit.ManagedFields{FieldManager: "gitops"}})
	fmt.Println(res.Err) // a 409 names the managers whose fields the apply would change; Force takes them

	// the rest of an object's life: DELETE (with finalizers the object is kept, with a deletionTimestamp;
	// an update that removes the last one deletes it: res.Deleted), list selectors, the scale subresource
	res = v.Delete(live, crdkit.DeleteOptions{})
	fmt.Println(res.Err, res.Deleted, res.Code)
	items, err := v.List(objects, crdkit.ListOptions{LabelSelector: "!app", FieldSelector: "metadata.name=nightly"})
	fmt.Println(len(items), err)
	res = v.PatchScale(crdkit.MergePatch, []byte(`{"spec":{"replicas":3}}`), live, crdkit.UpdateOptions{}) // PATCH /scale
	fmt.Println(res.Err, res.Object["spec"], res.Parent["spec"])

	stored, err := v.Read(live)                  // the read path: storage-version defaults, conversion
	v.Default(obj)                               // client-side defaulting before a diff (in place)
	err = crdkit.DefaultTyped(v, &myTypedObject) // the same for a controller's Go struct
	fmt.Println(stored["spec"], *myTypedObject.Spec.Replicas, err)

	table, err := v.Table(objects, printcolumns.TableOptions{}) // the server's metav1.Table
	fmt.Println(table.ColumnDefinitions[1].Name, table.Rows[0].Cells[1], err)

	// x-kubernetes-validations: compiled in Load, evaluated by Create; also on their own:
	ruleErrs, _ := v.Rules().Validate(obj, rules.RuntimeBudget)
	fmt.Println(ruleErrs)

	// what the server publishes at /openapi/v3/apis/<group>/<version> (and /openapi/v2: BuildV2)
	doc, err := openapi.BuildV3([]*apiextensionsv1.CustomResourceDefinition{crd.Definition()}, crd.Group(), "v1")
	fmt.Println(len(doc.Paths.Paths), err)
	// tour:end

	// Output:
	// 9 metadata.name: Invalid value: "x": must be spec.names.plural+"."+spec.group
	// v1 served=true storage=true ""
	// v1beta1 served=true storage=false "stable.example.com/v1beta1 CronTab is deprecated; use stable.example.com/v1 CronTab"
	// CronTab.stable.example.com "nightly" is invalid: [spec.image: Too long: may not be more than 8 bytes, <nil>: Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation]
	// [unknown field "spec.colour"]
	// [spec.colour]
	// <nil> map[cronSpec:0 3 * * * image:backup:v1234 replicas:1] 2
	// <nil>
	// <nil> map[cronSpec:0 3 * * * image:backup:v1234 replicas:3]
	// Apply failed with 1 conflict: conflict with "before-first-apply" using stable.example.com/v1: .spec.image
	// <nil> true 200
	// 1 <nil>
	// <nil> map[replicas:3] map[cronSpec:0 3 * * * image:backup:v1234 replicas:3]
	// map[cronSpec:0 3 * * * image:backup:v1234 replicas:1] 1 <nil>
	// Replicas 1 <nil>
	// [spec: Invalid value: many replicas need an image]
	// 5 <nil>
}
