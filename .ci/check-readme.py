#!/usr/bin/env python3
"""Holds the README to what CI compiles, and to its size.

Every ```swift block of README.md must be preceded (on the line before its fence) by one of:
  <!-- from PATH: NAME -->      the block is, word for word, the region of PATH between the lines
                                `// tour: NAME` and `// tour: end` (its common indentation removed);
                                PATH is relative to the repository and is compiled and run by CI;
  <!-- not compiled: REASON -->  a block that cannot be part of a program (a package manifest).
Every region of a file named so must appear in the README, so the tour and its source cannot drift apart
in either direction. The README may have at most 400 lines: it is the front door, the guides are DocC
articles and the figures live in Benchmarks/README.md.

Exit status 0 when all holds, 1 with a message naming each difference otherwise.
"""
import pathlib
import re
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
MAX_LINES = 400
MARKER = re.compile(r"^<!-- (?:from (?P<path>[^:]+): (?P<name>[\w-]+)|not compiled: .+) -->$")


def regions(path):
    """The tour regions of a source file, by name."""
    found, name, lines = {}, None, []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("// tour: "):
            label = stripped[len("// tour: "):]
            if label == "end":
                if name is None:
                    raise SystemExit(f"{path}:{number}: `// tour: end` without a region")
                found[name] = textwrap.dedent("\n".join(lines)).strip("\n")
                name, lines = None, []
            elif name is not None:
                raise SystemExit(f"{path}:{number}: region {label} starts inside region {name}")
            else:
                name = label
        elif name is not None:
            lines.append(line)
    if name is not None:
        raise SystemExit(f"{path}: region {name} has no `// tour: end`")
    return found


def main():
    text = README.read_text().splitlines()
    problems = []
    if len(text) > MAX_LINES:
        problems.append(f"README.md has {len(text)} lines, more than {MAX_LINES}")
    used, sources = set(), {}
    index = 0
    while index < len(text):
        line = text[index]
        if line.startswith("```"):
            language = line[3:].strip()
            end = index + 1
            while end < len(text) and not text[end].startswith("```"):
                end += 1
            body = "\n".join(text[index + 1:end])
            if language == "swift":
                before = text[index - 1].strip() if index > 0 else ""
                marker = MARKER.match(before)
                if not marker:
                    problems.append(f"README.md:{index + 1}: a swift block without a `<!-- from PATH: NAME -->` "
                                    "or `<!-- not compiled: REASON -->` line before it")
                elif marker.group("path"):
                    path = ROOT / marker.group("path")
                    if not path.is_file():
                        problems.append(f"README.md:{index}: {marker.group('path')} does not exist")
                    else:
                        source = sources.setdefault(path, regions(path))
                        name = marker.group("name")
                        used.add((path, name))
                        if name not in source:
                            problems.append(f"README.md:{index}: {marker.group('path')} has no region {name}")
                        elif source[name] != body.strip("\n"):
                            problems.append(f"README.md:{index + 1}: the block differs from region {name} of "
                                            f"{marker.group('path')}; copy the compiled code into the README")
            index = end + 1
        else:
            index += 1
    for path, source in sources.items():
        for name in source:
            if (path, name) not in used:
                problems.append(f"{path.relative_to(ROOT)}: region {name} is not in the README")
    for problem in problems:
        print("error:", problem)
    if problems:
        return 1
    print(f"README.md: {len(text)} lines; {len(used)} swift blocks match the compiled tour")
    return 0


if __name__ == "__main__":
    sys.exit(main())
