#!/usr/bin/env bash
# Builds the DocC documentation of every module a user imports, each flavour umbrella's with every symbol it
# re-exports, failing on any DocC warning (an unresolved
# symbol link, a parameter missing from a `- Parameters:` list, a broken article link), then checks that every
# public symbol of those modules has a documentation comment.
#
# It works on the debug build already made (`swift build`), without SwiftPM: the symbol graphs come from the
# built modules (.ci/extract-symbols.py) and `docc convert` renders each catalog with them, so it takes about a
# minute and never waits for SwiftPM's lock (CI runs it beside `swift test`). The archives are those
# `swift package generate-documentation` makes; to read one in a browser, with the plugin:
#   swift package --disable-sandbox preview-documentation --target CloudantOnly
# Output: .build/documentation/<Target>.doccarchive.
set -euo pipefail
cd "$(dirname "$0")/.."

# Modules with public API, then the product umbrellas (their catalogs hold the guides).
modules=(CloudantBase CloudantCore CloudantStore CloudantSync CloudantSyncNIO CloudantCareModule
         CloudantHealthModule CloudantCareHealthBridge CloudantModelSchema CloudantModel CloudantServer
         CloudantDashboardPanels CloudantJavaScript)
products=(CloudantOnly CloudantCare CloudantHealth CloudantCareHealth)
symbols=.build/documentation/symbol-graphs
archives=.build/documentation

python3 .ci/extract-symbols.py .build "$symbols" "${modules[@]}"
# An umbrella's archive is the reference of everything its `import` gives: its own symbols and those of the
# modules it re-exports, seen through it (so its guides link to any of them).
all_modules=$(IFS=,; echo "${modules[*]},${products[*]}")
python3 .ci/extract-symbols.py --reexported "$all_modules" .build "$symbols" "${products[@]}"

log=/tmp/cloudant-docs.log
: >"$log"
status=0
convert() {
  local target=$1
  docc convert "Sources/$target/$target.docc" --additional-symbol-graph-dir "$symbols/$target" \
    --fallback-display-name "$target" --fallback-bundle-identifier "$target" \
    --output-path "$archives/$target.doccarchive" --warnings-as-errors >"$log.$target" 2>&1
}
# Two conversions at a time (each is mostly one core); a failure is reported after all have run.
pids=()
targets=("${modules[@]}" "${products[@]}")
for target in "${targets[@]}"; do
  convert "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then wait "${pids[0]}" || status=1; pids=("${pids[@]:1}"); fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
for target in "${targets[@]}"; do
  { echo "== $target"; cat "$log.$target"; } >>"$log"
  rm -f "$log.$target"
done
problems=$(grep -E "(^|: )(warning|error): " "$log" || true)
if [ "$status" -ne 0 ] || [ -n "$problems" ]; then
  grep -B1 -A6 -E "(^|: )(warning|error): " "$log" | head -300
  echo "error: the documentation build failed or has warnings (above)"; exit 1
fi
echo "documentation of ${#targets[@]} modules in $archives"
python3 .ci/check-docs.py "$symbols" "${targets[@]}"
