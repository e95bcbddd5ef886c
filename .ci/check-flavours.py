#!/usr/bin/env python3
"""Fails if a flavour's graph contains what the flavour does not name.

Three independent checks:
  1. the declared target graph of each product (from `swift package describe`);
  2. the imports written in each module's sources;
  3. what each flavour executable in Examples/Flavours actually linked (libxml2 in `ldd`,
     module symbols in `nm`), after it was built; each executable is also run.
Positive controls (Health links libxml2, CareHealth links both modules) keep the checks honest. The
JavaScript engine (CloudantJavaScript, JavaScriptCore) is its own product: no flavour may contain or link it.

The object-model product (CloudantModel, with CloudantModelSchema) is checked the same way: no flavour may
contain it (none names it), and it may contain nothing of Care, Health or libxml2. Its consumer,
Examples/Flavours' ModelRecipes, is built from a model file by the build plugin and run.

Compatibility lives at the edge: OTFCloudantStore's drop-in API and the `callbackQueue` adapters are in the
flavour umbrellas only, so no engine module imports a flavour, declares an OTF-named symbol or keeps a
`Compatibility/` folder.
"""
import json
import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
CONSUMER = ROOT / "Examples" / "Flavours"

# What each flavour must contain and must not contain.
MODEL = {"CloudantModel", "CloudantModelSchema"}
# SwiftNIO's HTTP client is its own product (CloudantSyncNIO): no flavour compiles it unasked.
NIO_CLIENT = {"CloudantSyncNIO", "AsyncHTTPClient"}
# The server's dashboard panels need Care and Health together: their own product, in no flavour.
PANELS = {"CloudantDashboardPanels"}
# The JavaScript engine design functions run in: its own product, which no flavour links (a store or server opts in).
JAVASCRIPT = {"CloudantJavaScript", "CJavaScriptCore"}
RULES = {
    "CloudantOnly": {"must": {"CloudantCore", "CloudantStore"},
                     "never": {"CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2"} | MODEL | NIO_CLIENT | PANELS | JAVASCRIPT},
    "CloudantCare": {"must": {"CloudantCore", "CloudantStore", "CloudantCareModule"},
                     "never": {"CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2"} | MODEL | NIO_CLIENT | PANELS | JAVASCRIPT},
    "CloudantHealth": {"must": {"CloudantCore", "CloudantStore", "CloudantHealthModule", "CLibXML2"},
                       "never": {"CloudantCareModule", "CloudantCareHealthBridge"} | MODEL | NIO_CLIENT | PANELS | JAVASCRIPT},
    "CloudantCareHealth": {"must": {"CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2"},
                           "never": MODEL | NIO_CLIENT | PANELS | JAVASCRIPT},
    "CloudantModel": {"must": {"CloudantCore", "CloudantStore", "CloudantModel", "CloudantModelSchema"},
                      "never": {"CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2"} | JAVASCRIPT},
}
EXECUTABLES = {"CloudantOnly": "OnlyFlavour", "CloudantCare": "CareFlavour",
               "CloudantHealth": "HealthFlavour", "CloudantCareHealth": "CareHealthFlavour",
               "CloudantModel": "ModelRecipes"}
