#!/usr/bin/env python3
"""Extracts the Swift code blocks of the documentation into a package, and checks what it runs.

Used by Scripts/check-snippets.sh, which explains the rules. Two commands:

  snippets.py generate REPO PACKAGE   writes the package of snippets, prints the runnable ones
  snippets.py expect REPO ID DIR      compares what the runnable snippet ID wrote (DIR/stdout,
                                      DIR/stderr, files in DIR) with the blocks that follow it
"""

import os
import re
import sys

# Markdown files whose ```swift blocks are checked: the README and the three DocC catalogs.
CATALOGS = [
    "Sources/TaskProgress/TaskProgress.docc",
    "Sources/TaskProgressAdapters/TaskProgressAdapters.docc",
    "Sources/TaskProgressFoundation/TaskProgressFoundation.docc",
]
# What a snippet imports when no block of its document imports anything.
DEFAULT_IMPORTS = ["TaskProgress", "TaskProgressAdapters"]
# The libraries of the package, which every snippet module may import.
LIBRARIES = ["TaskProgress", "TaskProgressAdapters", "TaskProgressFoundation"]
# The support module of the documents that import TaskProgressFoundation: the names they use
# without declaring them are Foundation's types, so they live apart from SnippetSupport, which
# imports no Foundation.
FOUNDATION_SUPPORT = "SnippetSupportFoundation"
IMPORT = re.compile(r"^\s*import\s+(\w+)\s*$")
# An import that only some platforms have: `#if canImport(FoundationNetworking)`, its imports,
# `#endif`.
CONDITIONAL_IMPORT = re.compile(
    r"^[ \t]*#if[ \t]+canImport\((\w+)\)[ \t]*\n((?:[ \t]*import[ \t]+\w+[ \t]*\n)+)[ \t]*#endif[ \t]*$",
    re.MULTILINE)
MARKER = re.compile(r"^\s*<!--\s*snippet:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([^\s`]*)")
DECLARATION_KEYWORDS = {
    "struct", "class", "enum", "protocol", "extension", "actor", "func", "typealias", "import",
}
MODIFIERS = {
    "public", "private", "fileprivate", "internal", "package", "open", "final", "static",
    "nonisolated", "indirect", "mutating", "nonmutating", "consuming", "borrowing",
}


# The libraries' sources, whose symbol comments (`///`) hold ```swift blocks too.
SOURCES = "Sources"
DOC_COMMENT = re.compile(r"^\s*/// ?(.*)$")
# What a line of a Swift file that is not part of a symbol comment reads as: it ends a block.
END_OF_COMMENT = object()


def documents(repo):
    found = ["README.md"]
    for catalog in CATALOGS:
        for folder, _, names in sorted(os.walk(os.path.join(repo, catalog))):
            for name in sorted(names):
                if name.endswith(".md"):
                    found.append(os.path.relpath(os.path.join(folder, name), repo))
    for folder, folders, names in sorted(os.walk(os.path.join(repo, SOURCES))):
        folders[:] = sorted(f for f in folders if not f.endswith(".docc"))
        for name in sorted(names):
            if name.endswith(".swift"):
                found.append(os.path.relpath(os.path.join(folder, name), repo))
    return found


def default_imports(document):
    """What a snippet imports when no block of its document imports anything."""
    if document.startswith(SOURCES + "/TaskProgressFoundation/"):
        return ["Foundation", "TaskProgress", "TaskProgressFoundation"]
    return DEFAULT_IMPORTS


class Block:
    def __init__(self, document, line, language, text, marker):
        self.document = document
        self.line = line  # The line of the block's first line of code, counted from 1.
        self.language = language
        self.text = text
        self.marker = marker  # The `<!-- snippet: ... -->` right before the fence, if any.

    @property
    def id(self):
        return f"{self.document}:{self.line}"


