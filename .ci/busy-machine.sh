#!/usr/bin/env bash
# Runs the whole suite RUNS times in a row (3 by default) beside a CPU hog on every core (stress-ng from
# Debian), as a loaded developer machine or CI runner would: no test may bet on how fast anything happens.
# Usage: .ci/busy-machine.sh [RUNS]. Stops at the first failing run.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-3}"
command -v stress-ng >/dev/null || { echo "error: stress-ng is not installed (apt-get install stress-ng)"; exit 1; }
swift build --build-tests
stress-ng --cpu "$(nproc)" --quiet &
hog_pid=$!
trap 'kill "$hog_pid" 2>/dev/null || true' EXIT
for run in $(seq 1 "$runs"); do
  echo "==> loaded run $run of $runs"
  swift test --skip-build 2>&1 | tee "/tmp/cloudant-busy-$run.log" | grep -E "Test run with .* (passed|failed)"
  grep -qE "Test run with .* passed" "/tmp/cloudant-busy-$run.log" || { echo "error: loaded run $run failed"; exit 1; }
done
echo "$runs loaded runs passed"
