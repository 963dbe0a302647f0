// Package prune removes the fields of a custom object that its schema does
// not allow, exactly as the Kubernetes API server prunes unknown fields when
// it decodes a custom resource, and reports the paths of what it removed.
//
// The reference is k8s.io/apiextensions-apiserver v0.37,
// pkg/apiserver/schema/pruning: [Object] with Options{Root: true} is
// PruneWithOptions(obj, s, true, UnknownFieldPathOptions{TrackUnknownFieldPaths:
// true}), and with Root false it is the same call with isResourceRoot false.
// Where this package and the server disagree on the pruned object or on the
// reported paths, this package is wrong.
//
// # Terminology
//
//   - A field is allowed when the schema of its map declares it under
//     properties, or when that schema has additionalProperties at all: a
//     schema, true, and even false, under which the key is kept but the maps
//     below it lose every key, since there is no schema for them.
//   - x-kubernetes-preserve-unknown-fields keeps the unknown keys of a map;
//     declared properties and additionalProperties below it are still pruned.
//     The elements of an array under it are preserved against the items
//     schema, and kept whole when there is none.
//   - An embedded resource (x-kubernetes-embedded-resource) and the resource
//     root (Options.Root) keep apiVersion, kind and metadata as they are: the
//     server normalises metadata with its ObjectMeta code, not by pruning.
//   - A nil schema allows nothing: every key of a map below it is removed, and
//     so are the keys of the maps in arrays below it.
//   - Pruned paths are rendered as the server renders them: keys joined with
//     ".", array indexes as "[i]" ("spec.foo", "[1].b", "spec.list[0].x").
//     Like the server, Object does not report apiVersion, kind or metadata
//     removed from the top-level map (they are reported when a nil schema
//     empties that map).
//
// # Value model
//
// Values are decoded JSON: nil, bool, string, int64, float64, []any and
// map[string]any. Only maps and slices of this model are ever changed; any
// other value, including a map or slice of another type, is left alone. A
// value whose type the schema contradicts is not an error here (validation
// reports it later) and is pruned as the server prunes it: a scalar is kept
// whatever the schema says; a map under a schema with neither properties nor
// additionalProperties (type string, say) loses every key unless the schema
// preserves unknown fields; and the maps among the elements of an array lose
// every key when the schema has no items (type object, say).
//
// # From bytes
//
// [JSON] decodes a request body and prunes it in one pass: it builds the
// value the server's decoder (sigs.k8s.io/json, integers kept) would build
// and Object would leave, without building what pruning removes, whose
// syntax it only checks. It gives up (ok false) wherever the server's
// decoder fails or repairs its input (syntax errors, invalid UTF-8, lone
// surrogates, numbers out of range) and on duplicate keys, so that the
// caller can take the server's decoder and report its exact error; the
// tests fuzz it against sigs.k8s.io/json followed by Object.
//
// What JSON builds costs little more than the maps of the result: the
// keys of declared properties are the schema's own strings, other keys and
// strings are copied out of the body into a few chunks of text (nothing
// pruned is copied, and the body is not kept), strings, numbers and arrays
// are put in interfaces a chunk at a time (internal/box: one allocation
// for up to 512 values), arrays are made at their exact size, the
// reported paths are cut from one string, and the decoder's stacks are
// reused from call to call. The price is that a value kept from the
// result keeps its chunks in memory, and a path all of them.
// [JSONNulls] also reports whether the value holds a null, so that a
// caller that drops nulls can leave that out without a walk or a search.
//
// # Concurrency
//
// A [schema.Schema] is immutable and may be used by any number of goroutines
// at once. [Object] mutates its argument, so one object must not be pruned
// while another goroutine reads or writes it; [Copy] only reads its argument,
// so concurrent calls of Copy on one object are safe.
//
// # Errors
//
// There are none: every input gives a result, and nothing panics. A value
// outside the value model is kept as it is.
//
// # Security
//
// [JSON] recurses over the input, so it bounds nesting (512 levels; the
// server allows 10,000) and gives up beyond; it also gives up on an object
// with more than 1,024 pruned keys, whose duplicates it checks without a
// map.
//
// The recursion follows the schema, whose depth [schema.Compile] bounds, so
// a deeply nested object cannot overflow the stack: the parts of an object
// that the schema does not describe (arrays nested under no schema,
// preserved subtrees copied by Copy) are walked with explicit stacks on the
// heap. There is therefore no depth limit and no error; the work is linear
// in the size of the object and of the paths reported. Object allocates nothing unless it removes a
// field (then one string per reported path), so clean objects are cheap to
// check. The one exception is an object nested more than 64 maps and arrays
// deep: each map or array visited below that depth costs an allocation for
// its path.
package prune
