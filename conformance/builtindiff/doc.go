// Package builtindiff compares crdkit's checks of built-in kinds (package
// builtin) with the API server's own create handler
// (k8s.io/apiserver/pkg/endpoints/handlers) serving those kinds from the
// k8s.io/api types, over a corpus of real-world-shaped manifests.
//
// The conformance oracle runs apiextensions-apiserver, which serves no
// built-in kind, and kube-apiserver's registries (k8s.io/kubernetes) are
// not a module crdkit can depend on. So the oracle here is the server's
// handler code wired as kube-apiserver wires it for a built-in resource:
// a CodecFactory over a scheme of the k8s.io/api types (what the legacy
// scheme decodes a request body into before converting it to its internal
// version), strict and non-strict JSON serializers chosen by
// fieldValidation, the handler's decode-error and strict-warning handling,
// request namespace, owner-reference dedup, field manager, and a storage
// whose Create runs rest.BeforeCreate (name generation, namespace check,
// the strategy's validation, then the generic metadata check). The
// strategy's validation is the metadata part of each kind's validation in
// k8s.io/kubernetes (ValidateObjectMeta with the kind's name rule and the
// core finalizer rule); the rest of the kind's validation is not run on
// either side.
package builtindiff
