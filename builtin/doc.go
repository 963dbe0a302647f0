// Package builtin checks documents of the kinds Kubernetes serves itself
// (apps/v1 Deployment, v1 Service and ConfigMap, batch/v1 Job, ...) as far
// as the API server's checks can be reproduced without its internal
// packages: what its create handler does before the kind's own
// validation, and the metadata part of that validation.
//
// A [Checker] decodes a JSON document into the kind's k8s.io/api type with
// the server's JSON serializer (a CodecFactory's, strict in the Strict and
// Warn field validations), and answers as the server does: a field of the
// wrong type is its 400 ("Deployment in version "v1" cannot be handled as
// a Deployment: json: cannot unmarshal ..."); unknown and duplicate fields
// are its 400 in Strict and its warnings in Warn; the request namespace is
// checked and set; duplicate owner references are dropped with its
// warning; then the object metadata is validated as the kind's validation
// validates it (the generic ObjectMeta checks with the kind's name rule,
// the core rule on finalizer names, CronJob's name limit): its 422.
//
// # What is not checked
//
// The kind's own validation (a Deployment's selector against its
// template, a Service's ports, ...) lives in k8s.io/kubernetes, which is
// not importable, and is not run: an object Check lets through may still
// be refused by the server. Defaults are not applied, admission is not
// run, and the object the server would store is not computed. Output
// built on this package should say so; [Checks] names the level.
//
// # Terminology
//
// The name rules ([NameRule]) are those of apimachinery's validators:
// DNS-1123 subdomain, DNS-1123 label, DNS-1035 label, path segment.
//
// # Concurrency
//
// A Checker is immutable and safe for concurrent use. New costs about
// 1 ms (the scheme and codec factory); build one and keep it.
//
// # Errors
//
// Result.Err is nil or an *apierrors.StatusError shaped as the server's
// (code, reason, message, causes). Check never panics: should the
// decoder, it answers 500 as the server's panic filter would.
//
// # Security
//
// Check reads the whole body; callers bound its size. The decoder is
// apimachinery's, with its depth limits.
package builtin
