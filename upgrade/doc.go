// Package upgrade tells a CRD author what a new revision of a CRD does
// before it is applied: the API server's answer to the CRD update itself
// (crdkit.UpdateCRD), the changes between the revisions, classified as
// sigs.k8s.io/crdify classifies schema changes (field removed, type, enum,
// bounds, pattern, format, default, required) and beyond what it looks at
// (x-kubernetes-validations rules, list and map types, nullable,
// preserve-unknown-fields, served, deprecated and storage versions), and,
// for objects the cluster already stores, what the server will do with
// each under the new revision: what a GET returns (fields pruned, defaults
// added), whether a no-op update is accepted, which fields only
// ratcheting keeps (and the answer to a change of each), and whether a
// create of the same content is refused.
//
// It sits above the facade (package crdkit): every object verdict is the
// facade's answer, which the conformance tests compare with the real
// server after a real CRD update.
//
// # Concurrency
//
// Check and Changes keep no state and are safe for concurrent use; they do
// not modify their arguments.
package upgrade