def blocks(repo, document):
    """Every fenced code block of a Markdown file, or of the `///` comments of a Swift file, with
    the marker comment right before it."""
    lines = open(os.path.join(repo, document), encoding="utf-8").read().split("\n")
    if document.endswith(".swift"):
        # Only the text of the symbol comments; every other line is an END_OF_COMMENT, so that
        # the lines keep their numbers, a block never runs past its comment and a marker never
        # applies to a block in the next comment.
        lines = [m.group(1) if (m := DOC_COMMENT.match(line)) else END_OF_COMMENT for line in lines]
    found, index, previous = [], 0, ""
    while index < len(lines):
        if lines[index] is END_OF_COMMENT:
            previous, index = "", index + 1
            continue
        match = FENCE.match(lines[index])
        if not match:
            if lines[index].strip():
                previous = lines[index]
            index += 1
            continue
        indent, fence, language = match.groups()
        marker = MARKER.match(previous)
        first, body = index + 1, []
        index += 1
        while (index < len(lines) and lines[index] is not END_OF_COMMENT
               and not lines[index].strip().startswith(fence)):
            line = lines[index]
            body.append(line[len(indent):] if line.startswith(indent) else line.lstrip())
            index += 1
        found.append(Block(document, first + 1, language, "\n".join(body),
                           marker.group(1) if marker else None))
        previous, index = "", index + 1
    return found


def conditional_imports(text):
    """The block without its conditional imports, which are blanked, and those imports.

    Each import is returned as the lines that make it: `#if canImport(...)`, its imports,
    `#endif`. The lines are blanked rather than removed, so that the block's lines keep their
    numbers.
    """
    found = []

    def blank(match):
        found.append(tuple(line.strip() for line in match.group(0).split("\n")))
        return "\n" * match.group(0).count("\n")

    return CONDITIONAL_IMPORT.sub(blank, text), found


def skip_reason(block):
    if "import SwiftUI" in block.text:
        return "imports SwiftUI"
    if block.marker and block.marker.startswith("skip"):
        return block.marker[len("skip"):].strip(" ()") or "marked skip"
    return None


# MARK: - Splitting a block into declarations and statements

def strip_strings_and_comments(line, state):
    """The line with string contents and comments blanked, for counting brackets.

    `state` carries an open block comment or multi-line string from line to line.
    """
    out, i = [], 0
    while i < len(line):
        if state["block_comment"]:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out)
            state["block_comment"], i = False, end + 2
            continue
        if state["multiline_string"]:
            end = line.find('"""', i)
            if end < 0:
                return "".join(out)
            state["multiline_string"], i = False, end + 3
            continue
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            state["block_comment"], i = True, i + 2
            continue
        if line.startswith('"""', i):
            state["multiline_string"], i = True, i + 3
            continue
        if line[i] == '"':
            i += 1
            while i < len(line) and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
            out.append('""')
            continue
        out.append(line[i])
        i += 1
    return "".join(out)


def items(text):
    """The block's top-level items: (first line index, lines), split where the depth is 0."""
    lines = text.split("\n")
    result, current, depth = [], None, 0
    state = {"block_comment": False, "multiline_string": False}
    pending_comments = []  # `///` and `//` lines and attributes waiting for their item.
    for number, line in enumerate(lines):
        stripped = line.strip()
        inside = state["block_comment"] or state["multiline_string"]
        starts_item = (
            depth == 0 and not inside and stripped
            and not re.match(r"^([.})\]?:]|&&|\|\||\+|-|\*|/(?!/)|==|!=|<|>|else\b|catch\b|where\b)", stripped)
        )
        code = strip_strings_and_comments(line, state)
        if starts_item:
            if stripped.startswith("//") or re.match(r"^@\w+(\(.*\))?$", stripped):
                pending_comments.append((number, line))
            else:
                first = pending_comments[0][0] if pending_comments else number
                current = (first, [l for _, l in pending_comments] + [line])
                pending_comments = []
                result.append(current)
        elif current is not None:
            current[1].append(line)
        elif stripped:
            pending_comments.append((number, line))
        depth += code.count("{") + code.count("(") + code.count("[")
        depth -= code.count("}") + code.count(")") + code.count("]")
        depth = max(depth, 0)
    if pending_comments:  # Comments at the end of a block belong to no declaration.
        result.append((pending_comments[0][0], [l for _, l in pending_comments]))
    return result


def is_declaration(lines):
    for line in lines:
        words = strip_strings_and_comments(line, {"block_comment": False, "multiline_string": False})
        words = re.sub(r"@\w+(\([^)]*\))?", " ", words).split()
        for word in words:
            if word in MODIFIERS:
                continue
            return word in DECLARATION_KEYWORDS
    return False


