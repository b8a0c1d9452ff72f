#!/usr/bin/env bash
# Builds the DocC archives of the three library modules, TaskProgress, TaskProgressAdapters and
# TaskProgressFoundation, and fails on any DocC warning, on a public symbol without documentation,
# and on a public symbol that no `## Topics` group curates.
#
# No plugin: `swift build` writes the modules' symbol graphs, and `docc convert` combines each
# with its catalog. TaskProgress is converted first, with the link metadata that lets the other
# modules' pages link to it as ``/TaskProgress/TaskRunner``. TaskProgressFoundation's public API is
# made of extensions of the core's types, so the graphs carry extension blocks
# (`-emit-extension-block-symbols`): DocC then documents those members under the module that
# declares them, as extended types. Everything generated stays under .build/docs.
#
#   Scripts/build-docs.sh   # writes .build/docs/<Module>.doccarchive for each module
#   docc preview Sources/TaskProgress/TaskProgress.docc \
#     --additional-symbol-graph-dir .build/docs/symbol-graphs/TaskProgress   # to browse one
set -euo pipefail
cd "$(dirname "$0")/.."

docs=.build/docs
# A scratch path of its own, so that the symbol-graph flags never invalidate the main build.
scratch="$docs/scratch"
emitted="$PWD/$docs/symbol-graphs/emitted"
modules=(TaskProgress TaskProgressAdapters TaskProgressFoundation)

build_symbol_graphs() {
  # Building the adapters and the Foundation bridge builds the core too, and the compiler writes
  # each module's graph while it emits the module. Public symbols only: that is the default, and
  # with InternalImportsByDefault nothing internal leaks in through imports. Both builds take the
  # same flags, so the second reuses the core that the first built.
  local target
  for target in TaskProgressAdapters TaskProgressFoundation; do
    swift build --scratch-path "$scratch" --target "$target" \
      -Xswiftc -emit-symbol-graph \
      -Xswiftc -emit-symbol-graph-dir -Xswiftc "$emitted" \
      -Xswiftc -emit-extension-block-symbols
  done
}

have_all_graphs() {
  local module
  for module in "${modules[@]}"; do
    [ -f "$emitted/$module.symbols.json" ] || return 1
  done
}

# Graphs stay from the last build: a module that is up to date keeps the graph it was built with.
mkdir -p "$emitted"
echo "Building ${modules[*]} with their symbol graphs..."
build_symbol_graphs
if ! have_all_graphs; then
  # A module was up to date, so the compiler did not run and wrote no graph: build afresh.
  echo "No symbol graph from an up-to-date build; building the modules again from scratch..."
  rm -rf "$scratch" "$emitted"
  mkdir -p "$emitted"
  build_symbol_graphs
fi

# One folder of graphs per module: docc documents every module whose graph it is given. A
# module's graph is `<Module>.symbols.json`, plus `<Module>@<Other>.symbols.json` for its
# extensions of other modules' types.
for module in "${modules[@]}"; do
  rm -rf "$docs/symbol-graphs/$module"
  mkdir -p "$docs/symbol-graphs/$module"
  cp "$emitted/$module.symbols.json" "$docs/symbol-graphs/$module/"
  for extension in "$emitted/$module@"*.symbols.json; do
    [ -e "$extension" ] && cp "$extension" "$docs/symbol-graphs/$module/"
  done
done

convert() {
  local module=$1 catalog=$2
  shift 2
  echo "Converting the $module documentation..."
  rm -rf "$docs/$module.doccarchive"
  docc convert "$catalog" \
    --fallback-display-name "$module" \
    --fallback-bundle-identifier "org.swift.$module" \
    --additional-symbol-graph-dir "$docs/symbol-graphs/$module" \
    --enable-experimental-external-link-support \
    --warnings-as-errors \
    --output-path "$docs/$module.doccarchive" \
    "$@"
}

convert TaskProgress Sources/TaskProgress/TaskProgress.docc
convert TaskProgressAdapters Sources/TaskProgressAdapters/TaskProgressAdapters.docc \
  --dependency "$docs/TaskProgress.doccarchive"
convert TaskProgressFoundation Sources/TaskProgressFoundation/TaskProgressFoundation.docc \
  --dependency "$docs/TaskProgress.doccarchive"

echo "Checking that every public symbol is documented and curated..."
python3 - "$docs" "${modules[@]}" <<'PYTHON'
import glob, json, os, sys

docs, modules = sys.argv[1], sys.argv[2:]
problems = []
for module in modules:
    # The module's own graph, and one per module whose types it extends: TaskProgressFoundation's
    # members of the core's types are in `TaskProgressFoundation@TaskProgress.symbols.json`.
    folder = os.path.join(docs, "symbol-graphs", module)
    graphs = [json.load(open(path)) for path in sorted(glob.glob(os.path.join(folder, "*.symbols.json")))]
    # Members the compiler adds from other modules' protocol extensions, such as `!=`, carry
    # `::SYNTHESIZED::` in their identifier; DocC lists them under "Default Implementations".
    # A protocol extension's default implementation is documented on its requirement's page.
    defaults = {r["source"] for graph in graphs for r in graph["relationships"]
                if r["kind"] == "defaultImplementationOf"}
    # An extension block (`swift.extension`) is no symbol of its own: DocC groups the members it
    # declares under their extended type.
    own = [s for graph in graphs for s in graph["symbols"]
           if "::SYNTHESIZED::" not in s["identifier"]["precise"]
           and s["identifier"]["precise"] not in defaults
           and s["kind"]["identifier"] != "swift.extension"]
    if not own:
        problems.append(f"{module}: no public symbol in its symbol graphs")
    pages, curated = {}, set()
    data = os.path.join(docs, f"{module}.doccarchive", "data", "documentation")
    for path in glob.glob(os.path.join(data, "**", "*.json"), recursive=True):
        page = json.load(open(path))
        external = page.get("metadata", {}).get("externalID")
        if external:
            pages[external] = page
        for section in page.get("topicSections", []):
            if not section.get("generated"):
                curated.update(section.get("identifiers", []))
    for symbol in own:
        name = "/".join(symbol["pathComponents"])
        page = pages.get(symbol["identifier"]["precise"])
        if page is None:
            problems.append(f"{module}: {name} has no page")
            continue
        if not page.get("abstract"):
            problems.append(f"{module}: {name} has no summary")
        if page["identifier"]["url"] not in curated:
            problems.append(f"{module}: {name} is in no `## Topics` group")
if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"Every public symbol of {', '.join(modules)} is documented and curated.")
PYTHON

echo "Documentation archives:"
for module in "${modules[@]}"; do
  echo "  $PWD/$docs/$module.doccarchive"
done
