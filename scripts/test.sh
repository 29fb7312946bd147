#!/usr/bin/env bash
# Installs what is missing, builds once, and runs the whole test suite.
#
# The one test build (build-test/) is clang with AddressSanitizer +
# UndefinedBehaviorSanitizer at -O1 with line tables and asserts on, libFuzzer's
# coverage instrumentation on, the samples and the fuzz targets included.
# Every CTest suite runs in it once, as many at a time as there are cores:
# CPU, GPU (the default Vulkan device: Mesa lavapipe without a GPU, with
# validation and synchronization validation on), the tool and the samples,
# the packaging tests, the soak (PYRAMARCH_SOAK_FRAMES, default 2200 here) and the `gpuav` label
# (small GPU cases again under GPU-assisted validation, tests/README.md; the
# many-surface `gpuav_full` entries only with PYRAMARCH_GPUAV_FULL=1). Then the
# thread tests again under ThreadSanitizer (their own small build;
# PYRAMARCH_TSAN=0 skips it), then a time-boxed libFuzzer run of every fuzz
# target in the same build (PYRAMARCH_FUZZ_SECONDS per target, default 30; 0
# skips it). PYRAMARCH_SANITIZERS=0 makes the test build a plain clang build
# (quicker to iterate; CI keeps the sanitizers). The build configures with
# PYRAMARCH_REQUIRE_ALL_TESTS=ON: a configuration that would drop a suite
# fails instead of passing with fewer tests. First of all, the C++ files
# touched since the tree was formatted must match .clang-format
# (scripts/check-format.sh; seconds). Arguments go to ctest (e.g. -R iso).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/install-deps.sh"
"$here/check-format.sh"
source "$here/env.sh"
started=$(date +%s)
phase() { echo "== $1 (at $(($(date +%s) - started)) s)"; }

test_build="${PYRAMARCH_TEST_BUILD:-$PYRAMARCH_ROOT/build-test}"
sanitize=ON
if [ "${PYRAMARCH_SANITIZERS:-1}" = "0" ]; then sanitize=OFF; fi
fuzz_flags=()
if [ "$sanitize" = ON ]; then
  fuzz_flags=(-DPYRAMARCH_FUZZ=ON -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link)
fi
phase "test build (clang, sanitizers $sanitize)"
CC=clang CXX=clang++ cmake -S "$PYRAMARCH_ROOT" -B "$test_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPYRAMARCH_SANITIZE=$sanitize "${fuzz_flags[@]}" -DPYRAMARCH_BUILD_SAMPLES=ON -DPYRAMARCH_REQUIRE_ALL_TESTS=ON \
  "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only" \
  -Wno-dev > /dev/null
cmake --build "$test_build" -j"$(nproc)"

phase "tests"
# A fresh runner has no run times yet: ctest would start the suites in the
# order they are declared and could leave a long one for last on one core.
# Seed its cost file with measured times (tests/ctest-costs.txt, seconds in
# this build) so the longest start first; ctest keeps it current afterwards.
cost_file="$test_build/Testing/Temporary/CTestCostData.txt"
if [ ! -f "$cost_file" ]; then
  mkdir -p "$(dirname "$cost_file")"
  cp "$PYRAMARCH_ROOT/tests/ctest-costs.txt" "$cost_file"
fi
(
  # Third-party leaks (driver, validation layer, loader) are suppressed by
  # library name only: tests/sanitizers/lsan.supp.
  export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
  export LSAN_OPTIONS="suppressions=$PYRAMARCH_ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
  export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
  # The soak's shortest run: its heap check is exact under the sanitizer.
  export PYRAMARCH_SOAK_FRAMES="${PYRAMARCH_SOAK_FRAMES:-2200}"
  skip_full=(-LE gpuav_full)
  if [ "${PYRAMARCH_GPUAV_FULL:-0}" = "1" ]; then skip_full=(); fi
  cd "$test_build" && ctest --output-on-failure -j"$(nproc)" --timeout 2700 "${skip_full[@]}" "$@"
)

# The thread tests again under ThreadSanitizer: a build folder of their own
# with only what thread_tests needs (no samples), suppressions by library
# name only (tests/sanitizers/tsan.supp). PYRAMARCH_TSAN=0 skips it.
if [ "${PYRAMARCH_TSAN:-1}" != "0" ]; then
  phase "ThreadSanitizer build of thread_tests"
  tsan_build="$PYRAMARCH_ROOT/build-tsan"
  cmake -S "$PYRAMARCH_ROOT" -B "$tsan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPYRAMARCH_SANITIZE_THREAD=ON -DPYRAMARCH_BUILD_SAMPLES=OFF \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g1" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1" \
    -Wno-dev > /dev/null
  cmake --build "$tsan_build" -j"$(nproc)" --target thread_tests
  TSAN_OPTIONS="suppressions=$PYRAMARCH_ROOT/tests/sanitizers/tsan.supp:detect_deadlocks=0" \
    "$tsan_build/tests/reliability/thread_tests" --gtest_color=no
fi

# Fuzzing: every target for PYRAMARCH_FUZZ_SECONDS (default 30), as many at
# once as there are cores, in the test build (run_fuzzers.sh configures it
# with the same cached options, so it only runs the targets).
fuzz_seconds="${PYRAMARCH_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" != "0" ] && [ "$sanitize" = ON ]; then
  phase "fuzzing (${fuzz_seconds}s per target)"
  PYRAMARCH_FUZZ_BUILD="$test_build" "$PYRAMARCH_ROOT/tests/fuzz/run_fuzzers.sh" "$fuzz_seconds"
fi
phase "done"
