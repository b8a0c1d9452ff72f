#!/usr/bin/env bash
# Runs the test suite N times (10 unless told) while CPU hogs keep every core busy, as a shared
# CI machine or a contributor's busy laptop would, and prints each test that failed with the
# number of runs it failed in.
#
#   Scripts/stress-tests.sh [--hogs H] [N] [extra swift test arguments...]
#   Scripts/stress-tests.sh 10 --sanitize=thread
#   Scripts/stress-tests.sh --hogs 3 1      # one run beside three hogs per core
#
# --hogs H starts H busy loops per core (1 unless told): 3 is a laptop building something else.
#
# It builds first, unloaded, then runs `swift test --skip-build` with the suites in parallel.
# Each run's output goes to .build/stress-tests/run-K.log. It exits 0 only if every run passed.
set -uo pipefail
cd "$(dirname "$0")/.."

usage() {
  echo "usage: $0 [--hogs per-core] [runs] [swift test arguments...]" >&2
  exit 64
}

hogs_per_core=1
if [[ ${1:-} == --hogs ]]; then
  hogs_per_core=${2:-}
  shift 2 || usage
fi
if ! [[ $hogs_per_core =~ ^[0-9]+$ ]]; then
  usage
fi

runs=${1:-10}
shift || true
if ! [[ $runs =~ ^[1-9][0-9]*$ ]]; then
  usage
fi

logs=.build/stress-tests
mkdir -p "$logs"
rm -f "$logs"/run-*.log

echo "Building..."
swift build --build-tests "$@" >"$logs/build.log" 2>&1 || {
  tail -n 40 "$logs/build.log"
  echo "build failed: see $logs/build.log" >&2
  exit 1
}

# Busy loops, H per core, at the tests' own priority: the scheduler shares each core between the
# hogs and the tests, the way other jobs on a shared machine do. Each is killed on exit.
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
  hogs=()
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq $((cores * hogs_per_core))); do
  sh -c 'while :; do :; done' &
  hogs+=("$!")
done
echo "${#hogs[@]} CPU hogs running ($hogs_per_core per core); $runs runs of the suite"

passed=0
for run in $(seq "$runs"); do
  log=$logs/run-$run.log
  start=$(date +%s)
  # The suite in parallel, then the test that takes every thread of the pool, by itself.
  if swift test --skip-build "$@" >"$log" 2>&1 \
    && TASKPROGRESS_POOL_PRESSURE=1 swift test --skip-build "$@" \
      --filter observersHearFromARunWhileEveryPoolThreadIsBusy >>"$log" 2>&1; then
    passed=$((passed + 1))
    outcome=passed
  else
    outcome=FAILED
  fi
  echo "run $run/$runs: $outcome in $(($(date +%s) - start)) s ($log)"
done
stop_hogs

echo
echo "$passed of $runs runs passed"
# Swift Testing prints one "✘ Test NAME ... failed after" line per failing test.
failures=$(grep -h -E '^✘ Test .* failed after' "$logs"/run-*.log \
  | sed -E 's/^✘ Test (.*) failed after .*/\1/; s/ with [0-9]+ (test cases?|arguments?)$//' \
  | sort | uniq -c | sort -rn)
if [[ -n $failures ]]; then
  echo "Failed tests (runs failed in, test):"
  echo "$failures"
fi
# A crash or a hang ends a run without a line per test: say so.
for log in "$logs"/run-*.log; do
  if ! grep -q -E '^(✔|✘) Test run with' "$log"; then
    echo "$log: the run ended before its summary (crash or hang); its tail:"
    tail -n 15 "$log"
  fi
done
[[ $passed -eq $runs ]]
