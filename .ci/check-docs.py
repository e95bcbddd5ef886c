#!/usr/bin/env python3
"""Fails when a public symbol of a documented module has no documentation comment.

Reads the symbol graphs .ci/extract-symbols.py extracted (`<folder>/<Target>/*.symbols.json`, the graphs DocC
renders) for the targets named on the command line, and lists
every public or open symbol declared in those modules without a doc comment. Symbols the compiler synthesises
(`Codable`, `Equatable` and `Hashable` conformances) and those that inherit a comment from the protocol
requirement they implement count as documented, as DocC shows them so.

Usage: check-docs.py SYMBOL_GRAPH_FOLDER TARGET...   (exit 1 naming each undocumented symbol)
"""
import json
import pathlib
import sys


def main():
    root = pathlib.Path(sys.argv[1])
    targets = sys.argv[2:]
    missing, counted = [], 0
    for target in targets:
        folder = root / target
        if not folder.is_dir():
            print(f"error: no symbol graphs for {target} in {folder}")
            return 1
        for graph in sorted(folder.glob("*.symbols.json")):
            data = json.loads(graph.read_text())
            for symbol in data.get("symbols", []):
                if symbol.get("accessLevel") not in ("public", "open"):
                    continue
                if "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                    continue
                # A property wrapper's projection (`$writer` of a @TaskLocal) is the compiler's, documented
                # by the property it projects.
                if symbol["names"]["title"].startswith("$"):
                    continue
                counted += 1
                if symbol.get("docComment", {}).get("lines"):
                    continue
                location = symbol.get("location", {})
                where = location.get("uri", "").replace("file://", "")
                line = location.get("position", {}).get("line", -1) + 1
                title = ".".join(symbol.get("pathComponents", [symbol["names"]["title"]]))
                missing.append(f"{where}:{line}: {target}: {title} ({symbol['kind']['displayName']}) has no documentation comment")
    for line in sorted(set(missing)):
        print("error:", line)
    print(f"{counted} public symbols in {len(targets)} modules, {len(set(missing))} undocumented")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
