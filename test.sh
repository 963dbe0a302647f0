#!/usr/bin/env bash
# Runs every test of crdkit: formatting and vet, the library's tests with the
# race detector, the crfake module (the controller-runtime client), the
# conformance module (differential tests against the upstream packages and
# the real API server, which it starts itself), and every benchmark once as
# a test. Summary lines start with "conformance:".
# At the end it says how many tests were skipped, why, and how to run them.
set -euo pipefail
cd "$(dirname "$0")"
log=$(mktemp)
skips=$(mktemp -t crdkit-skipped.XXXXXX.txt)
# The conformance module's whole -v output, for reading disagreements.
conflog=${CRDKIT_CONFORMANCE_LOG:-$(mktemp -t crdkit-conformance.XXXXXX.log)}
trap 'rm -f "$log"; [ -s "$skips" ] || rm -f "$skips"' EXIT

# gotest filters "go test -v" output down to what go test prints without -v
# (package results, failures with their output, panics) and the
# "conformance:" lines, and records each skipped test and its reason in
# $skips.
gotest_filter='# Reads "go test -v" output. Prints what go test prints without -v (package
# results, build errors, failures with their output, panics) and the lines
# that start with "conformance:"; appends one line per skipped test to the
# file named by the variable skips: the test, a tab, the reason (its last
# log line; a benchmark logs it after its SKIP line).
function record(name, reason) { sub(/^ *[^ :]+\.go:[0-9]+: /, "", reason); print name "\t" reason >> skips }
function out(line) { print line; fflush() }
# After a panic (a test timeout too: it names the running tests), every line.
panicked && !/^(ok|FAIL)[ \t]/ { out($0); next }
pending != "" {
  if ($0 ~ /^ +[^ :]+\.go:[0-9]+: /) { record(pending, $0); pending = ""; next }
  record(pending, "(no reason given)"); pending = ""
}
/^=== (RUN|CONT|NAME|PAUSE) / { cur = $3; next }
/^ *--- (PASS|FAIL|SKIP): / {
  match($0, /--- [A-Z]+: /); name = substr($0, RSTART + RLENGTH); sub(/ \([0-9.]+s\)$/, "", name)
  if ($0 ~ /--- FAIL: /) { for (i = 1; i <= n[name]; i++) out(buf[name, i]); out($0) }
  if ($0 ~ /--- SKIP: /) { if (n[name] > 0) record(name, buf[name, n[name]]); else pending = name }
  delete n[name]; next
}
/^(ok|FAIL)([ \t]|$)/ { out($0); if ($0 !~ /^FAIL$/) { cur = ""; panicked = 0 }; next }
/^panic: / || /^fatal error/ { panicked = 1; out($0); next }
/^conformance:/ || /^WARNING: DATA RACE/ || /^# / { out($0); next }
/^PASS$/ || /^(goos|goarch|pkg|cpu): / || /^Benchmark/ { next }
{ if (cur != "") { n[cur]++; buf[cur, n[cur]] = $0 } else out($0) }
END { if (pending != "") record(pending, "(no reason given)") }
'
gotest() { awk -v skips="$skips" "$gotest_filter"; }

echo "== gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi

echo "== library: go vet, go test -race"
go vet ./...
(go test -race -count=1 -timeout 30m -v ./... 2>&1 | gotest | tee -a "$log"; exit "${PIPESTATUS[0]}")

# The race detector makes sync.Pool drop items at random, so the tests that
# count allocations skip under it; they run here without it.
echo "== library: allocation counts (without the race detector)"
(go test -count=1 -run 'Alloc' ./... 2>&1 | { grep -E '^(--- FAIL|FAIL|panic: )' || true; } | tee -a "$log"
  exit "${PIPESTATUS[0]}")
# Those skips are not skips of the suite: the run above has them.
if [ -s "$skips" ]; then
  grep -v $'\t''.*race detector' "$skips" > "$skips.tmp" || true
  mv "$skips.tmp" "$skips"
fi

echo "== crfake module and its example controller: go vet, go test -race"
for m in crfake examples/crontab-controller; do
  (cd "$m" && go vet ./... && go test -race -count=1 -v ./... 2>&1 | gotest | tee -a "$log"; exit "${PIPESTATUS[0]}")
done

echo "== conformance module (upstream packages and the real API server)"
(cd conformance && go vet ./... && go test -count=1 -timeout 60m -v ./... 2>&1 | tee "$conflog" \
  | gotest | tee -a "$log"; exit "${PIPESTATUS[0]}")

echo "== benchmarks module (each benchmark once, as a test)"
(cd benchmarks && go vet ./... && go test -count=1 -timeout 30m -v -run Test -bench . -benchtime 1x ./... 2>&1 \
  | gotest | tee -a "$log"; exit "${PIPESTATUS[0]}")

passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^FAIL' "$log" || true)
echo "conformance output: $conflog"
nskipped=$(wc -l < "$skips" | tr -d ' ')
if [ "$nskipped" -gt 0 ]; then
  echo "skipped: $nskipped tests"
  cut -f2 "$skips" | sort | uniq -c | sort -rn | sed 's/^ */  /'
  if grep -qi 'corpus' "$skips"; then
    echo "  the corpus tests: docs/fetch-corpus.sh DIR, then CRDKIT_CORPUS=DIR ./test.sh (docs/fidelity.md)"
  fi
  echo "  each reason says how to run its tests; the skipped tests, one a line: $skips"
fi
echo "packages: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
