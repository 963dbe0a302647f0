#!/usr/bin/env bash
# Times `crdkit validate` on a generated workload (objects for the corpus
# CRDs from the conformance generator, valid and invalid) against
# kubectl-validate v0.0.4, and checks how crdkit scales with cores and
# documents. Not part of CI: it installs kubectl-validate with go install.
#
#   benchmarks/cli.sh [OBJECTS]        # default 9000
#   KUBECTL_VALIDATE=/path/to/kubectl-validate benchmarks/cli.sh   # skip the install
#
# Needs the corpus (../shared/corpus or CRDKIT_CORPUS). Prints wall times,
# peak RSS, the speed-up and the verdicts that differ.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9000}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== building crdkit and the workload ($n objects)"
go build -o "$work/crdkit" ./cmd/crdkit
(cd conformance && go run ./cmd/workload -out "$work/wl" -objects "$n" -format json)
(cd conformance && go run ./cmd/workload -out "$work/wl-small" -objects 1000 -format json) > /dev/null

kv=${KUBECTL_VALIDATE:-}
if [ -z "$kv" ]; then
  echo "== installing kubectl-validate v0.0.4"
  GOBIN="$work/bin" go install sigs.k8s.io/kubectl-validate@v0.0.4
  kv="$work/bin/kubectl-validate"
fi

timeit() { # label, command...
  local label=$1; shift
  /usr/bin/time -f "$label: %e s wall, %U s user, %M KB peak RSS" "$@" > "$work/$label.out" 2> "$work/$label.err" || true
  grep "^$label: " "$work/$label.err"
}

echo "== timings (same machine, one after the other)"
timeit crdkit "$work/crdkit" validate --field-validation Strict --crds "$work/wl/crds" -o json "$work/wl/objects"
GOMAXPROCS=1 timeit crdkit-1core "$work/crdkit" validate --field-validation Strict --crds "$work/wl/crds" -o json "$work/wl/objects"
timeit crdkit-1000 "$work/crdkit" validate --field-validation Strict --crds "$work/wl-small/crds" -o json "$work/wl-small/objects"
timeit kubectl-validate "$kv" --local-crds "$work/wl/crds" --output json "$work/wl/objects"

echo "== verdicts (accepted or refused, per object file)"
(cd benchmarks && go run ./cmd/cliverdicts "$work/crdkit.out" "$work/kubectl-validate.out")
