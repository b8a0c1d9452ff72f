#!/usr/bin/env bash
# Checks that the Swift snippets of the documentation compile, in a release build, as a user of
# the package would write them, and that the README's quick start runs and prints what the
# README says.
#
#   Scripts/check-snippets.sh      # about two minutes: one release build of every snippet
#
# What is checked: every ```swift block of README.md, of the .md files of the three DocC
# catalogs, Sources/TaskProgress/TaskProgress.docc,
# Sources/TaskProgressAdapters/TaskProgressAdapters.docc and
# Sources/TaskProgressFoundation/TaskProgressFoundation.docc, and of the symbol comments (`///`)
# of every Swift file under Sources, which Quick Help and the symbols' pages show. Blocks in other
# languages (```sh, ```text, a bare ```) are not Swift and are not checked.
#
# What is skipped, and listed as skipped:
#   - a block that contains `import SwiftUI`, which does not exist on Linux;
#   - a block right after an HTML comment `<!-- snippet: skip (reason) -->` (the comment is the
#     nearest non-blank line before the fence; in a symbol comment, a `///` line). Use it only
#     for what cannot compile here by nature: a SwiftUI fragment without its import, a
#     Package.swift fragment, the example of an internal symbol (only its module can use it), an
#     API this toolchain does not have (Foundation's ProgressManager).
# SwiftUI does not exist on Linux, where CI runs, so the SwiftUI blocks are compiled only by hand
# on a Mac (Documentation/ReleaseChecklist.md). (The views of the SwiftUIExample target compile on
# Linux too, against a stand-in for SwiftUI, in the SwiftUIExampleTests target.)
#
# How a block becomes code: each document is a module of its own in a fresh package that depends
# on a copy of this repository, and each block a file of that module, so that a block may use
# what an earlier block of the same document declared, as a reader would.
#   - Declarations (struct, class, enum, protocol, extension, actor, func, typealias, with their
#     attributes and comments) stay at file scope. `@main` becomes `@MainActor`: a library module
#     has no entry point, and `@main` is what makes `main()` run on the main actor.
#   - Statements, `let` and `var` included, go, in order, into the body of
#     `@MainActor public func snippet_<line>() async throws`.
#   - Imports: every file imports what any block of its document imports, or `TaskProgress` and
#     `TaskProgressAdapters` when no block of the document imports anything (`Foundation`,
#     `TaskProgress` and `TaskProgressFoundation` for a Swift file of TaskProgressFoundation). An import that only
#     some platforms have stays conditional, as the document writes it:
#     `#if canImport(FoundationNetworking)`, `import FoundationNetworking`, `#endif`. The snippets
#     are built for the platform the script runs on, so on Linux those that import Foundation
#     compile against swift-corelibs-foundation and its FoundationNetworking.
#   - Every file also imports SnippetSupport (Scripts/snippets/SnippetSupport.swift), which
#     declares the few names the documents use without declaring them: `runner`, `recorder`,
#     `objects`, `files`, `importFile(_:)`, `upload(_:)`, and their like. The files of a document
#     that imports TaskProgressFoundation also import SnippetSupportFoundation
#     (Scripts/snippets/SnippetSupportFoundation.swift), whose names are Foundation's types:
#     `archiveURL`, `archiveFile`, `unpack(_:)`, `legacyImport(progress:)`.
#   - `#sourceLocation` points every diagnostic at the Markdown file and line of the snippet.
#   - Any compiler warning in a snippet fails the check. In particular an unused value, such as
#     a token that is never used again, which an optimized build may release at once.
#
# What runs: a block right after `<!-- snippet: run -->` is also run, as a program of its own, in
# an empty folder. The blocks that follow it, up to the next ```swift block, and that come right
# after `<!-- snippet: stdout -->`, `<!-- snippet: stderr -->` or `<!-- snippet: file NAME -->`
# must match what it wrote to standard output, to standard error, or to the file NAME: the
# documented lines, in order, where a line `...` stands for any number of lines and `…` within a
# line for any text.
#
# The repository is copied (without .build and .git) to a folder named swift-task-progress, the
# package's identity, whatever the folder of this clone is called. Set KEEP_SNIPPETS=1 to keep the
# generated package; it is kept anyway when the check fails.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/check-snippets.XXXXXX")

finish() {
  local status=$?
  if [ "$status" -eq 0 ] && [ -z "${KEEP_SNIPPETS:-}" ]; then
    rm -rf "$work"
  else
    echo "The generated package is in $work" >&2
  fi
}
trap finish EXIT

echo "Copying the repository to $work/swift-task-progress..."
mkdir -p "$work/swift-task-progress"
tar -C "$repo" --exclude=./.git --exclude=.build --exclude=.swiftpm -cf - . |
  tar -C "$work/swift-task-progress" -xf -

echo "Extracting the snippets..."
python3 Scripts/snippets/snippets.py generate "$repo" "$work/snippets" >"$work/runnable"
for support in SnippetSupport SnippetSupportFoundation; do
  mkdir -p "$work/snippets/Sources/$support"
  cp "Scripts/snippets/$support.swift" "$work/snippets/Sources/$support/"
done

echo "Building them in release mode..."
# SwiftPM's lock files for the package go to TMPDIR: keep them in the folder that is removed.
mkdir -p "$work/tmp"
export TMPDIR="$work/tmp"
if ! swift build -c release --package-path "$work/snippets" 2>&1 | tee "$work/build.log"; then
  echo "error: a snippet does not compile; the errors above name its file and line" >&2
  exit 1
fi
# Diagnostics of the snippets name the Markdown file, or the Swift file under Sources (a relative
# path, as `#sourceLocation` gives it) whose symbol comment holds the snippet; those of the support
# files, their own paths.
if grep -E '^([^ ]*(\.md|SnippetSupport(Foundation)?\.swift)|Sources/[^ ]*\.swift):[0-9]+:[0-9]+: warning:' \
  "$work/build.log" |
  sort -u >"$work/warnings" && [ -s "$work/warnings" ]; then
  echo >&2
  echo "error: snippets compile with warnings:" >&2
  cat "$work/warnings" >&2
  exit 1
fi

bin=$(swift build -c release --package-path "$work/snippets" --show-bin-path)
number=0
while read -r snippet; do
  number=$((number + 1))
  folder="$work/run-$number"
  mkdir -p "$folder"
  echo "Running $snippet..."
  status=0
  (cd "$folder" && timeout 120 "$bin/run-snippet" "$snippet" </dev/null >stdout 2>stderr) ||
    status=$?
  if [ "$status" -ne 0 ]; then
    echo "error: $snippet exited with status $status" >&2
    cat "$folder/stdout" "$folder/stderr" >&2
    exit 1
  fi
  python3 Scripts/snippets/snippets.py expect "$repo" "$snippet" "$folder"
done <"$work/runnable"

echo "Every snippet compiles without warnings, and the runnable ones print what they document."
