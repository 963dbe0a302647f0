// Package openapidiff compares crdkit's openapi package with the server's own
// OpenAPI builder (k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder)
// on the corpus CRDs and on CRDs written to exercise each publishing rule.
package openapidiff
