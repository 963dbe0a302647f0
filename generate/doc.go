// Package generate makes objects of a custom resource from its CRD
// version's openAPIV3Schema, deterministically: valid objects, and named
// mutations of them that break one keyword each, with the refusal the
// server is expected to answer. It is for fuzzing and testing the programs
// that embed crdkit (controllers, admission webhooks) against their own
// CRDs, and for crdkit's own conformance runs against the real server.
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
// crdkit's schema validation, retrying or leaving an optional value out.
// Depth, list sizes and the number of values per object are bounded by
// [Options].
//
// CEL rules (x-kubernetes-validations) are not solved. [Generator.Valid]
// and [Generator.FromBytes] of a generator made by [ForVersion] retry with
// other random choices until the version's create accepts the object (up
// to 16 objects), so rules hold where random choices satisfy them; Valid
// says which rules it could not satisfy, and [Generator.Rules] lists the
// rules at an object's values.
//
// # Cases
//
// [Generator.Cases] returns valid objects and named mutations of them (see
// [Mutations]): unknown fields at every depth, nulls on present and absent
// properties, removed defaulted fields, each validation keyword broken in
// turn, wrong types, several breaks at once, int-or-string values, embedded
// resources with bad metadata, duplicate keys in the raw text, number
// spellings, malformed root metadata and type meta, and malformed JSON. Each
// [Case] carries the exact bytes to send and an [Expectation]: accepted,
// refused with a cause at a field of a [field.ErrorType] (the single-keyword
// breaks), or unstated where the answer depends on details the generator
// does not model. With Options.MultiErrors, Cases also appends cases that
// break several things at once (see [MultiErrorMutations]); with
// Options.RuleBreaks, for a generator made by ForVersion, "break-rule"
// cases that break one CEL rule each, found by trying random values at
// values that have rules, with the refusal the version's create gives.
//
// # Fuzzing
//
// [Generator.FromBytes] maps fuzzer input to an object: each random choice
// reads the next bytes, so a coverage-guided fuzzer (go test -fuzz) explores
// objects of the CRD by mutating bytes.
//
// # Determinism
//
// Everything is driven by math/rand/v2 PCG sources seeded from
// Options.Seed, the CRD name and the version (or by the fuzzer's bytes),
// and schemas and objects are walked in sorted order: the same inputs give
// the same bytes. Maps are encoded with sorted keys by [Marshal].
// sigs.k8s.io/randfill is not used: it fills Go types, while every choice
// here is constrained by the schema.
//
// # Concurrency
//
// A Generator is immutable after New and safe for concurrent use; each call
// uses its own random source.
//
// # Imports
//
// generate sits above the facade: it imports crdkit, and nothing in crdkit
// below it imports generate.
package generate
