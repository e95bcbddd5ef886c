#!/usr/bin/env python3
"""Extracts the public symbol graphs of modules the debug build already compiled, for DocC.

`swift package generate-documentation` plans a build and runs the extractor once per target, about 20 s of
planning each even when nothing is rebuilt, and holds SwiftPM's lock on `.build` meanwhile. This reads each
module's compiler arguments from the build plan SwiftPM wrote (`.build/debug.yaml`: module search paths,
C module maps, include paths) and runs `swift-symbolgraph-extract` on the built `.swiftmodule` with the options
the DocC plugin uses (public symbols, synthesized members, extension blocks). The graphs are the plugin's,
symbol for symbol.

With `--reexported A,B,…` the graphs also hold the symbols of those modules where a module re-exports them
(`@_exported import`), as they are seen through it: a flavour umbrella's documentation is then the reference of
everything `import CloudantCare` gives.

Usage: extract-symbols.py [--reexported MODULE,…] BUILD_FOLDER OUTPUT_FOLDER MODULE...
       (writes OUTPUT_FOLDER/<Module>/*.symbols.json)
"""
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys

# Compiler arguments the extractor understands, each followed by its value.
VALUED = {"-I", "-target", "-module-cache-path", "-swift-version", "-Xcc", "-sdk", "-resource-dir"}


def module_arguments(plan: str, module: str) -> list[str]:
    """The swiftc arguments the plan compiles `module` with."""
    marker = f'"C.{module}-'
    start = plan.find(marker)
    while start != -1 and not plan[start:plan.index(":\n", start)].endswith('-debug.module"'):
        start = plan.find(marker, start + 1)
    if start == -1:
        raise SystemExit(f"error: the build plan has no compile command for {module}; build it first (swift build)")
    line_start = plan.index("args: ", start) + len("args: ")
    return json.loads(plan[line_start:plan.index("\n", line_start)])


def extractor_arguments(compile_arguments: list[str]) -> list[str]:
    kept, index = [], 0
    while index < len(compile_arguments):
        argument = compile_arguments[index]
        if argument in VALUED and index + 1 < len(compile_arguments):
            kept += [argument, compile_arguments[index + 1]]
            index += 2
            continue
        if argument.startswith("-I") and len(argument) > 2:
            kept.append(argument)
        index += 1
    return kept


def extract(module: str, plan: str, output: pathlib.Path, reexported: str) -> tuple[str, int, str]:
    folder = output / module
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.symbols.json"):
        old.unlink()
    command = ["swift-symbolgraph-extract", "-module-name", module, "-minimum-access-level", "public",
               "-emit-extension-block-symbols", "-output-dir", str(folder)]
    if reexported:
        command.append(f"-experimental-allowed-reexported-modules={reexported}")
    command += extractor_arguments(module_arguments(plan, module))
    result = subprocess.run(command, capture_output=True, text=True)
    return module, result.returncode, result.stdout + result.stderr


def main() -> int:
    arguments = sys.argv[1:]
    reexported = ""
    if arguments[:1] == ["--reexported"]:
        reexported, arguments = arguments[1], arguments[2:]
    build, output, modules = pathlib.Path(arguments[0]), pathlib.Path(arguments[1]), arguments[2:]
    plan = (build / "debug.yaml").read_text()
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for module, status, text in pool.map(lambda name: extract(name, plan, output, reexported), modules):
            if status != 0 or text.strip():
                print(f"{module}: swift-symbolgraph-extract exited with {status}\n{text}")
                failed += status != 0
    print(f"extracted the symbol graphs of {len(modules) - failed} of {len(modules)} modules into {output}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
