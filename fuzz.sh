#!/usr/bin/env bash
# Runs every Go fuzz target of the repository for DURATION each, one after
# the other, and says per target how many inputs it ran, how many new
# interesting inputs it kept and, when it failed, why and how to reproduce
# it. Not part of test.sh or CI: run it before finishing a change, on the
# packages the change touched.
#
# Targets are found, not listed: every func FuzzXxx(*testing.F) in the test
# files of the packages given (default: every package of every module in
# the repository: the root module, conformance/, benchmarks/, any other).
set -uo pipefail

usage() {
  cat <<'EOF'
Usage: ./fuzz.sh [--list] [DURATION] [PACKAGE...]

Runs each fuzz target found in the packages for DURATION (default 30s; any
-fuzztime value: 90s, 10m, 1h, or 100000x for a number of executions), one
target at a time:
    go test -run '^$' -fuzz '^FuzzX$' -fuzztime DURATION -parallel N \
        -fuzzminimizetime M ./pkg

PACKAGE is a directory, with /... for all packages under it, in any module
of the repository: ./internal/docs, ./schema/..., ./conformance/celdiff.
Without one, every package of every module. --list prints the targets
found (package and name) and runs none.

The inputs a target finds interesting stay in Go's fuzz cache
($(go env GOCACHE)/fuzz), so the next run starts from them. A failing input
is written to the package's testdata/fuzz/FuzzX/ by go test: keep it there
as a seed once the failure is fixed.

Environment:
  FUZZ_PARALLEL  fuzzing workers per target (default 1: the go test -parallel)
  FUZZ_MINIMIZE  time to minimize each new input (default 10s; go test's own
                 default, 60s, can leave a slow target minimizing for most
                 of a short run)
  FUZZ_MATCH     extended regexp: only targets whose name matches
  FUZZ_LOGDIR    directory for each target's go test output (default: a new
                 temporary directory)

Exit status: 0 when every target ran clean, 1 when any failed, 2 on usage
errors or when no target is found.
EOF
}

caller=$(pwd)
cd "$(dirname "$0")" || exit 2
root=$(pwd)