# MARK: - Generating the package

def identifier(text):
    # `+` and `.` both name extensions (`TaskRunnerGroup+Queue.swift`, `TaskRunnerGroup.Queue.swift`):
    # spelled apart, so that two files never make one module.
    return re.sub(r"[^A-Za-z0-9]", "_", text.replace("+", "_plus_"))


def module_name(document):
    name = document
    for catalog in CATALOGS:
        if document.startswith(catalog + "/"):
            name = catalog.split("/")[-1].replace(".docc", "") + "_" + document[len(catalog) + 1:]
    return "Snippets_" + identifier(name.replace(".md", "").replace(".swift", ""))


def source_location(document, line):
    return f'#sourceLocation(file: "{document}", line: {line})'


def generate(repo, package):
    manifest_targets, runnable, skipped, checked = [], [], [], 0
    sources = os.path.join(package, "Sources")
    modules = {}
    for document in documents(repo):
        other = modules.setdefault(module_name(document), document)
        if other != document:
            raise SystemExit(f"error: {other} and {document} make one snippet module, "
                             f"{module_name(document)}: rename one, or spell them apart in identifier()")
        swift = [b for b in blocks(repo, document) if b.language == "swift"]
        kept = []
        for block in swift:
            reason = skip_reason(block)
            if reason:
                skipped.append(f"{block.id} ({reason})")
            else:
                kept.append(block)
        if not kept:
            continue
        module = module_name(document)
        imports, conditional = [], []
        for block in kept:
            block.text, found = conditional_imports(block.text)
            conditional += [group for group in found if group not in conditional]
            for line in block.text.split("\n"):
                found = IMPORT.match(line)
                if found and found.group(1) not in imports:
                    imports.append(found.group(1))
        imports = imports or default_imports(document)
        supports = ["SnippetSupport"]
        if "TaskProgressFoundation" in imports:
            supports.append(FOUNDATION_SUPPORT)
        folder = os.path.join(sources, module)
        os.makedirs(folder, exist_ok=True)
        for block in kept:
            checked += 1
            declarations, statements = [], []
            for first, lines in items(block.text):
                code = [l for l in lines if l.strip() and not l.strip().startswith("//")]
                if all(IMPORT.match(l) for l in code):
                    continue  # Imports go at the top of the file.
                # A library has no entry point; `@main` would also make `main()` main-actor.
                lines = ["@MainActor" if l.strip() == "@main" else l for l in lines]
                while lines and not lines[-1].strip():
                    lines = lines[:-1]
                target = declarations if is_declaration(lines) else statements
                target.append((block.line + first, lines))
            function = f"snippet_{block.line}"
            out = [f"// {block.id}, generated by Scripts/check-snippets.sh"]
            out += [f"import {name}" for name in imports]
            out += [line for group in conditional for line in group]
            out += [f"import {name}" for name in supports] + [""]
            for line, lines in declarations:
                out += [source_location(block.document, line)] + lines + ["#sourceLocation()", ""]
            if statements:
                out.append(f"@MainActor public func {function}() async throws {{")
                for line, lines in statements:
                    out += [source_location(block.document, line)] + lines + ["#sourceLocation()"]
                out.append("}")
            with open(os.path.join(folder, f"Snippet_{block.line}.swift"), "w") as file:
                file.write("\n".join(out) + "\n")
            if block.marker == "run":
                if not statements:
                    sys.exit(f"{block.id}: a runnable snippet needs statements to run")
                runnable.append({"id": block.id, "module": module, "function": function})
        manifest_targets.append((module, supports))

    write_manifest(package, manifest_targets, runnable)
    runner = os.path.join(sources, "run-snippet")
    os.makedirs(runner, exist_ok=True)
    with open(os.path.join(runner, "main.swift"), "w") as file:
        lines = ["// Runs one snippet, named by its document and line, generated by Scripts/check-snippets.sh"]
        lines += [f"import {m}" for m in sorted({r['module'] for r in runnable})]
        lines += ["", "switch CommandLine.arguments.dropFirst().first {"]
        for snippet in runnable:
            lines.append(f'case "{snippet["id"]}": try await {snippet["module"]}.{snippet["function"]}()')
        lines += ['default: fatalError("usage: run-snippet DOCUMENT:LINE")', "}"]
        file.write("\n".join(lines) + "\n")
    for reason in skipped:
        print(f"skipped {reason}", file=sys.stderr)
    print(f"{checked} snippets to compile, {len(skipped)} skipped, {len(runnable)} to run",
          file=sys.stderr)
    for snippet in runnable:
        print(snippet["id"])


