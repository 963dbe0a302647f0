// Package prunediff checks crdkit's prune package against the server's own
// pruning package (k8s.io/apiextensions-apiserver/pkg/apiserver/schema/
// pruning.PruneWithOptions with unknown-field paths tracked), as the server
// calls it and with isResourceRoot false:
//
//   - the entries of prune/testdata/cases.json, so that the expectations of
//     crdkit's own table tests are the server's;
//   - every version of every corpus CRD ($CRDKIT_CORPUS, default
//     ../../../shared/corpus from this directory; skipped when absent), on the
//     corpus example objects that match its group, version and kind, and on
//     seeded generated objects with unknown fields at every depth, nulls,
//     wrong types, preserved subtrees and embedded resources with extra
//     metadata fields, plus objects from package gen with unknown fields
//     sprinkled in;
//   - random schemas with random objects (TestRandom, FuzzPruneAgrees).
//
// A case agrees when both pruned objects marshal to the same JSON, both path
// lists are equal, prune.Copy gives the same result without touching its
// input, and pruning the result again is free of allocations. The run prints
// "conformance: prune P/N cases agree".
package prunediff
