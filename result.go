package crdkit

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FieldValidation is the server's fieldValidation query parameter: what to
// do with unknown and duplicate fields.
type FieldValidation string

// The field-validation modes. The server's default is Warn.
const (
	Ignore FieldValidation = "Ignore"
	Warn   FieldValidation = "Warn"
	Strict FieldValidation = "Strict"
)

// CreateOptions are the options of a dry-run create.
type CreateOptions struct {
	// FieldValidation is Ignore, Warn or Strict; empty means Warn.
	FieldValidation FieldValidation
	// Namespace is the namespace of the request for a namespaced CRD. When
	// empty, the object's metadata.namespace is used, else "default".
	Namespace string
	// Convert is used when the CRD's strategy is Webhook and the request's
	// version is not the storage version: the server converts the object
	// to the storage version and back through the webhook.
	Convert ConvertOptions
	// ManagedFields: the field manager's name, the time of its entries,
	// or managed fields left out of the result.
	ManagedFields
}

func (o CreateOptions) mode() FieldValidation {
	if o.FieldValidation == "" {
		return Warn
	}
	return o.FieldValidation
}

// Result is the outcome of a request: the object the server would return,
// its Warning headers, the paths pruning removed, and the error.
type Result struct {
	// Object is what the server returns (nil when Err is set), without the
	// fields only a server fills: uid, creationTimestamp, resourceVersion.
	// It holds metadata.managedFields as the server writes them, unless the
	// request's ManagedFields.Omit leaves them out.
	Object map[string]any
	// Warnings are the server's Warning headers, in order.
	Warnings []string
	// Pruned are the paths of the fields pruning removed, sorted.
	Pruned []string
	// Err is nil, or an *apierrors.StatusError whose Status() is what the
	// server answers: code, reason, message and causes.
	Err error
	// Created is true when the request created the object (the server
	// answers 201 Created): a create, or an apply with no live object.
	Created bool
	// Deleted reports that the request removed the object from storage: a
	// DELETE of an object left without finalizers (Object is then the
	// server's Status of success), or an update of an object being deleted
	// that leaves it no finalizer (Object is then the object as the update
	// left it, which the server returns without storing it). False when the
	// object lives on, for example with a deletion timestamp, waiting for
	// its finalizers.
	Deleted bool
	// Code is the HTTP status code of a successful DELETE: 200, or 202
	// Accepted when the request set orphanDependents false and the object
	// is kept. Other requests leave it 0 (a create answers 201, an update
	// 200), as does any refusal (Err carries its code).
	Code int
	// Parent is, for a successful write of the scale subresource
	// (UpdateScaleJSON, PatchScale), the object as the write left it
	// (Object is then the Scale): spec replicas set, and the managed
	// fields entry the server records for the Scale's manager
	// (subresource "scale"), in the form of Object (no uid,
	// creationTimestamp or resourceVersion; managedFields left out with
	// ManagedFields.Omit). Nil for other requests.
	Parent map[string]any
}

// Status returns the server's Status for a failed request, or nil.
func (r *Result) Status() *metav1.Status {
	var se *apierrors.StatusError
	if errors.As(r.Err, &se) {
		st := se.Status()
		return &st
	}
	return nil
}
