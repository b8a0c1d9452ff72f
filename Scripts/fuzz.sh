#!/usr/bin/env bash
# Fuzzes heavy-task's argument parser and the log file's line encoder with libFuzzer, which this
# toolchain ships (`swiftc -sanitize=fuzzer`), each for SECONDS (default 60).
#
#   Scripts/fuzz.sh            # 60 s each
#   Scripts/fuzz.sh 300        # 5 minutes each
#
# The corpus each fuzzer grows is kept in Tests/Fuzz/Corpus/<name>; a crash leaves its input in
# .build/fuzz/<name>/ and makes the script fail. Record the summary in Documentation/Fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
out=.build/fuzz
mkdir -p "$out"

build() {
  local name=$1
  shift
  echo "Building the $name fuzzer..."
  # Release mode with the address sanitizer, as libFuzzer expects; the linker's notes about
  # ASan's local symbols are noise.
  swiftc -O -sanitize=fuzzer,address -parse-as-library -swift-version 6 "$@" \
    -o "$out/$name-fuzzer" 2> >(grep -v "Cannot export local symbol" >&2)
}

run() {
  local name=$1
  local corpus=Tests/Fuzz/Corpus/$name
  mkdir -p "$corpus" "$out/$name"
  echo "Fuzzing $name for ${seconds}s..."
  local log="$out/$name.log"
  if ! "$out/$name-fuzzer" "$corpus" -max_total_time="$seconds" -print_final_stats=1 \
    -artifact_prefix="$out/$name/" >"$log" 2>&1; then
    tail -n 40 "$log"
    echo "error: the $name fuzzer found a crash; its input is in $out/$name/" >&2
    return 1
  fi
  local runs
  runs=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
  local coverage
  coverage=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | awk '{print $2}')
  echo "  $name: ${runs:-?} inputs in ${seconds}s, ${coverage:-?} coverage points," \
    "$(ls "$corpus" | wc -l | tr -d ' ') in the corpus, no crash"
}

# The parser uses the examples' shared argument scanner; compiled as one module named after it,
# its `import ExampleSupport` is ignored (with a warning).
build options -module-name ExampleSupport Examples/Support/Arguments.swift \
  Examples/heavy-task/Options.swift Tests/Fuzz/OptionsFuzzer.swift
# The encoder is compiled into one module with the core it uses (its phases and units), named
# after the core, so its `import TaskProgress` is ignored (with a warning) as above.
build log-line -module-name TaskProgress -package-name swift_task_progress \
  -enable-upcoming-feature ExistentialAny -enable-upcoming-feature MemberImportVisibility \
  -enable-upcoming-feature InternalImportsByDefault \
  $(find Sources/TaskProgress -name '*.swift' | sort) \
  Sources/TaskProgressAdapters/LogFile/LogLine.swift Tests/Fuzz/LogLineFuzzer.swift

status=0
run options || status=1
run log-line || status=1
exit "$status"
