#!/usr/bin/env bash
# Builds the DocC archive of the TaskProgress module and fails on any DocC warning.
#
# No plugin: `swift build` writes the module's symbol graph, and `docc convert` combines it with
# the catalog in Sources/TaskProgress/TaskProgress.docc. Everything generated stays under .build/.
#
#   Scripts/build-docs.sh            # writes .build/docs/TaskProgress.doccarchive
#   docc preview Sources/TaskProgress/TaskProgress.docc \
#     --additional-symbol-graph-dir .build/docs/symbol-graphs   # to browse it locally
set -euo pipefail
cd "$(dirname "$0")/.."

docs=.build/docs
# A scratch path of its own, so that the symbol-graph flags never invalidate the main build.
scratch="$docs/scratch"
graphs="$PWD/$docs/symbol-graphs"
archive="$docs/TaskProgress.doccarchive"

build_symbol_graphs() {
  # The compiler writes the graph while it emits the module. Public symbols only: that is the
  # default, and with InternalImportsByDefault nothing internal leaks in through imports.
  swift build --scratch-path "$scratch" --target TaskProgress \
    -Xswiftc -emit-symbol-graph \
    -Xswiftc -emit-symbol-graph-dir -Xswiftc "$graphs"
}

mkdir -p "$graphs"
echo "Building the TaskProgress module with its symbol graph..."
build_symbol_graphs
if [ ! -f "$graphs/TaskProgress.symbols.json" ]; then
  # The module was up to date, so the compiler did not run and wrote no graph: build it afresh.
  echo "No symbol graph from an up-to-date build; building the module again from scratch..."
  rm -rf "$scratch" "$graphs"
  mkdir -p "$graphs"
  build_symbol_graphs
fi

echo "Converting the documentation..."
rm -rf "$archive"
docc convert Sources/TaskProgress/TaskProgress.docc \
  --fallback-display-name TaskProgress \
  --fallback-bundle-identifier org.swift.TaskProgress \
  --additional-symbol-graph-dir "$graphs" \
  --warnings-as-errors \
  --output-path "$archive"

echo "Documentation archive: $PWD/$archive"
