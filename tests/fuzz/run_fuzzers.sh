#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan, separate build dir) and
# runs each for a time box on the checked-in seeds in tests/fuzz/corpus/.
#
#   tests/fuzz/run_fuzzers.sh [seconds-per-target]   (default: $PYRAMARCH_FUZZ_SECONDS or 30)
#   PYRAMARCH_FUZZ_TARGETS="raw_volume cli" tests/fuzz/run_fuzzers.sh 30   (a subset)
#   PYRAMARCH_FUZZ_SEED=0 tests/fuzz/run_fuzzers.sh 600   (a random seed, for long exploratory runs)
#
# The default seed is fixed so that a CI run explores the same inputs as the
# same-length run on a developer machine: a red CI then reproduces locally,
# and a run longer than CI's covers what CI will try.
#
# New inputs libFuzzer finds go to build-fuzz/corpus/<target>/ (not the
# source tree). A crash stops with the reproducer's path: check it into
# tests/fuzz/corpus/<target>/ (fuzz_replay_tests replays it in the normal
# build) once fixed. Exit code: 0 clean, 1 a target crashed or failed.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-${PYRAMARCH_FUZZ_SECONDS:-30}}"
build="${PYRAMARCH_FUZZ_BUILD:-$root/build-fuzz}"
jobs="${PYRAMARCH_JOBS:-$(nproc)}"
seed="${PYRAMARCH_FUZZ_SEED:-1}"

# Everything instrumented for coverage (fuzzer-no-link) and sanitized
# (PYRAMARCH_SANITIZE); only the fuzz_<target> binaries link libFuzzer's main.
mkdir -p "$build"
CC="${PYRAMARCH_FUZZ_CC:-clang}" CXX="${PYRAMARCH_FUZZ_CXX:-clang++}" \
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPYRAMARCH_FUZZ=ON -DPYRAMARCH_SANITIZE=ON \
  -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link >"$build/configure.log" 2>&1 ||
  { cat "$build/configure.log"; exit 1; }
read -r -a available <<<"$(tr '\n' ' ' <"$build/fuzz_targets.txt")"
targets=(${PYRAMARCH_FUZZ_TARGETS:-${available[@]}})
build_targets=()
for t in "${targets[@]}"; do build_targets+=("fuzz_$t"); done
cmake --build "$build" -j"$jobs" --target "${build_targets[@]}"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:strict_string_checks=1:allocator_may_return_null=1"
export LSAN_OPTIONS="suppressions=$root/tests/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Each libFuzzer process is single-threaded: run up to $jobs targets at once,
# so the time box costs seconds x ceil(targets / jobs) of wall time.
run_target() {
  local t="$1" work="$build/corpus/$1" artifacts="$build/artifacts/$1" log="$build/fuzz_$1.log"
  mkdir -p "$work" "$artifacts"
  # -close_fd_mask=3: the CLI target prints usage/errors per input.
  if "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -seed="$seed" -timeout=20 -rss_limit_mb=2560 -max_len=4096 \
      -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$artifacts/" "$work" "$here/corpus/$t" >"$log" 2>&1; then
    local line
    line="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')"
    echo "  fuzz_$t: ok, ${line:-?} runs, $(ls "$work" | wc -l) corpus files" >"$build/fuzz_$t.result"
  else
    echo "  fuzz_$t: FAILED, reproducer(s): $(ls "$artifacts" | tr '\n' ' ')" >"$build/fuzz_$t.result"
  fi
}
running=0
for t in "${targets[@]}"; do
  echo "== fuzz_$t: ${seconds}s (log: $build/fuzz_$t.log)"
  rm -f "$build/fuzz_$t.result"
  run_target "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true
status=0
summary=""
for t in "${targets[@]}"; do
  result="$(cat "$build/fuzz_$t.result" 2>/dev/null || echo "  fuzz_$t: FAILED, no result")"
  case "$result" in
    *FAILED*) status=1; tail -n 60 "$build/fuzz_$t.log" ;;
  esac
  summary+="$result"$'\n'
done
echo "== fuzz summary (${seconds}s per target)"
printf '%s' "$summary"
exit $status
