// Package objectmeta is the API server's handling of object metadata on
// the value model (map[string]any): the ObjectMeta round trip of a custom
// object's metadata, the coercion and validation of embedded resources
// (x-kubernetes-embedded-resource), and the warnings about finalizer names.
// It follows k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta
// and the metadata steps of the server's create path.
//
// # Value model
//
// Objects are what encoding/json decodes into any, with integers as int64:
// nil, bool, string, int64, float64, []any and map[string]any. Get reads
// obj["metadata"] into a metav1.ObjectMeta exactly as the server does
// (through JSON, strictly or not, dropping malformed fields or not), Set
// writes it back in the unstructured form the server produces. Coerce and
// Validate walk an object along its compiled schema (package schema) to the
// embedded resources in it.
//
// # Plain metadata
//
// The server converts metadata through JSON and reflection and validates
// it with regular expressions, several times per request. Most metadata is
// "plain": names, namespace, labels, annotations, finalizers, owner
// references and a timestamp with well-formed values. For plain metadata
// the package converts directly and skips validators that certainly find
// nothing; anything else takes the server's own code. plain_test.go
// checks every shortcut against the server's functions on random metadata
// and by fuzzing.
//
// # Errors
//
// Validation errors are field.ErrorList with the server's paths, types and
// messages; Coerce returns the first error, as the server's decoder stops
// at it.
//
// # Concurrency and security
//
// The functions keep no state and are safe for concurrent use; Coerce and
// Set modify the object they are given, nothing else. Walks are bounded in
// depth (10000 levels).
package objectmeta