case ${1:-} in -h | --help | help) usage; exit 0 ;; esac
list=
if [ "${1:-}" = --list ] || [ "${1:-}" = -l ]; then list=1; shift; fi
dur=30s
if [ $# -gt 0 ] && [[ $1 =~ ^([0-9]+(\.[0-9]+)?(ns|us|ms|s|m|h))+$|^[0-9]+x$ ]]; then
  dur=$1
  shift
fi
parallel=${FUZZ_PARALLEL:-1}
minimize=${FUZZ_MINIMIZE:-10s}
match=${FUZZ_MATCH:-}
if ! [[ $parallel =~ ^[1-9][0-9]*$ ]]; then
  echo "fuzz.sh: FUZZ_PARALLEL=$parallel is not a number of workers" >&2
  exit 2
fi

# Modules: every go.mod of the repository outside testdata and vendor, as
# absolute directories.
modules=()
while IFS= read -r m; do
  modules+=("$root${m#.}")
done < <(find . -name go.mod -not -path '*/testdata/*' -not -path '*/vendor/*' \
  -not -path './.git/*' -printf '%h\n' | sort)

# resolve ARG prints "moduledir<TAB>pattern" lines: the go list pattern for
# ARG (a directory relative to where the script was started) in the module
# that holds it, and for a recursive ARG also every module nested under it.
resolve() {
  local a=${1%/} rec=
  case $a in
    ... | ./...) a=. rec=1 ;;
    */...) a=${a%/...} rec=1 ;;
  esac
  local d best= m
  if ! d=$(cd "$caller" && cd "$a" 2>/dev/null && pwd); then
    echo "fuzz.sh: $1: not a directory" >&2
    return 1
  fi
  for m in "${modules[@]}"; do
    if [[ $d == "$m" || $d == "$m"/* ]] && [ ${#m} -gt ${#best} ]; then best=$m; fi
  done
  if [ -z "$best" ]; then
    echo "fuzz.sh: $1: in no module of this repository" >&2
    return 1
  fi
  local rel=.${d#"$best"}
  if [ -n "$rec" ]; then
    printf '%s\t%s\n' "$best" "$rel/..."
    for m in "${modules[@]}"; do
      if [[ $m == "$d"/* ]]; then printf '%s\t%s\n' "$m" "./..."; fi
    done
  else
    printf '%s\t%s\n' "$best" "$rel"
  fi
}

[ $# -gt 0 ] || set -- "$root/..."
patterns=$(for a in "$@"; do resolve "$a" || echo FAIL; done)
if grep -q '^FAIL$' <<<"$patterns"; then exit 2; fi

# Targets: module, package directory relative to the module, name; in
# module and package order.
targets=()
for m in "${modules[@]}"; do
  pats=$(awk -F'\t' -v m="$m" '$1 == m { print $2 }' <<<"$patterns" | sort -u)
  [ -n "$pats" ] || continue
  # shellcheck disable=SC2086 # the patterns hold no spaces
  while IFS=$'\t' read -r dir files; do
    [[ $files =~ [^[:space:]] ]] || continue
    for t in $( (cd "$dir" && grep -hoE '^func Fuzz[A-Za-z0-9_]*\([A-Za-z_][A-Za-z0-9_]* \*testing\.F\)' $files /dev/null </dev/null) |
      sed -E 's/^func (Fuzz[A-Za-z0-9_]*)\(.*/\1/' | sort -u); do
      if [ -n "$match" ] && ! [[ $t =~ $match ]]; then continue; fi
      pkg=.${dir#"$m"}
      targets+=("$m"$'\t'"$pkg"$'\t'"$t")
    done
  done < <(cd "$m" && go list -e -f '{{.Dir}}{{"\t"}}{{join .TestGoFiles " "}} {{join .XTestGoFiles " "}}' $pats)
done
if [ ${#targets[@]} -eq 0 ]; then
  echo "fuzz.sh: no fuzz target in $*${match:+ matching $match}" >&2
  exit 2
fi

if [ -n "$list" ]; then
  for row in "${targets[@]}"; do
    IFS=$'\t' read -r m pkg t <<<"$row"
    echo ".${m#"$root"}${pkg#.} $t"
  done
  exit 0
fi

logdir=${FUZZ_LOGDIR:-$(mktemp -d -t crdkit-fuzz.XXXXXX)}
mkdir -p "$logdir" || exit 2
cache=$(go env GOCACHE)/fuzz
echo "fuzz.sh: ${#targets[@]} targets, $dur each, $parallel worker(s), minimizing for $minimize; corpus cache $cache; logs in $logdir"

interrupted=
trap 'interrupted=1' INT
rows=()
failed=0
i=0
for row in "${targets[@]}"; do
  IFS=$'\t' read -r m pkg t <<<"$row"
  i=$((i + 1))
  relmod=${m#"$root"}
  where=.$relmod${pkg#.}              # the package from the repository root
  cdpre=${relmod:+"cd ${relmod#/} && "} # how to reach its module
  echo "== [$i/${#targets[@]}] $t $where"
  log=$logdir/$(tr / _ <<<"${where#./}")_$t.log
  [ "$where" != . ] || log=$logdir/root_$t.log
  rc=0
  # Compile first, so that the times below are the fuzzing's (and a link's).
  if ! (cd "$m" && go test -c -fuzz "^$t\$" -o /dev/null "$pkg" >"$log" 2>&1); then
    rc=1
  fi
  start=$SECONDS
  TIMEFORMAT='%U %S'
  if [ $rc -eq 0 ]; then
    { time (cd "$m" && go test -run '^$' -fuzz "^$t\$" -fuzztime "$dur" -parallel "$parallel" \
      -fuzzminimizetime "$minimize" "$pkg" >"$log" 2>&1); } 2>"$log.time"
    rc=$?
  fi
  wall=$((SECONDS - start))
  cpu=$(awk '{ printf "%.0fs", $1 + $2 }' "$log.time" 2>/dev/null)
  rm -f "$log.time"
  # The coordinator's last status line: executions and new interesting inputs.
  stats=$(grep -E '^fuzz: elapsed: .*, execs: ' "$log" | tail -1)
  execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$stats")
  new=$(sed -nE 's/.*new interesting: ([0-9]+) \(total: ([0-9]+)\).*/\1/p' <<<"$stats")
  total=$(sed -nE 's/.*\(total: ([0-9]+)\).*/\1/p' <<<"$stats")
  result=ok
  if [ -n "$interrupted" ]; then
    result=interrupted
  elif [ $rc -ne 0 ]; then
    result=FAIL
    failed=$((failed + 1))
  fi
  echo "   execs ${execs:--}, new interesting ${new:--} (corpus ${total:--}), ${wall}s, cpu ${cpu:--}: $result"
  if [ "$result" = FAIL ]; then
    # What failed: go test's failure report, else the end of its output
    # (a build error, a crashed coordinator).
    report=$(sed -n '/^--- FAIL/,/^FAIL$/p' "$log" | grep -vE '^(FAIL|exit status [0-9]+)$')
    [ -n "$report" ] || report=$(tail -20 "$log")
    head -60 <<<"$report" | cut -c1-300 | sed 's/^/   | /'
    id=$(sed -nE 's/^ *Failing input written to .*\/([^/]+)$/\1/p' "$log" | tail -1)
    if [ -z "$id" ]; then
      # A seed failed before fuzzing began (from testdata or f.Add; a cached
      # input that fails is written to testdata like a new one).
      id=$(sed -nE "s/^failure while testing seed corpus entry: $t\/(.+)$/\1/p" "$log" | tail -1)
    fi
    if [ -n "$id" ]; then
      echo "   reproduce: ${cdpre}go test -run '$t/$id' $pkg"
    else
      echo "   output: $log"
    fi
  fi
  rows+=("$t"$'\t'"$where"$'\t'"${wall}s"$'\t'"${cpu:--}"$'\t'"${execs:--}"$'\t'"${new:--}"$'\t'"$result")
  [ -z "$interrupted" ] || break
done

echo
echo "== summary (fuzztime $dur, $parallel worker(s); wall and cpu (user+sys) of go test after the build)"
{
  printf 'target\tpackage\twall\tcpu\texecs\tnew\tresult\n'
  printf '%s\n' "${rows[@]}"
} | awk -F'\t' '{ for (i = 1; i <= NF; i++) { cell[NR, i] = $i; if (length($i) > w[i]) w[i] = length($i) } }
  END { for (r = 1; r <= NR; r++) { line = ""
          for (i = 1; i <= 7; i++) line = line sprintf(i >= 3 && i <= 6 ? "%*s  " : "%-*s  ", w[i], cell[r, i])
          sub(/ +$/, "", line); print line } }'
echo "targets: ${#rows[@]} run, $failed failed${interrupted:+, interrupted}"
if [ -n "$interrupted" ]; then exit 130; fi
[ "$failed" -eq 0 ]
