#!/usr/bin/env python3
"""Fails when a target imports a module it does not declare as a direct dependency in Package.swift.

A module reached only through another target's dependencies builds today by accident and breaks when that
other target stops needing it; Package.swift should tell the truth about what each target uses. Reads the
package's description (`swift package describe --type json`) and every `import` line of each target's Swift
sources; the toolchain's own modules (Foundation, Dispatch, Glibc, Synchronization, Testing, …) need no
declaration.
"""
import json
import os
import re
import subprocess
import sys

TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Musl",
    "Darwin", "Synchronization", "Testing", "XCTest", "PackagePlugin", "_Concurrency", "CoreFoundation",
    "Observation", "RegexBuilder", "_StringProcessing", "os",
    # ICU as Foundation carries it on Linux; CloudantCore links it by name (Package.swift's linkerSettings).
    "_FoundationICU",
}
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:public |internal |package |private |fileprivate )?import\s+"
    r"(?:(?:struct|class|enum|func|protocol|typealias|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)"
)


def main() -> int:
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    described = subprocess.run(
        ["swift", "package", "describe", "--type", "json"], cwd=root, check=True, capture_output=True, text=True
    )
    package = json.loads(described.stdout)
    failures = []
    for target in package["targets"]:
        declared = set(target.get("target_dependencies", [])) | set(target.get("product_dependencies", []))
        imported = {}
        for source in target.get("sources", []):
            if not source.endswith(".swift"):
                continue
            with open(os.path.join(target["path"], source), encoding="utf-8", errors="replace") as file:
                for line in file:
                    match = IMPORT.match(line)
                    if match:
                        imported.setdefault(match.group(1), source)
        for module, source in sorted(imported.items()):
            if module not in declared and module not in TOOLCHAIN and module != target["name"]:
                failures.append(f"{target['name']} imports {module} ({source}) without declaring it")
    for failure in failures:
        print(failure)
    print(f"{len(package['targets'])} targets checked, {len(failures)} undeclared imports")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
