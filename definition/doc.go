// Package definition holds the API server's checks of a
// CustomResourceDefinition itself, as its registry makes them when a CRD
// is created: the checks of apis/apiextensions/validation
// (ValidateCustomResourceDefinition) on the names, versions, schemas,
// defaults, x-kubernetes-validations rules, subresources, printer columns,
// selectable fields and conversion of a CRD.
//
// The name is the D of CRD: the objects this package checks are the
// definitions, not the custom resources they define (which the facade,
// package crdkit, handles). Its functions take the server's internal form
// of a CRD (k8s.io/apiextensions-apiserver/pkg/apis/apiextensions), the
// form the server validates after decoding, defaulting and converting a
// v1 document; the facade does that conversion.
//
// # Errors
//
// Validate returns a field.ErrorList whose errors are, field, type and
// message, those of the server's 422 response. Where the server's order
// follows Go map iteration (properties of a schema), errors come out in
// property-name order.
//
// # Concurrency and security
//
// The functions keep no state and are safe for concurrent use on distinct
// arguments. Like the server, Validate and ValidateUpdate coerce the
// metadata of embedded resources in the schema defaults of the CRD they
// check, in place (the server then stores the coerced defaults); they
// modify nothing else, and ValidateUpdate never the live CRD. Schema walks are bounded in depth, CEL rules in
// cost (the server's limits).
package definition
