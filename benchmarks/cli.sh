#!/usr/bin/env bash
# Times `crdkit validate` on a workload of objects for the corpus CRDs
# against kubectl-validate v0.0.4, and checks how crdkit scales with cores
# and documents. Not part of CI: it installs kubectl-validate with go
# install. Two workloads (conformance/cmd/workload):
#   corpus (the default): real objects, the corpus's example objects and
#     variants of them (other names and namespaces; one in ten with an
#     unknown field under spec, one in ten with a label value the server
#     refuses), one YAML file per object;
#   generated: objects the conformance generator makes from the CRDs'
#     schemas, valid and invalid in equal measure, one JSON file per object.
# It also times one document against the directory of the 34 corpus CRDs
# (a pre-commit hook's or an editor's run): without the cache of CRD work,
# with an empty one (cold) and with the one an earlier run filled (warm).
#
#   benchmarks/cli.sh [OBJECTS [RUNS]]   # default 9000 objects, 3 runs of each
#   WORKLOAD=generated benchmarks/cli.sh # the generated workload
#   KUBECTL_VALIDATE=/path/to/kubectl-validate benchmarks/cli.sh   # skip the install
#
# Needs the corpus (../shared/corpus or CRDKIT_CORPUS). The runs are
# interleaved (crdkit on all cores, on one core, on 1,000 and 10,000
# documents, kubectl-validate), so that a change of load hits all alike;
# it prints each run, the medians, the ratios the issue asks for and the
# verdicts that differ, sorted by reason (benchmarks/cmd/cliverdicts).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-9000}
runs=${2:-3}
workload=${WORKLOAD:-corpus}
case $workload in
corpus) wlflags=(-source corpus) ;;
generated) wlflags=(-format json) ;;
*) echo "WORKLOAD must be corpus or generated, not $workload" >&2; exit 2 ;;
esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "== building crdkit and the $workload workloads ($n, 1000 and 10000 objects)"
go build -o "$work/crdkit" ./cmd/crdkit
(cd conformance && go build -o "$work/workload" ./cmd/workload)
"$work/workload" -out "$work/wl" -objects "$n" "${wlflags[@]}"
"$work/workload" -out "$work/wl-1000" -objects 1000 "${wlflags[@]}"
"$work/workload" -out "$work/wl-10000" -objects 10000 "${wlflags[@]}"

kv=${KUBECTL_VALIDATE:-}
if [ -z "$kv" ]; then
  echo "== installing kubectl-validate v0.0.4"
  GOBIN="$work/bin" go install sigs.k8s.io/kubectl-validate@v0.0.4
  kv="$work/bin/kubectl-validate"
fi

timeit() { # label, command...: one line "label wall user rssKB"
  local label=$1; shift
  /usr/bin/time -f "$label %e %U %M" -o "$work/time" "$@" > "$work/$label.out" 2> "$work/$label.err" || true
  tail -n 1 "$work/time" | tee -a "$work/times" # (time writes a line of its own on a non-zero exit)
}
ck=("$work/crdkit" validate --field-validation Strict -o json)
# The throughput runs go without the cache of CRD work (compiling the CRDs
# is part of what they time, as kubectl-validate's runs do); the one-document
# runs below time it.
export CRDKIT_CACHE_DIR=off

echo "== runs (label, wall s, user s, peak RSS KB), load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$runs"); do
  timeit crdkit "${ck[@]}" --crds "$work/wl/crds" "$work/wl/objects"
  timeit crdkit-1core env GOMAXPROCS=1 "${ck[@]}" --crds "$work/wl/crds" "$work/wl/objects"
  timeit crdkit-1000 "${ck[@]}" --crds "$work/wl-1000/crds" "$work/wl-1000/objects"
  timeit crdkit-10000 "${ck[@]}" --crds "$work/wl-10000/crds" "$work/wl-10000/objects"
  if [ "$i" -le 2 ]; then # 60-170 s a run
    timeit kubectl-validate "$kv" --local-crds "$work/wl/crds" --output json "$work/wl/objects"
  fi
done
echo "== medians, load: $(cut -d' ' -f1-3 /proc/loadavg)"
awk '
  { wall[$1] = wall[$1] " " $2; rss[$1] = rss[$1] " " $4 }
  function median(s,   a, k, i, j, t) {
    k = split(s, a, " ")
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
  }
  END {
    for (l in wall) printf "%s: %.2f s wall, %d KB peak RSS (median)\n", l, median(wall[l]), median(rss[l])
    printf "kubectl-validate / crdkit (wall): %.1fx (target: at least 20x)\n", median(wall["kubectl-validate"]) / median(wall["crdkit"])
    printf "crdkit on all cores / one core (throughput): %.2fx (target: at least 1.7x on 2 cores)\n", median(wall["crdkit-1core"]) / median(wall["crdkit"])
    printf "peak RSS, 10,000 / 1,000 documents: +%.1f%% (target: under 10%%)\n", 100 * (median(rss["crdkit-10000"]) / median(rss["crdkit-1000"]) - 1)
  }' "$work/times" | sort

corpus=${CRDKIT_CORPUS:-../shared/corpus}
echo "== one document against the $(grep -rh '^kind: CustomResourceDefinition' "$corpus/crds" | wc -l) corpus CRDs ($corpus/crds), medians of 9 runs, wall s (user s): without the cache (--no-cache), cold (an empty cache before each run), warm (the cache an earlier run filled); load: $(cut -d' ' -f1-3 /proc/loadavg)"
cp -r "$corpus/crds" "$work/one-crds" # a copy the runs have not read yet
export CRDKIT_CACHE_DIR="$work/cache"
median() { # label, pre (a command run before each timed run), command...
  local label=$1 pre=$2; shift 2
  for i in $(seq 9); do
    eval "$pre"
    /usr/bin/time -f "%e %U" -o "$work/time" "$@" > /dev/null 2>&1 || true
    tail -n 1 "$work/time"
  done > "$work/one-times"
  printf " %s %.3f (%.3f)" "$label" "$(cut -d' ' -f1 "$work/one-times" | sort -n | sed -n 5p)" "$(cut -d' ' -f2 "$work/one-times" | sort -n | sed -n 5p)"
}
for obj in argo-rollouts/rollout-canary.yaml cert-manager/issuers.valid.yaml prometheus-operator/prometheus.yaml; do
  one=("$work/crdkit" validate --crds "$work/one-crds" "$corpus/objects/$obj")
  printf "%s:" "$obj"
  median no-cache : "$work/crdkit" validate --no-cache --crds "$work/one-crds" "$corpus/objects/$obj"
  median cold 'rm -rf "$CRDKIT_CACHE_DIR"' "${one[@]}"
  "${one[@]}" > /dev/null 2>&1 || true
  median warm : "${one[@]}"
  echo
done
unset CRDKIT_CACHE_DIR

echo "== verdicts (accepted or refused, per object file)"
(cd benchmarks && go run ./cmd/cliverdicts "$work/crdkit.out" "$work/kubectl-validate.out")
