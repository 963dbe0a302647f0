// Package celdiff checks crdkit's CEL rules (package rules) against the
// server's own code in k8s.io/apiextensions-apiserver v0.37.2.
//
// Evaluation: for every version of every corpus CRD whose schema has
// x-kubernetes-validations rules, rules.Compile + Validator.Validate is
// compared with cel.NewValidator(structural, true, PerCallLimit).Validate on a
// create (no old object) with RuntimeCELCostBudget, on the corpus objects of
// the kind, objects generated from the schema (package gen), and mutations of
// generated objects aimed at the nodes that carry rules (flipped numbers,
// emptied and long strings, wrong formats, dropped properties, duplicated and
// multiplied list items, nulls). A case agrees when both report the same
// errors (the full Error() text: field, type and detail) once sorted, and the
// same remaining budget.
//
// Updates: rules.Validator.ValidateUpdate is compared with the same
// validator's Validate given the old object and the server strategy's
// correlated object (common.NewCorrelatedObject over the structural schema,
// cel.WithRatcheting) and a warning recorder in the context, on pairs built
// from generated objects (no change; a value changed, fixed, kept while
// another changes; items of map, set and atomic lists reordered, removed,
// added and changed), for every corpus CRD version with rules as it is and
// with rules injected at values of the objects (an always-failing rule,
// self == oldSelf, an optionalOldSelf rule, and both in an allOf). A case
// agrees when the errors, the ratcheted warnings (sorted) and the budget
// left are the same.
//
// CRD-time checks: rules.Check is compared with the x-kubernetes-validations
// errors of validation.ValidateCustomResourceDefinition on the corpus CRDs
// and on CRDs whose rules were mutated (syntax errors, non-bool results, bad
// fieldPath, bad messageExpression, reasons, cost bombs).
//
// The package has no API; its tests are the product:
//
//	go test -v ./celdiff
//
// The corpus is read from $CRDKIT_CORPUS, or ../../shared/corpus beside the
// repository; the tests skip when it is absent.
package celdiff
