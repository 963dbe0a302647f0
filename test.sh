#!/usr/bin/env bash
# Runs every test of crdkit: formatting and vet, the library's tests with the
# race detector, the conformance module (differential tests against the
# upstream packages and the real API server), and the benchmarks once each
# as tests. Summary lines start with "conformance:".
set -euo pipefail
cd "$(dirname "$0")"

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== library: go vet, go test -race"
go vet ./...
go test -race -count=1 ./...

echo "== conformance module"
(cd conformance && go vet ./... && go test -count=1 -timeout 60m -v ./... 2>&1 | tee /tmp/crdkit-conformance.log | grep -E '^(conformance:|--- FAIL|FAIL|ok|PASS)' ; exit "${PIPESTATUS[0]}")

echo "== benchmarks module (each benchmark once, as a test)"
(cd benchmarks && go vet ./... && go test -count=1 -run XXX -bench . -benchtime 1x ./... | grep -E '^(ok|FAIL|PASS|---)')

echo "== all tests passed"
