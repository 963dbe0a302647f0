// Package printcolumns reproduces the API server's printer columns for custom
// resources: the metav1.Table a server returns for
// `Accept: application/json;as=Table;g=meta.k8s.io;v=v1`, the text
// `kubectl get` prints from it, the CRD-time checks of
// additionalPrinterColumns, and the scale subresource's view of an object.
//
// # Value model
//
// Objects are unstructured JSON as the server decodes it: map[string]any,
// []any, string, int64 (integral numbers), float64 (other numbers), bool and
// nil. Other Go types are accepted and evaluated by the upstream JSONPath
// engine (k8s.io/client-go/util/jsonpath), so they print as they would there.
//
// # Columns and cells
//
// Compile turns a version's additionalPrinterColumns into *Columns once. The
// table starts with the implicit Name column (metadata.name); a version
// without columns gets the server's default Age column. For each object a
// column's jsonPath is evaluated and only the first value found is used:
//
//   - no value (missing field, or any evaluation error) gives a nil cell;
//   - type string prints the value: objects and arrays as compact JSON with
//     sorted keys, null as "<no value>", numbers and booleans with fmt;
//   - type integer keeps int64 and truncates float64 (3.7 gives 3);
//     number turns int64 into float64; boolean keeps booleans; any other
//     value, and any unknown type, gives nil;
//   - type date parses an RFC 3339 string and prints the age with
//     k8s.io/apimachinery/pkg/util/duration.HumanDuration ("5m3s", "3d4h"):
//     "" and "null" give "<unknown>", an unparsable string or a time two
//     seconds or more in the future gives "<invalid>", a non-string gives nil.
//
// Ages are computed against TableOptions.Now, which tests set to a fixed
// clock.
//
// Column paths are parsed with the server's JSONPath parser. Field chains,
// indexes, slices and comparison filters ([?(@.type=="Ready")]) are then
// evaluated by a compiled program that never builds reflect values; other
// paths (wildcards on objects, recursive descent, unions, range) run on the
// upstream engine. Differential tests and fuzzing in the conformance module
// hold the two to the same results.
//
// # Text output
//
// Print writes a table as kubectl does: upper-case headers, priority-0
// columns unless wide, kubectl's tabwriter spacing (minimum width 6,
// padding 3) and one line per row. kubectl prints a nil cell as nothing, so
// Print does too unless PrintOptions.Missing says otherwise.
//
// # Scale subresource
//
// Scale reads an object through a CRD's scale paths into the autoscaling/v1
// Scale the server serves, and ScaleColumns gives the columns of the scale
// subresource's tables (Desired, Available, Age).
//
// # Concurrency
//
// *Columns is immutable and safe for concurrent use. Tables and rows are new
// values on every call; they share strings and the objects themselves with
// the input.
//
// # Errors
//
// Compile returns a *ColumnError for a jsonPath the parser rejects, together
// with the usable columns before it, as the server keeps serving them.
// ValidateColumn, ValidateColumns and ValidateVersions return field.ErrorList
// with the server's paths and texts. Scale returns the server's errors.
// Evaluation itself never fails and never panics: a panic inside the upstream
// engine is recovered as an empty result.
//
// # Security
//
// Column paths come from the CRD author, objects from anyone who can create
// them. A compiled program visits each value of the object at most once per
// path step and keeps no per-object state beyond one small struct, so its
// cost is linear in the object's size. Paths left to the upstream engine
// cost what they cost on the server; repeated recursive descent (..) over
// deep objects is the expensive case there as here. JSON output in string
// cells uses encoding/json, so "<", ">" and "&" are escaped as the server
// escapes them, and Print makes terminal escape characters visible.
//
// # Differences from the server
//
// A column path using range/end is parsed afresh for every object: the
// server's engine rewrites its parsed tree on the first evaluation, so its
// later results depend on request history. A wildcard over an object's keys
// (.spec.*) picks the first value in Go's random map order, on the server as
// here.
package printcolumns
