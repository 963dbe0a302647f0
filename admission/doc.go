// Package admission serves Kubernetes admission webhooks (AdmissionReview
// admission.k8s.io/v1 and v1beta1) built on crdkit's pipelines, for
// objects of the CRDs they are given.
//
// A [Validator] answers as the API server would answer a dry-run create of
// each object, or on UPDATE a dry-run update of its old counterpart
// (ratcheting and transition rules included; a PUT to /status for the
// status subresource): allowed with the server's Warning headers, or
// denied with the server's Status (code, reason, message and causes, byte
// for byte). A
// [Mutator] answers with the RFC 6902 JSON patch that turns each object
// into what the server's decoder makes of it: unknown fields pruned,
// non-nullable nulls dropped, embedded resources coerced, defaults applied.
// Hooks ([Hook]) run the user's own checks after crdkit's.
//
// The objects need not be the reviewed object itself: Options.Manifests
// says where, inside a reviewed object, the objects to check are (see
// [ListAt]). That is the use for control planes that hold other clusters'
// objects as embedded manifests (GitOps controllers, multi-cluster work
// objects, composition engines) and want each checked exactly as its
// target cluster would check it before it is sent there.
//
// # Terminology
//
// A manifest is an object of one of the handler's CRDs (by apiVersion and
// kind) inside a reviewed object, found by an RFC 6901 JSON pointer ("" is
// the reviewed object itself). Manifests of other kinds are not checked.
//
// # Errors
//
// ServeHTTP refuses with 405 a method other than POST, with 413 a body over
// Options.MaxBodyBytes (DefaultMaxBodyBytes), and with 400 a body that is
// not JSON or not an AdmissionReview with a request, or has a Content-Type
// other than application/json. Otherwise it answers 200 with an
// AdmissionReview of the request's version and uid. A denied request's
// Status is crdkit's for the first refused manifest, or the hook's.
//
// # Concurrency
//
// Validator and Mutator are immutable and safe for concurrent use; hooks
// must be too.
//
// # Security
//
// Bodies are bounded, and crdkit bounds the work per object (depth, sizes,
// CEL cost). The handlers do not authenticate callers: serve them over TLS
// to the API server only (see examples/admission-webhook).
package admission
