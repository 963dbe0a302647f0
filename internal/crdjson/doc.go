// Package crdjson decodes a CustomResourceDefinition's JSON text without
// reflection, for the inputs where it is sure of the answer.
//
// Decode is a fast path in front of sigs.k8s.io/json's UnmarshalStrict: when
// it answers ok, its CRD is exactly the one UnmarshalStrict gives, and
// UnmarshalStrict reports neither an error nor a strict error (an unknown or
// a repeated field) on the same text. On anything else (invalid JSON, an
// unknown or repeated key, a null outside raw JSON values, a value of
// another JSON type than the field's, a number the field refuses, nesting
// deeper than maxDepth, a key with an escape, a string with a lone surrogate
// or invalid UTF-8, a field it does not decode) it answers not ok
// and the caller decodes as before, keeping upstream's errors and warnings.
//
// Fields it does not decode (it answers not ok when they are present):
// metadata's timestamps (but a null creationTimestamp), ownerReferences and
// managedFields; spec.conversion.webhook; non-empty status.conditions; a
// schema's dependencies.
//
// Decode is safe for concurrent use; it keeps nothing of its input (raw JSON
// values such as defaults are copies).
//
// # Value model
//
// The result is the typed v1 CRD, as UnmarshalStrict fills it: "[]" gives
// an empty non-nil slice, "{}" an empty non-nil map, a raw JSON value
// (default, example, enum) keeps its exact bytes, items and
// additionalProperties take the shapes of their own UnmarshalJSON.
//
// # Security
//
// Decode reads its input once, with nesting bounded by maxDepth; it does not
// recurse deeper than that and does not panic on any input (FuzzDecode).
package crdjson
