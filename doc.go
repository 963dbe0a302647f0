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
// and ReadJSON answer what a GET at that version returns for an object as
// etcd holds it, stored at any version the CRD defines: decoded as the
// server decodes storage (malformed metadata dropped, generation repaired),
// defaulted with the stored version's schema, converted with the CRD's
// strategy (None, or its webhook through package conversion's client),
// pruned and coerced with the target schema; or the server's 404 for a
// version not served and 500 "StorageError: corrupt object" for what it
// cannot decode or convert. CRD.Convert and ConvertList are the server's
// converter followed by its coercion. Version.Default and DefaultTyped are
// client-side defaulting.
//
// The rest of an object's life: Version.Delete answers a DELETE of the live
// object (DeleteOptions checked, preconditions, the garbage collector's
// finalizers, the object kept with a deletion timestamp or gone, as
// Result.Deleted says); an update that leaves no finalizer on an object
// being deleted deletes it (Result.Deleted). Version.Selector, List and
// Selector.Matches evaluate a list request's label and field selectors
// (metadata.name, metadata.namespace, selectableFields). Version.Scale,
// UpdateScaleJSON, PatchScale and ApplyScale answer GET, PUT, PATCH and
// server-side apply of the scale subresource.
//
// # Pipelines
//
// Each request kind is one function that lists the server's steps in the
// server's order, one step per line, with the section of
// research/upstream.md it follows: create (create.go), update and status
// update (update.go), delete (delete.go), the scale subresource
// (scale.go), read (read.go) and convert (convert.go); list selection is
// selector.go.
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
// as the server does. A create at a version other than the storage version
// of a CRD whose strategy is Webhook goes through the webhook both ways, as
// on the server (CreateOptions.Convert). Not done yet: PATCH and
// server-side apply; updates do not call a conversion webhook yet.
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
