// Package structdiff checks crdkit's structural-schema checks (package
// schema: ParseProps, BuildError, ValidateStructural, Path, FieldPath)
// against the server's own code in k8s.io/apiextensions-apiserver v0.37.2
// (pkg/apiserver/schema NewStructural and ValidateStructural, and the CEL
// package's ValidFieldPath), on the corpus, on the golden cases of
// schema/testdata/structural.json, on generated schemas and under go test
// -fuzz.
//
// The package has no API; its tests are the product. Run them with
//
//	go test ./structdiff
//	go test ./structdiff -run TestGolden -update   # rewrite the golden file from upstream
//	go test ./structdiff -run X -fuzz FuzzStructuralAgrees -fuzztime 120s
//
// Upstream builds a structural schema by iterating Go maps, so when several
// properties cannot be built it reports one of their errors at random. A case
// agrees when crdkit's error is one upstream gives for some iteration order;
// the comparison retries upstream until it sees crdkit's text or gives up.
package structdiff
