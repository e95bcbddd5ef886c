#!/usr/bin/env bash
# Builds the DocC documentation of every module a user imports (swift-docc-plugin), failing on any DocC
# warning (an unresolved symbol link, a parameter missing from a `- Parameters:` list, a broken article
# link), then checks that every public symbol of those modules has a documentation comment.
# Output: .build/plugins/Swift-DocC/outputs/<Target>.doccarchive; to read one in a browser:
#   swift package --disable-sandbox preview-documentation --target CloudantOnly
set -euo pipefail
cd "$(dirname "$0")/.."

# Modules with public API, then the product umbrellas (their catalogs hold the guides).
modules=(CloudantBase CloudantCore CloudantStore CloudantSync CloudantSyncNIO CloudantCareModule
         CloudantHealthModule CloudantCareHealthBridge CloudantModelSchema CloudantModel CloudantServer
         CloudantDashboardPanels CloudantJavaScript)
products=(CloudantOnly CloudantCare CloudantHealth CloudantCareHealth)
arguments=()
for target in "${modules[@]}" "${products[@]}"; do arguments+=(--target "$target"); done

status=0
swift package --disable-sandbox generate-documentation "${arguments[@]}" --warnings-as-errors \
  >/tmp/cloudant-docs.log 2>&1 || status=$?
grep -E "^Finished" /tmp/cloudant-docs.log || true
# SwiftPM's notes about files in dependencies (not ours) are not documentation warnings.
problems=$(grep -E "(^|: )(warning|error): " /tmp/cloudant-docs.log | grep -v "which are unhandled; explicitly declare" || true)
if [ "$status" -ne 0 ] || [ -n "$problems" ]; then
  grep -v "which are unhandled; explicitly declare" /tmp/cloudant-docs.log | grep -A6 -E "(^|: )(warning|error): " | head -300
  echo "error: the documentation build failed or has warnings (above)"; exit 1
fi
python3 .ci/check-docs.py .build "${modules[@]}" "${products[@]}"
