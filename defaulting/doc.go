// Package defaulting applies the defaults of a compiled CRD schema to a
// custom object and drops the nulls the API server drops, with the server's
// exact semantics.
//
// The reference is k8s.io/apiextensions-apiserver v0.37,
// pkg/apiserver/schema/defaulting: [Apply] does what its Default does and
// [PruneNulls] what its PruneNonNullableNullsWithoutDefaults does. The
// server prunes nulls while decoding a request, right after dropping unknown
// fields, and applies defaults afterwards; a caller reproducing a request
// calls PruneNulls and then Apply, in that order. Where this package and the
// server disagree on an object, this package is wrong.
//
// # Value model
//
// Objects are decoded JSON: nil for null, bool, string, int64 or float64 for
// numbers, []any for arrays and map[string]any for objects. Values of other Go
// types are treated as scalars: never walked, never replaced. Only an untyped
// nil is null; a nil map[string]any or []any stored in an interface is not.
//
// Defaults are set as deep copies of the schema's values, so the object never
// shares memory with the schema and may be modified freely afterwards. Their
// numbers keep the Go types the compiled schema holds; the server holds
// int64 for integral defaults and float64 for the others.
//
// Nullable: a property, additionalProperties or items schema with
// nullable: true keeps a null value. Without it, a null is replaced by the
// schema's default when there is one (Apply), and an object key holding it is
// deleted when there is none (PruneNulls). Null array elements are never
// deleted; PruneNulls leaves them and Apply replaces them only when items has
// a default. "default: null" is no default at all. For example, with
//
//	spec:
//	  type: object
//	  properties:
//	    foo: {type: string, nullable: false, default: "default"}
//	    bar: {type: string, nullable: true}
//	    baz: {type: string}
//
// the object {"spec": {"foo": null, "bar": null, "baz": null}} becomes
// {"spec": {"foo": "default", "bar": null}}: foo is defaulted because it is
// not nullable, bar keeps its null, and baz is dropped because it is neither
// nullable nor defaulted.
//
// # Cost
//
// Both functions use the schema's [schema.Summary] to skip subtrees without
// defaults (Apply) or without non-nullable nodes (PruneNulls), and neither
// looks up a property it does not need. PruneNulls never allocates, and
// Apply allocates only for the defaults it sets (their copies, and room for
// new keys), so an object with nothing to do costs no allocation at all.
//
// # Errors
//
// There are none to report: every object is accepted. A value whose type
// does not match its schema is left as it is and not walked; validation,
// which runs after defaulting in the server, reports it.
//
// # Concurrency
//
// A compiled schema may be used by any number of goroutines at once. Both
// functions modify their object argument, so one object must not be passed to
// them from two goroutines at once or read while they run.
//
// # Security
//
// The walks follow the schema and stop where it has no node, so their depth
// is bounded by the schema's nesting (at most 512 levels, enforced by
// schema.Compile), however deep the object is. An object nested 10,000 levels
// deep is walked only as far as the schema reaches. Copying a default follows
// the default's own nesting, which encoding/json bounds at 10,000 levels when
// the schema is parsed; a default built by hand must be an acyclic JSON value.
// Neither function panics on any object.
package defaulting