# Modules a module's sources may never import.
FORBIDDEN_IMPORTS = {
    "CloudantCareModule": {"CloudantHealthModule", "CLibXML2", "CloudantCareHealthBridge"},
    "CloudantHealthModule": {"CloudantCareModule", "CloudantCareHealthBridge"},
    "CloudantCore": {"CloudantStore", "CloudantSync", "CloudantCareModule", "CloudantHealthModule", "CLibXML2", "CSQLite", "GRDB"} | MODEL | JAVASCRIPT,
    "CloudantSync": {"CloudantCareModule", "CloudantHealthModule", "CLibXML2", "CloudantCareHealthBridge", "CSQLite", "GRDB",
                     "AsyncHTTPClient", "NIOCore", "NIOPosix"} | JAVASCRIPT,
    # The store and the server run design functions only through CloudantCore's protocol, never the engine itself.
    "CloudantStore": MODEL | JAVASCRIPT,
    # The engine needs the core's protocol and JavaScriptCore, nothing of storage, sync or serving.
    "CloudantJavaScript": {"CloudantStore", "CloudantSync", "CloudantServer", "CSQLite", "GRDB", "CLibXML2",
                           "CloudantCareModule", "CloudantHealthModule"} | MODEL,
    # The model-file logic is pure: no storage, no replicator, not even the core and its swift-crypto (the build
    # plugin's tool links only it and CloudantBase, so no build compiles BoringSSL a second time for the host).
    "CloudantModelSchema": {"CloudantCore", "Crypto", "CloudantStore", "CloudantSync", "CloudantCareModule",
                            "CloudantHealthModule", "CLibXML2", "CSQLite", "GRDB", "CloudantModel"},
    # JSON and errors: nothing of ours, nothing but Foundation.
    "CloudantBase": {"CloudantCore", "Crypto", "CloudantStore", "CloudantSync", "CloudantCareModule",
                     "CloudantHealthModule", "CLibXML2", "CSQLite", "GRDB", "CloudantModel", "CloudantModelSchema"},
    # No SQL outside CloudantStore.
    "CloudantModel": {"CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2", "CSQLite", "GRDB"},
    # The server (and its dashboard) knows no entity module: health and care pages are plugged in as panels.
    "CloudantServer": {"CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge", "CLibXML2",
                       "CloudantDashboardPanels"} | JAVASCRIPT,
}

failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL: {message}")


