// Package schema compiles the OpenAPI v3 schemas of CustomResourceDefinitions
// and makes the Kubernetes API server's checks on them: whether a schema can
// be turned into a structural schema at all, whether it is structural, and
// the per-node checks the server makes when a CRD is created or updated. A
// compiled schema then validates objects as the server does.
//
// The reference is k8s.io/apiextensions-apiserver v0.37: its
// pkg/apiserver/schema (NewStructural, ValidateStructural) and
// pkg/apis/apiextensions/validation (ValidateCustomResourceDefinitionOpenAPISchema).
// Where this package and the server disagree on a verdict, a field path or an
// error text, this package is wrong.
//
// # Terminology
//
//   - [Props] is the input: one version's openAPIV3Schema as the CRD spells it,
//     field for field, decoded by [ParseProps] or built by the caller. It keeps
//     the presence distinctions the server's checks look at: an absent list or
//     map is nil and an empty one is not, an absent boolean extension is a nil
//     pointer, and "default: null" is the same as no default.
//   - [Schema] is the output of [Compile]: an immutable tree with properties
//     sorted, patterns compiled and a [Summary] of what each subtree contains.
//     It checks objects ([Schema.Validate], [Schema.ValidateListTypes]).
//   - A node is one schema object in the tree; its structural children are
//     items, properties and additionalProperties. The junctors allOf, anyOf,
//     oneOf and not hold value validations only.
//   - A schema is structural when [ValidateStructural] reports nothing for
//     it, which is what the server demands of every apiextensions.k8s.io/v1 CRD.
//     A schema the server cannot even turn into a structural schema (it uses
//     $ref, items as an array, definitions, ...) is reported by [BuildError].
//
// # Value model
//
// Objects, and the values a schema carries (default, example, enum), are
// decoded JSON: nil, bool, string, int64 or float64, []any and
// map[string]any. The server decodes requests with sigs.k8s.io/json's
// UnmarshalCaseSensitivePreserveInts, which gives int64 for integers that
// fit and float64 for other numbers; callers should decode objects the same
// way. [ParseProps] decodes the numbers in default, example and enum as
// float64, as encoding/json does, while Props built from the server's own
// types carry int64 for integers. [Value] wraps default and example so that
// a present null can be told from an absent keyword.
//
// # Concurrency
//
// A [Schema] is never modified after [Compile] returns and is safe for
// concurrent use by any number of goroutines. Compile shares the slices,
// pointers and values of its Props instead of copying them: do not modify a
// Props after compiling it, and treat the slices and values returned by
// Schema accessors (Enum, Required, Rules, Default, ...) as read-only. No
// function in this package modifies its Props argument, so one Props may be
// checked from several goroutines at once. A [Path] is immutable. The
// package's one piece of state is a process-wide cache of compiled
// patterns (each text compiled once, for [Compile] and the structural
// check alike; bounded, safe for concurrent use), which [DropCaches]
// empties.
//
// # Errors
//
// The checks return an [ErrorList] of [*Error]: a type, the field path
// rendered as the server renders it ("spec.ports[0].name"), the offending
// value and a detail. The values of [ErrorType] are exactly the strings of
// k8s.io/apimachinery's field.ErrorType, so a caller converts one to the
// other with a plain type conversion, and [Error.Body] and [Error.Error] give
// the texts of field.Error's ErrorBody and Error byte for byte.
// ValidateStructural sorts its list by text, as the server does.
//
// # Order of errors
//
// [Schema.Validate] and [Schema.ValidateListTypes] report their errors in the
// server's order wherever the server's order is deterministic, so that a
// message joining them reads as the server's does. For one value, Validate
// follows kube-openapi's validators in turn: the type; anyOf (its error,
// then those of the branch it reports), oneOf (likewise), the errors of each
// allOf branch then allOf's own, not; the length and pattern of a string;
// its format; the range, multipleOf, minimum and maximum of a number; the
// items of an array, then its item counts; enum; the property counts of an
// object, its properties, then its missing required properties in the
// order of the required list. An error whose message was already reported
// is dropped. ValidateListTypes reports an array's duplicates in index
// order, then the errors inside its items.
//
// The server walks the properties of an object, and its keys under
// additionalProperties, in Go map order, which changes from one request to
// the next; where two properties of one object both have errors, it can
// report them in any order. crdkit reports them in one fixed order: the
// keys that are not declared properties (forbidden ones, or those under
// additionalProperties) sorted, then the declared properties sorted, each
// with its errors in the order above. When two of them give errors with the
// same message, the server keeps the one it happens to walk first; crdkit
// keeps the first in its own order. The order does not depend on how the
// maps of the object were built.
//
// [BuildError] returns a plain error with the server's text, for example
// "OpenAPIV3Schema '$ref' is not supported"; when a schema has several such
// problems it reports the first in the server's build order (not, allOf,
// anyOf, oneOf, extensions, items, then properties in sorted order). [Compile]
// returns the BuildError, or an error naming an invalid pattern.
//
// # Security
//
// Every recursive walk is bounded by a nesting depth of 512 schema nodes, far
// beyond any real CRD, so a hostile schema cannot overflow the stack:
// BuildError and Compile return [ErrTooDeep], and CheckCRDSchema reports an
// invalid value at the node where the bound is reached. ValidateStructural
// does not look below the bound; call BuildError first, as the server does.
// Patterns are compiled with Go's regexp package, the RE2 syntax the server
// uses: matching takes time linear in the input and there are no
// backreferences. Each pattern's program is also turned into a
// deterministic automaton (one table lookup per rune) when the program has no
// line or word assertions and the automaton stays within 256 states, 64
// rune classes and a bounded construction; other patterns run on the regexp.
// Compile does all parsing and compilation once, so a compiled Schema does no
// such work per object, but for the automaton of a pattern, built the first
// time a value is matched against it (a CRD check compiles every pattern and
// matches few values).
//
// ParseProps does not apply the bound while decoding (only encoding/json's
// limit of 10,000 nested JSON values applies), and its cost grows with the
// size of the input times its nesting depth: bound the size of untrusted
// input before parsing it.
package schema
