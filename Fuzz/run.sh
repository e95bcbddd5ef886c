#!/usr/bin/env bash
# Builds the fuzz targets on top of the debug build and runs each one for a bounded time.
#
#   Fuzz/run.sh [SECONDS] [TARGET...]      # default: 25 s each, every target (json selector revision request)
#   FUZZ_OPTIMISE=1 Fuzz/run.sh 1200 json  # a long run by hand: optimised build, 20 minutes
#
# Each target first replays its fixed crashers (Fuzz/Crashes/TARGET/, kept as regression inputs), then
# fuzzes from its committed seeds (Fuzz/Corpus/TARGET/); what it learns goes to a scratch corpus, never
# into the committed one. Two targets run at a time (CI has two cores). Any crash, broken invariant,
# hang (-timeout) or runaway memory fails the run; the input that did it is copied to .build-fuzz/crashers/.
# A new crasher is committed under Fuzz/Crashes/ only once the bug is fixed and has its own test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-25}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json selector revision request)
mode=debug
build_flags=()
if [ "${FUZZ_OPTIMISE:-0}" = 1 ]; then mode=release; build_flags=(-O); fi

python3 Fuzz/build.py "${build_flags[@]}" "${targets[@]}"
bin=".build-fuzz/$mode"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p .build-fuzz/crashers
export SWIFT_BACKTRACE=enable=no  # libFuzzer prints its own stack; Swift's backtracer would add seconds

run_target() {
  local target=$1 log="$work/$1.log"
  mkdir -p "$work/$target-corpus" "$work/$target-artifacts"
  if compgen -G "Fuzz/Crashes/$target/*" >/dev/null; then
    "$bin/fuzz-$target" -runs=1 Fuzz/Crashes/"$target"/* >"$log.replay" 2>&1 || { cat "$log.replay"; echo "error: $target: a fixed crasher crashes again"; return 1; }
  fi
  local status=0
  "$bin/fuzz-$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$work/$target-artifacts/" "$work/$target-corpus" "Fuzz/Corpus/$target" >"$log" 2>&1 || status=$?
  local runs
  runs=$(grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" | grep -Eo '[0-9]+$' || echo "?")
  if [ $status -ne 0 ]; then
    grep -E 'fuzz invariant broken|ERROR: libFuzzer|Fatal error|SUMMARY' "$log" | head -5 || true
    cp "$work/$target-artifacts/"* .build-fuzz/crashers/ 2>/dev/null || true
    echo "error: fuzz-$target failed after $runs executions; the input is in .build-fuzz/crashers/ (full log below)"
    tail -n 60 "$log"
    return 1
  fi
  echo "fuzz-$target: $runs executions in ${seconds}s, no crash, every invariant held"
}

failed=0
pids=()
for target in "${targets[@]}"; do
  run_target "$target" &
  pids+=($!)
  if [ ${#pids[@]} -ge 2 ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
exit $failed
