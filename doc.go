// Package crdkit gives Go programs the custom-resource semantics of the
// Kubernetes API server (k8s.io/apiextensions-apiserver v0.37), offline and
// in-process.
//
// # Terminology
//
// A CRD is a compiled apiextensions.k8s.io/v1 CustomResourceDefinition: Load
// decodes one from YAML or JSON, New takes a typed one. Both apply the v1
// defaults the server applies, convert the definition to the server's
// internal form (so identical per-version schemas are reported under
// spec.validation, exactly as the server reports them) and run the checks
// the server runs when the CRD is created. Each Version holds its compiled
// schema (package schema).
//
// # What the server would say
//
// Lint and CRD.Lint return the field errors of the server's 422 response for
// a CRD, byte for byte: the same field paths, error types and messages. The
// causes of a CRD's and of an object's 422 come in the server's order
// wherever the server's order is fixed; where the server follows Go map
// iteration (the properties of an object, the rules of sibling nodes),
// crdkit uses a fixed order of its own (package schema's doc says which), so
// its output is deterministic. Load returns the same errors as an
// *apierrors.StatusError whose Status() is what the server answers.
//
// Version.CreateJSON (and Create, for a decoded object) answers what a
// dry-run create answers: the object the server returns (pruned, defaulted,
// stored and read back), its Warning headers, or the Status of a refusal
// (400 for decoding and strict field validation, 422 with causes).
// Version.UpdateJSON and UpdateStatusJSON (and Update, UpdateStatus) answer
// what a dry-run PUT, and a PUT to /status, of an object over the live one
// answers, with the server's ratcheting: errors on values left unchanged
// from the live object are dropped (schema.Correlate pairs the values),
// rules failing on them become warnings, transition rules see the live
// object's values. Version.Read
// is the read path of a stored object; Version.Default and DefaultTyped are
// client-side defaulting.
//
// # Pipelines
//
// Each request kind is one function that lists the server's steps in the
// server's order, one step per line, with the section of
// research/upstream.md it follows: create (create.go), update and status
// update (update.go) and read (read.go).
// The steps the write pipelines share (decoding, schema coercion, defaults
// of the object's version, field validation, the API-version check) are in
// steps.go; the strategy's validation of an object is in
// objectvalidation.go; the CRD's own checks in crdvalidation.go (the
// definition) and crddefaults.go (its defaults). The work itself is done by
// the packages: schema (values, list types), prune, defaulting, objectmeta
// (object metadata and embedded resources), rules (CEL), versionsort,
// printcolumns.
//
// x-kubernetes-validations (CEL) rules are compiled once per version
// (package rules), checked at CRD time and evaluated on create and update,
// as the server does. Not done yet: PATCH and server-side apply; conversion
// webhooks and reads at another version.
//
// # Concurrency
//
// A CRD and its Versions are immutable once built and safe for concurrent
// use by any number of goroutines.
//
// # Security
//
// Load accepts untrusted input. Schema walks are bounded in depth; regular
// expressions are RE2 (linear time).
package crdkit