def write_manifest(package, modules, runnable):
    library = [f'.product(name: "{name}", package: "swift-task-progress")' for name in LIBRARIES]

    def target(kind, name, dependencies):
        listed = "".join(f"\n        {d}," for d in dependencies)
        return f'    .{kind}(\n      name: "{name}",\n      dependencies: [{listed}\n      ]\n    ),'

    targets = [target("target", "SnippetSupport", library),
               target("target", FOUNDATION_SUPPORT, library)]
    targets += [target("target", m, library + [f'"{s}"' for s in supports])
                for m, supports in modules]
    targets.append(target("executableTarget", "run-snippet",
                          [f'"{m}"' for m in sorted({r["module"] for r in runnable})]))
    with open(os.path.join(package, "Package.swift"), "w") as file:
        file.write(f"""// swift-tools-version: 6.2
// Generated by Scripts/check-snippets.sh: one module per document, one file per snippet.
import PackageDescription

let package = Package(
  name: "snippets",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [.package(path: "../swift-task-progress")],
  targets: [
{chr(10).join(targets)}
  ],
  swiftLanguageModes: [.v6]
)
""")


# MARK: - Checking what a runnable snippet wrote

def matches(expected, actual):
    """Whether the `actual` lines are the `expected` ones.

    A line `...` stands for any number of lines, and `…` within a line for any text; every other
    expected line matches exactly one actual line.
    """
    def line_matches(pattern, line):
        regex = "^" + ".*?".join(re.escape(part) for part in pattern.split("…")) + "$"
        return re.match(regex, line) is not None

    # reachable[a]: the expected lines so far can match the first `a` actual lines.
    reachable = [True] + [False] * len(actual)
    for pattern in expected:
        if pattern == "...":
            for a in range(1, len(actual) + 1):
                reachable[a] = reachable[a] or reachable[a - 1]
        else:
            reachable = [False] + [
                reachable[a] and line_matches(pattern, actual[a]) for a in range(len(actual))]
    return reachable[len(actual)]


def expect(repo, snippet, directory):
    document, line = snippet.rsplit(":", 1)
    all_blocks = blocks(repo, document)
    index = next(i for i, b in enumerate(all_blocks) if str(b.line) == line)
    failures, checks = [], 0
    for block in all_blocks[index + 1:]:
        if block.language == "swift":
            break
        if not block.marker:
            continue
        kind, _, name = block.marker.partition(" ")
        if kind in ("stdout", "stderr"):
            path, what = os.path.join(directory, kind), f"standard {'output' if kind == 'stdout' else 'error'}"
        elif kind == "file" and name:
            path, what = os.path.join(directory, name), name
        else:
            continue
        checks += 1
        actual = open(path, encoding="utf-8").read().split("\n") if os.path.exists(path) else None
        if actual is not None and actual[-1] == "":
            actual.pop()
        expected = block.text.split("\n")
        if actual is None or not matches(expected, actual):
            failures.append(
                f"{block.id}: {what} of {snippet} differs from the documentation.\n"
                f"--- documented\n" + "\n".join(expected) + "\n--- actual\n"
                + ("(no such file)" if actual is None else "\n".join(actual)))
    if checks == 0:
        failures.append(f"{snippet}: no stdout, stderr or file block follows it to compare with")
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        sys.exit(1)
    print(f"{snippet}: {checks} outputs as documented", file=sys.stderr)


if __name__ == "__main__":
    command, repo = sys.argv[1], sys.argv[2]
    if command == "generate":
        generate(repo, sys.argv[3])
    elif command == "expect":
        expect(repo, sys.argv[3], sys.argv[4])
    else:
        sys.exit(f"unknown command {command}")
