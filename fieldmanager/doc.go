// Package fieldmanager is the API server's field manager for the custom
// resources of one CRD: server-side apply, and the metadata.managedFields
// every write records.
//
// The name is the server's: its request handlers call a "field manager"
// (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager,
// managedfields.FieldManager) on every create, update and patch. This
// package does not reimplement it: it builds the server's own
// (managedfields.NewDefaultCRDFieldManager over structured-merge-diff) the
// way the custom-resource handler builds it, from the OpenAPI definitions
// the server derives from the CRD (openapi.Models in this module), with the
// reset fields of each endpoint (status on the resource when the status
// subresource is on; metadata and spec on /status), one for /scale whose
// objects are autoscaling/v1 Scales (Subresource Scale: the caller maps
// the Scale's entries to and from the object's with
// managedfields.ScaleHandler, as the server's registry does), and gives it
// crdkit's conversion and defaulting in place of the server's.
//
// # Value model
//
// Objects are decoded JSON (map[string]any, []any, string, bool, int64,
// float64, nil), as the rest of crdkit holds them.
//
// # Time
//
// The field manager reads the clock itself (time.Now) for the entries a
// request touches. Manager stands in for it so that results can be
// reproduced: every entry time of the objects is replaced by a mark before
// the call, and after it each entry still holding a mark gets its own time
// back while the others get the caller's time. The entries are then sorted
// as the server sorts them (operation, time in seconds, manager, apiVersion,
// subresource).
//
// # Concurrency
//
// A Manager is immutable once built and safe for concurrent use.
//
// # Errors
//
// Apply returns the server's errors: a *apierrors.StatusError (409 Conflict
// with a FieldManagerConflict cause per field, 400 for a patch of another
// version or kind or one that sets managedFields), or a plain error the
// server answers with a 500 (a field the schema does not declare). Update
// never fails on the object: like the server's UpdateNoErrors it keeps the
// live object's managed fields when the update cannot be recorded.
//
// # Security
//
// The work is the structured-merge-diff library's, linear in the size of
// the objects; callers bound depth and size before (the facade refuses
// objects nested deeper than 10,000 levels while decoding).
package fieldmanager
