// Package defaultdiff checks crdkit's defaulting package (Apply and
// PruneNulls) against the server's own code in k8s.io/apiextensions-apiserver
// v0.37.2, pkg/apiserver/schema/defaulting (Default and
// PruneNonNullableNullsWithoutDefaults), on every version of every corpus
// CRD, over the corpus example objects and over generated objects, and under
// go test -fuzz.
//
// The package has no API; its tests are the product. Run them with
//
//	go test ./defaultdiff
//	go test ./defaultdiff -run X -fuzz FuzzDefaultAgrees -fuzztime 120s
//
// The corpus is read from $CRDKIT_CORPUS, or ../shared/corpus beside the
// repository; the corpus tests skip when it is absent.
//
// Upstream's schema is built as the server builds it when it starts serving
// a CRD: the v1 openAPIV3Schema converted to the internal type, NewStructural,
// then PruneDefaults on a deep copy. crdkit's is built twice: from the JSON
// of the same v1 schema with schema.ParseProps and schema.Compile (the line
// "conformance: default"), and by crdkit.New, which compiles the server's
// internal types as the facade does ("conformance: default-facade"). Each
// object is decoded as the server decodes a request body (integers as int64)
// and run through null pruning alone, defaulting alone, and both in the
// server's order. Results must be reflect.DeepEqual, so a float64 where the
// server has an int64 is a disagreement even though the JSON text is the
// same; such cases are reported per CRD version, with the first path where
// the types differ.
//
// Objects come from the corpus (each against the version serving its
// apiVersion and kind), from package gen (valid objects and its mutations:
// nulls on present and absent properties, removed defaults, ...), and from a
// mutator here that removes and nulls defaulted fields, nulls nullable and
// non-nullable ones, adds empty objects and lists whose nested defaults then
// apply, null list elements and null additionalProperties values.
package defaultdiff
