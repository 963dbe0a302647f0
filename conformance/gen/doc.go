// Package gen generates custom objects from a CRD version's
// openAPIV3Schema, deterministically, for conformance runs against the real
// server and against crdkit.
//
// # Objects
//
// [Generator.Object] fills the schema with values meant to be valid: types,
// enums, formats the server validates (a known-good spelling per format),
// patterns (strings generated from the regular expression and checked with
// Go's regexp, which is what the server uses; an optional string whose
// pattern cannot be satisfied is left out), numeric bounds and multipleOf,
// lengths, item and property counts, unique elements of set and map lists,
// required properties, embedded resources and int-or-string. oneOf, anyOf,
// allOf and not are handled by choosing a branch and checking the value with
// the server's OpenAPI validator, retrying or leaving an optional value out.
// CEL rules (x-kubernetes-validations) are not considered: the server's
// verdict says whether an object passes them. Depth, list sizes and the
// number of values per object are bounded by [Options].
//
// # Cases
//
// [Generator.Cases] returns valid objects and named mutations of them (see
// [Mutations]): unknown fields at every depth, nulls on present and absent
// properties (nullable or not, with or without defaults), removed defaulted
// fields, each validation keyword broken in turn, wrong types, several
// breaks at once, int-or-string values, embedded resources with bad
// metadata, duplicate keys in the raw text, number spellings, malformed root
// metadata and type meta, and malformed JSON. Each [Case] carries the exact
// bytes to send. With Options.MultiErrors, Cases also appends cases that
// break several things at once (see [MultiErrorMutations]), at one value, at
// sibling values and at different depths, so that the order in which errors
// are reported shows; the other cases do not change.
//
// # Determinism
//
// Everything is driven by math/rand/v2 PCG sources seeded from
// Options.Seed, the CRD name and the version, and schemas and objects are
// walked in sorted order: the same inputs give the same bytes. Maps are
// encoded with sorted keys by [Marshal].
//
// # Concurrency
//
// A Generator is immutable after New and safe for concurrent use; each call
// uses its own random source.
package gen
