#!/usr/bin/env bash
# Measures the two JavaScript engines Debian offers on the work the store's query server does: maps 1M
# documents (parse a batch, seal each document, run `function (doc) { emit(doc.value, null); }`, serialise the
# rows), runs after run alternating the engines, and prints each run's JSON line and the medians.
#
# Needs: apt-get install libjavascriptcoregtk-4.1-dev libmozjs-102-dev g++ python3
# Usage: Benchmarks/EngineComparison/run.sh [RUNS] [BATCH]   (default 5 runs, batches of 1000 documents)
set -euo pipefail
cd "$(dirname "$0")"
runs="${1:-5}"
batch="${2:-1000}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp map.js "$work/"
python3 - "$work/docs.jsonl" <<'PY'
import json, random, sys
random.seed(1)
with open(sys.argv[1], "w") as out:
    for i in range(1_000_000):
        doc = {"_id": "doc%07d" % i, "_rev": "1-%032x" % random.getrandbits(128), "type": "reading",
               "value": random.randint(0, 100000), "name": "name %d" % (i % 977), "tags": ["a", "b"],
               "nested": {"x": i % 13, "y": "z"}}
        out.write(json.dumps(doc, separators=(",", ":")) + "\n")
PY
gcc -O2 -o "$work/jsc_map" jsc_map.c $(pkg-config --cflags --libs javascriptcoregtk-4.1)
g++ -O2 -std=c++17 -o "$work/spidermonkey_map" spidermonkey_map.cpp $(pkg-config --cflags --libs mozjs-102)
cd "$work"
for _ in $(seq "$runs"); do
  ./jsc_map "$batch" | tee -a results.jsonl
  ./spidermonkey_map "$batch" | tee -a results.jsonl
done
python3 - <<'PY'
import json, statistics
runs = [json.loads(line) for line in open("results.jsonl")]
for engine in ["JavaScriptCore", "SpiderMonkey 102"]:
    mine = [run for run in runs if run["engine"] == engine]
    print(f"{engine}: median {statistics.median(r['seconds'] for r in mine):.2f} s for 1M documents "
          f"({statistics.median(r['documents_per_second'] for r in mine):,.0f} documents/s), "
          f"median engine peak {statistics.median(r['engine_peak_mb'] for r in mine):.0f} MB, "
          f"loop stopped after {mine[0]['loop_stopped_after_seconds']} s, usable after: {mine[0]['usable_after']}, "
          f"ES2020+: {mine[0]['es2020']}")
PY
