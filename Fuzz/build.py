#!/usr/bin/env python3
"""Builds the libFuzzer targets on top of the package's ordinary debug build.

    swift build                      # the package as usual: no fuzzer flags anywhere in it
    python3 Fuzz/build.py [-O]       # then the fuzzers, into .build-fuzz/

Why a script rather than a second package: building a package with `-sanitize=fuzzer` rebuilds every
dependency (SwiftNIO, Hummingbird, swift-crypto, GRDB) with it, which takes longer on CI's two cores than
the whole fuzz step may. Instead this reads the compile and link commands SwiftPM wrote for the debug
build (.build/debug.yaml), recompiles only our modules under test, CloudantCore and CloudantServer, with
libFuzzer's coverage instrumentation (same flags otherwise, so the objects are interchangeable with the
debug build's), compiles each target's entry point from Fuzz/Targets, and links each target against the
debug build's objects for everything else.

`-O` builds our modules optimised, for long runs by hand (several times the executions per second).
"""
import json, os, shlex, subprocess, sys, time

root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
optimise = "-O" in sys.argv[1:]
out = os.path.join(root, ".build-fuzz", "release" if optimise else "debug")
modules = os.path.join(out, "Modules")
targets = {
    # name: the files of Fuzz/Targets it is made of.
    "json": ["JSONTarget.swift"],
    "selector": ["SelectorTarget.swift"],
    "revision": ["RevisionTarget.swift"],
    "request": ["RequestTarget.swift"],
}
instrumented = ["CloudantCore", "CloudantServer"]


def debug_yaml():
    # SwiftPM keeps `.build/debug` pointing at the debug products; reading it (rather than asking
    # `swift build --show-bin-path`) needs no SwiftPM lock, so the fuzzers build while `swift test` runs.
    link = os.path.join(root, ".build", "debug")
    if os.path.isdir(link):
        bin_path = os.path.realpath(link)
    else:
        bin_path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, capture_output=True, text=True, check=True).stdout.strip()
    path = os.path.join(os.path.dirname(os.path.dirname(bin_path)), "debug.yaml")
    if not os.path.exists(path):
        sys.exit(f"error: {path} is missing; run `swift build` first")
    return bin_path, open(path).read()


def command_args(yaml, key):
    """The args list of one command of SwiftPM's llbuild manifest (each `args:` line is a JSON list)."""
    start = yaml.find(f'  "{key}":\n')
    if start < 0:
        sys.exit(f"error: no command {key} in debug.yaml; run `swift build` first")
    line_start = yaml.find("    args: ", start)
    line_end = yaml.find("\n", line_start)
    return json.loads(yaml[line_start + len("    args: "):line_end])


# Flags of SwiftPM's incremental, per-file build that a single whole-module compile does without; the
# number is how many values follow each.
dropped = {
    "-emit-dependencies": 0, "-emit-module-path": 1, "-output-file-map": 1, "-incremental": 0, "-enable-batch-mode": 0,
    "-serialize-diagnostics": 0, "-index-store-path": 1, "-parseable-output": 0, "-emit-objc-header": 0,
    "-emit-objc-header-path": 1, "-j2": 0, "-c": 0, "-emit-module": 0, "-module-name": 1,
}


def shared_flags(args):
    kept, skip = [], 0
    for arg in args[1:]:
        if skip:
            skip -= 1
            continue
        if arg in dropped:
            skip = dropped[arg]
            continue
        if arg.startswith("@") or arg.startswith("-j"):
            continue
        if optimise and arg == "-Onone":
            arg = "-O"
        kept.append(arg)
    return kept


def run(command, what):
    began = time.time()
    result = subprocess.run(command, cwd=root)
    if result.returncode != 0:
        sys.exit(f"error: {what} failed")
    print(f"  {what} ({time.time() - began:.0f}s)", flush=True)


def main():
    bin_path, yaml = debug_yaml()
    os.makedirs(modules, exist_ok=True)
    triple_debug = os.path.basename(os.path.dirname(bin_path)) + "-" + os.path.basename(bin_path)
    flags = {}
    for module in instrumented:
        args = command_args(yaml, f"C.{module}-{triple_debug}.module")
        sources_file = next(a[1:] for a in args if a.startswith("@") and a.endswith("/sources"))
        sources = [line.strip() for line in open(sources_file) if line.strip()]
        flags[module] = shared_flags(args)
        run([args[0], "-module-name", module, "-emit-module", "-emit-module-path", os.path.join(modules, f"{module}.swiftmodule"),
             "-parse-as-library", "-wmo", "-c", *sources, "-o", os.path.join(out, f"{module}.o"),
             "-I", modules, *flags[module], "-sanitize=fuzzer", "-enable-testing", "-suppress-warnings"],
            f"{module} instrumented")

    link = command_args(yaml, f"C.cloudant-{triple_debug}.exe")
    objects_list = next(a[1:] for a in link if a.startswith("@") and a.endswith("LinkFileList"))
    replaced = tuple(f"/{m}.build/" for m in instrumented + ["CloudantCLI"])
    objects = [shlex.split(line)[0] for line in open(objects_list) if line.strip()]
    objects = [o for o in objects if not any(r in o for r in replaced)]
    objects += [os.path.join(out, f"{m}.o") for m in instrumented]
    link_flags, skip = [], 0
    for index, arg in enumerate(link[1:], start=1):
        if skip:
            skip -= 1
            continue
        if arg == "-Xlinker" and link[index + 1:index + 2] == ["--defsym"]:
            skip = 3  # the CLI's `main=CloudantCLI_main`: libFuzzer brings its own main
            continue
        if arg == "-o" or arg == "-module-name":
            skip = 1
            continue
        if arg.startswith("@") or arg in ("-emit-executable", "-g"):
            continue
        link_flags.append(arg)
    link_list = os.path.join(out, "objects.txt")
    with open(link_list, "w") as f:
        f.write("\n".join(shlex.quote(o) for o in objects) + "\n")

    wanted = [a for a in sys.argv[1:] if not a.startswith("-")] or list(targets)
    for name in wanted:
        harness = os.path.join(out, f"fuzz-{name}.o")
        files = [os.path.join(root, "Fuzz", "Targets", f) for f in ["Support.swift", *targets[name]]]
        run([link[0], "-module-name", f"Fuzz_{name}", "-parse-as-library", "-wmo", "-c", *files, "-o", harness,
             "-I", modules, *flags["CloudantServer"], "-sanitize=fuzzer"], f"fuzz-{name} entry point")
        run([link[0], "-emit-executable", "-sanitize=fuzzer", f"@{link_list}", harness, *link_flags,
             "-o", os.path.join(out, f"fuzz-{name}")], f"fuzz-{name} linked")
    print(f"built into {os.path.relpath(out, root)}/: " + ", ".join(f"fuzz-{n}" for n in wanted))


main()
