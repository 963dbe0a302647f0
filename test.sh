#!/usr/bin/env bash
# Runs every test of crdkit: formatting and vet, the library's tests with the
# race detector, the conformance module (differential tests against the
# upstream packages and the real API server, which it starts itself), and
# every benchmark once as a test. Summary lines start with "conformance:".
set -euo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
# The conformance module's whole -v output, for reading disagreements.
conflog=${CRDKIT_CONFORMANCE_LOG:-$(mktemp -t crdkit-conformance.XXXXXX.log)}
trap 'rm -f "$log"' EXIT

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== library: go vet, go test -race"
go vet ./...
go test -race -count=1 ./... 2>&1 | tee -a "$log"

# The race detector makes sync.Pool drop items at random, so the tests that
# count allocations skip under it; they run here without it.
echo "== library: allocation counts (without the race detector)"
(go test -count=1 -run 'Alloc' ./... 2>&1 | { grep -E '^(--- FAIL|FAIL|panic: )' || true; } | tee -a "$log"
  exit "${PIPESTATUS[0]}")

echo "== conformance module (upstream packages and the real API server)"
(cd conformance && go vet ./... && go test -count=1 -timeout 60m -v ./... 2>&1 | tee "$conflog" \
  | grep -E '^(conformance:|--- FAIL|FAIL|ok|PASS|panic: )' | tee -a "$log"; exit "${PIPESTATUS[0]}")

echo "== benchmarks module (each benchmark once, as a test)"
(cd benchmarks && go vet ./... && go test -count=1 -run Test -bench . -benchtime 1x ./... 2>&1 \
  | grep -E '^(ok|FAIL|PASS|--- FAIL|panic: )' | tee -a "$log"; exit "${PIPESTATUS[0]}")

passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^FAIL' "$log" || true)
echo "conformance output: $conflog"
echo "packages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
