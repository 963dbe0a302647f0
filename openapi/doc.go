// Package openapi builds the OpenAPI documents the Kubernetes API server
// (apiextensions-apiserver v0.37) publishes for CustomResourceDefinitions,
// offline and exactly: the document at /openapi/v3/apis/GROUP/VERSION
// (BuildV3) and the CRDs' part of /openapi/v2 (BuildV2).
//
// # What the server publishes
//
// For every served version of an established CRD, the server registers the
// routes of its resource (list, create, delete collection; get, replace,
// delete, patch; the same under /status and /scale when the version has
// those subresources; list across namespaces for a namespaced CRD) and two
// definitions: the kind, and its list. The kind's definition is the version's
// schema as the server's structural schema holds it, with
// x-kubernetes-int-or-string spelled out as anyOf [integer, string], the
// built-in apiVersion, kind and metadata (a $ref to ObjectMeta) at the root
// and in every embedded resource, and the x-kubernetes-group-version-kind and
// x-kubernetes-selectable-fields extensions. Unserved versions are not
// published; deprecation does not show.
//
// OpenAPI v3 keeps everything: nullable, defaults, bounds, patterns, enums,
// junctors, CEL rules (x-kubernetes-validations), list and map types. A $ref
// with siblings is wrapped in a one-element allOf. The document also carries
// the built-in schemas its references need (ObjectMeta, Status,
// DeleteOptions, Patch, Scale, …), taken from the server's generated
// definitions.
//
// OpenAPI v2 cannot say most of that, and old clients refuse what they
// cannot read, so the server rewrites: allOf, anyOf, oneOf and not are
// dropped; a nullable field loses its type, properties and items and leaves
// its parent's required list; a preserve-unknown-fields node loses its
// properties and items (and its type when it is an object); an array left
// without items loses its type; a root that preserves unknown fields becomes
// a bare {"type": "object"}; every default is removed. Parameters shared
// between operations are moved to the document's parameters and named by a
// hash of their content, as the server names them (pretty-tJGM1-ng, …), so
// they merge with the server's own. BuildV2 returns only what the CRDs
// contribute: their paths, their definitions and the shared parameters their
// paths reference; the built-in definitions are referenced, not included.
//
// # Numbers
//
// Defaults, enums and examples are decoded as the server decodes them: a
// number written without a fraction or exponent that fits in int64 is an
// int64 and keeps every digit (9007199254740993 is published as
// 9007199254740993), any other number is a float64. Bounds (maximum,
// minimum, multipleOf) are float64s in the CRD type itself, so a bound past
// 2^53 is published rounded, in both documents, as the server publishes it.
//
// # Input
//
// The CRDs must be ones the server accepts (crdkit.Lint reports why it would
// not), with the server's defaults applied (crdkit.Load and
// (*crdkit.CRD).Definition do both); the server publishes only established
// CRDs. The inputs are not modified.
//
// # Concurrency and sharing
//
// The functions are safe for concurrent use. The built-in schemas are
// computed once per process and shared by every v3 document: treat returned
// documents as read-only.
//
// # Errors
//
// BuildV3 returns ErrNotFound when no CRD serves the group version (the
// server's 404). Schema walks are bounded in depth.
package openapi
