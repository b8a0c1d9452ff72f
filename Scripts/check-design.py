#!/usr/bin/env python3
"""Keeps Documentation/Design.md true to the code.

Checks, for the map (the table under "## Map") and the folder table (under "## Where things
are"):
- every file named in backticks with a `.swift` ending exists under Sources/;
- every type named in backticks in the map's "Type (file)" column is declared in Sources/;
- every folder named in the folder table exists, and every folder of Sources/ that holds Swift
  files is listed there.
Prints each problem on a line of its own, naming the table and the name, and exits 1 if any.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DESIGN = os.path.join(ROOT, "Documentation", "Design.md")
SOURCES = os.path.join(ROOT, "Sources")
# Types of the standard library, Synchronization and Foundation that the tables name beside ours.
OUTSIDE = {"Atomic", "Mutex", "Progress", "Duration", "ContinuousClock", "SuspendingClock", "Clock", "AsyncStream"}


def section(text, heading):
    """The lines of the section that starts with `heading`, up to the next `## ` heading."""
    start = text.index(heading)
    end = text.find("\n## ", start + len(heading))
    return text[start:end if end != -1 else len(text)]


def table_rows(block):
    return [line for line in block.splitlines() if line.startswith("|") and not re.match(r"^\|[-| ]+\|$", line)][1:]


def swift_files():
    found = {}
    for directory, _, files in os.walk(SOURCES):
        for name in files:
            if name.endswith(".swift"):
                path = os.path.relpath(os.path.join(directory, name), SOURCES)
                found.setdefault(name, []).append(path)
    return found


def declared_types():
    names = set()
    pattern = re.compile(
        r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|nonisolated|indirect)\s+)*"
        r"(?:class|struct|enum|protocol|actor|typealias|extension)\s+([A-Za-z_][\w.]*)"
    )
    for directory, _, files in os.walk(SOURCES):
        for name in files:
            if not name.endswith(".swift"):
                continue
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                for line in handle:
                    match = pattern.match(line)
                    if match:
                        full = match.group(1)
                        names.add(full)
                        names.add(full.split(".")[-1])
    return names


def source_folders():
    folders = set()
    for directory, _, files in os.walk(SOURCES):
        if ".docc" in directory:
            continue
        if any(name.endswith(".swift") for name in files):
            folders.add(os.path.relpath(directory, SOURCES) + "/")
    return folders


def main():
    with open(DESIGN, encoding="utf-8") as handle:
        text = handle.read()
    problems = []
    files = swift_files()
    types = declared_types()

    map_rows = table_rows(section(text, "## Map"))
    for row in map_rows:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        if len(cells) < 2:
            continue
        for name in re.findall(r"`([^`]+)`", cells[1]):
            if name.endswith(".swift"):
                base = os.path.basename(name)
                candidates = files.get(base, [])
                if not any(path.endswith(name) for path in candidates):
                    problems.append(f"Design.md map: file `{name}` is not in Sources/")
            elif name.endswith("/"):
                if not any(folder.endswith(name) for folder in source_folders()):
                    problems.append(f"Design.md map: folder `{name}` is not in Sources/")
            elif re.fullmatch(r"[A-Z][\w.]*", name):
                if name not in types and name.split(".")[-1] not in types and name not in OUTSIDE:
                    problems.append(f"Design.md map: type `{name}` is declared nowhere in Sources/")

    listed = set()
    for row in table_rows(section(text, "## Where things are")):
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        for folder in re.findall(r"`([^`]+/)`", cells[0]):
            listed.add(folder)
            if not os.path.isdir(os.path.join(SOURCES, folder)):
                problems.append(f"Design.md folder table: `{folder}` is not a folder of Sources/")
        for name in re.findall(r"`([A-Z][\w.]*)`", cells[1] if len(cells) > 1 else ""):
            if name not in types and name.split(".")[-1] not in types and name not in OUTSIDE:
                problems.append(f"Design.md folder table: type `{name}` is declared nowhere in Sources/")
    for folder in sorted(source_folders() - listed):
        problems.append(f"Design.md folder table: Sources/{folder} holds Swift files but has no row")

    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} place(s) where Documentation/Design.md and Sources/ disagree")
        return 1
    print(f"Design.md: {len(map_rows)} map rows and the folder table match Sources/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
