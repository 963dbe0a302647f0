// Package validatediff checks crdkit's value validation (package schema:
// Schema.Validate, Schema.Valid and Schema.ValidateListTypes) against the
// server's own code in k8s.io/apiextensions-apiserver v0.37.2:
// ValidateCustomResource with the validator of NewSchemaValidator (kube-openapi
// underneath), and listtype.ValidateListSetsAndMaps.
//
// The inputs are every version of every corpus CRD with the corpus objects of
// its kind, objects generated from each schema (package gen: valid objects
// and each keyword broken in turn, and cases with several errors at once),
// targeted mutations of generated objects (wrong types at every kind of
// node, int-or-string values, formats, list duplicates), and the
// JSON-Schema-Test-Suite fixtures kube-openapi ships, wherever both
// implementations accept the schema. A case agrees when both report the same
// causes (field, type and the text after the field) once sorted, and when
// Schema.Valid agrees with Schema.Validate.
//
// TestValidateUpdateAgrees checks ratcheted validation of updates
// (Schema.ValidateUpdate with schema.Correlate) against
// ValidateCustomResourceUpdate with the correlated object the strategies
// build (common.NewCorrelatedObject of the root for a PUT, its child
// "status" with the status schema's validator for a PUT to /status), on
// pairs of an old object (corpus, generated, generated and broken, or an
// invalid generated case) and a new one with one to three changes at random
// sites: values changed, kept, replaced or removed, list-type=map items
// reordered, added, removed or duplicated, items of other lists changed,
// properties added; changes to an invalid old object leave its invalid
// values as they are, so that ratcheting has errors to drop. Synthetic CRDs
// add what the corpus lacks (properties inside anyOf, oneOf, allOf and not,
// composite map keys, constrained kind and status.kind, lists and maps
// holding an invalid value beside valid ones, repeated map keys).
//
// The order of causes is compared too where upstream's is stable: a case
// with several causes is validated by upstream 10 times, and if the order is
// the same every time crdkit's must be the same (validate-order-exact);
// where it changes (it follows map iteration), only the sorted causes are
// compared. A map of up to eight entries reverses two of them in as few as
// one iteration in eight, so before a different order from crdkit counts,
// up to 300 more runs of upstream look for another order. CRDKIT_ORDER_RUNS
// sets the number of runs (default 10).
//
// The package has no API; its tests are the product. Run them with
//
//	go test ./validatediff
//	go test ./validatediff -run X -fuzz FuzzValidateAgrees -fuzztime 120s
//
// The corpus is read from $CRDKIT_CORPUS, or ../../shared/corpus beside the
// repository; its tests skip when it is absent.
package validatediff