def declared_graph():
    out = subprocess.run(["swift", "package", "describe", "--type", "json"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout
    description = json.loads(out[out.index("{"):])
    targets = {t["name"]: t for t in description["targets"]}
    products = {p["name"]: p for p in description["products"]}

    def closure(names):
        seen, stack = set(), list(names)
        while stack:
            name = stack.pop()
            if name in seen or name not in targets:
                continue
            seen.add(name)
            stack.extend(targets[name].get("target_dependencies", []))
        return seen

    # The build plugin's tool builds for the host in every build that uses the plugin: it must stay lean.
    tool = closure(["CloudantModelGen"])
    for module in sorted(tool & {"CloudantCore", "CloudantStore", "CloudantSync", "CSQLite"}):
        fail(f"the build plugin's tool CloudantModelGen depends on {module}")
    for name in sorted(tool):
        for product in targets[name].get("product_dependencies", []):
            fail(f"the build plugin's tool CloudantModelGen depends on the package product {product} (through {name})")
    print(f"declared  CloudantModelGen     {sorted(tool)}")

    for flavour, rule in RULES.items():
        graph = closure(products[flavour]["targets"])
        for module in sorted(rule["must"] - graph):
            fail(f"{flavour}'s declared graph lacks {module}")
        for module in sorted(rule["never"] & graph):
            fail(f"{flavour}'s declared graph contains {module}")
        print(f"declared  {flavour:20} {sorted(graph)}")


def written_imports():
    pattern = re.compile(r"^\s*(?:@\w+(?:\(\w+\))?\s+)*(?:public |internal |package |private |fileprivate )?import\s+(\w+)", re.M)
    for module, forbidden in FORBIDDEN_IMPORTS.items():
        for source in (ROOT / "Sources" / module).rglob("*.swift"):
            for imported in pattern.findall(source.read_text()):
                if imported in forbidden:
                    fail(f"{source.relative_to(ROOT)} imports {imported}")


FLAVOURS = {"CloudantOnly", "CloudantCare", "CloudantHealth", "CloudantCareHealth"}
ENGINE = ["CloudantBase", "CloudantCore", "CipherVFS", "CloudantStore", "CloudantSync", "CloudantSyncNIO",
          "CloudantJavaScript", "CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge",
          "CloudantModelSchema", "CloudantModel", "CloudantServer", "CloudantDashboardPanels"]


def compatibility_at_the_edge():
    imports = re.compile(r"^\s*(?:@\w+(?:\(\w+\))?\s+)*(?:public |internal |package |private |fileprivate )?import\s+(\w+)", re.M)
    # A declaration whose name starts with OTF (a type, alias, function, property or case).
    otf_declaration = re.compile(r"^\s*(?:@\w+\s+)*(?:(?:public|internal|package|private|fileprivate|static|final|"
                                 r"nonisolated|mutating|indirect)\s+)*(?:class|struct|enum|protocol|typealias|actor|func|"
                                 r"var|let|case)\s+`?OTF\w*", re.M)
    for module in ENGINE:
        folder = ROOT / "Sources" / module
        for compatibility in folder.rglob("Compatibility"):
            fail(f"{compatibility.relative_to(ROOT)}: the drop-in API belongs in the flavour umbrellas")
        for source in folder.rglob("*.swift"):
            text = source.read_text()
            for imported in set(imports.findall(text)) & FLAVOURS:
                fail(f"{source.relative_to(ROOT)} imports the flavour {imported}")
            for match in otf_declaration.finditer(text):
                fail(f"{source.relative_to(ROOT)} declares {match.group(0).strip()} (OTF names live in the flavours)")


def linked_binaries():
    # CI builds the consumers in the root package's scratch folder (FLAVOURS_SCRATCH); by hand they have their own.
    scratch = ["--scratch-path", os.environ["FLAVOURS_SCRATCH"]] if os.environ.get("FLAVOURS_SCRATCH") else []
    bin_dir = subprocess.run(["swift", "build", "--show-bin-path", *scratch], cwd=CONSUMER,
                             check=True, capture_output=True, text=True).stdout.strip()
    for flavour, executable in EXECUTABLES.items():
        binary = pathlib.Path(bin_dir) / executable
        if not binary.exists():
            fail(f"{binary} was not built")
            continue
        libraries = subprocess.run(["ldd", str(binary)], check=True, capture_output=True, text=True).stdout
        mangled = subprocess.run(["nm", str(binary)], check=True, capture_output=True, text=True).stdout
        symbols = subprocess.run(["swift", "demangle"], input=mangled, check=True, capture_output=True, text=True).stdout
        linked = set()
        if "libxml2" in libraries:
            linked.add("CLibXML2")
        # JavaScriptCore is opened at run time, never linked: its loader's symbol is what a binary carries.
        if "libjavascriptcoregtk" in libraries or re.search(r"\bcjs_load\b", mangled):
            linked.add("CJavaScriptCore")
        for module in ["CloudantCore", "CloudantStore", "CloudantCareModule", "CloudantHealthModule", "CloudantCareHealthBridge",
                       "CloudantModel", "CloudantModelSchema", "CloudantJavaScript"]:
            # Demangled symbols name their module: `Module.Type…` or `(extension in Module):…`.
            if re.search(rf"\b{module}[.):]", symbols):
                linked.add(module)
        rule = RULES[flavour]
        for module in sorted(rule["never"] & linked):
            fail(f"{executable} ({flavour}) linked {module}")
        for module in sorted((rule["must"] - {"CloudantStore"}) - linked):
            fail(f"{executable} ({flavour}) did not link {module} (positive control)")
        run = subprocess.run([str(binary)], capture_output=True, text=True, cwd="/tmp")
        if run.returncode != 0:
            fail(f"{executable} exited {run.returncode}: {run.stderr.strip()}")
        print(f"linked    {flavour:20} {sorted(linked)}  -> {run.stdout.strip()}")


declared_graph()
written_imports()
compatibility_at_the_edge()
linked_binaries()
if failures:
    print(f"\nflavour isolation: {len(failures)} failure(s)")
    sys.exit(1)
print("\nflavour isolation: ok")
