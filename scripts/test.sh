#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (CTest):
# once in the normal build (soak included: PYRAMARCH_SOAK_FRAMES, default
# 10000; the `gpuav` label too: GPU tests again under GPU-assisted validation,
# see tests/README.md), then the CPU and GPU tests again in an
# AddressSanitizer + UndefinedBehaviorSanitizer build (clang) with the samples, so the
# tool, sample and corpus-replay suites run there too (PYRAMARCH_SANITIZERS=0
# skips that second pass; before it, the thread tests run once more under
# ThreadSanitizer, PYRAMARCH_TSAN=0 skips that), then a time-boxed libFuzzer run of every fuzz
# target (PYRAMARCH_FUZZ_SECONDS per target, default 30; 0 skips it). GPU
# tests run on the default Vulkan device (Mesa lavapipe without a GPU) with
# validation and synchronization validation on. Both builds configure with
# PYRAMARCH_REQUIRE_ALL_TESTS=ON: a configuration that would drop a suite
# fails instead of passing with fewer tests. First of all, the C++ files
# touched since the tree was formatted must match .clang-format
# (scripts/check-format.sh; seconds).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/install-deps.sh"
"$here/check-format.sh"
source "$here/env.sh"
pyramarch_build -DPYRAMARCH_REQUIRE_ALL_TESTS=ON
(cd "$PYRAMARCH_BUILD" && ctest --output-on-failure --timeout 1500 "$@")

# The thread tests again under ThreadSanitizer: a build folder of their own
# with only what thread_tests needs (no samples), suppressions by library
# name only (tests/sanitizers/tsan.supp). PYRAMARCH_TSAN=0 skips it.
if [ "${PYRAMARCH_TSAN:-1}" != "0" ]; then
  echo "== ThreadSanitizer build of thread_tests"
  tsan_start=$(date +%s)
  tsan_build="$PYRAMARCH_ROOT/build-tsan"
  cmake -S "$PYRAMARCH_ROOT" -B "$tsan_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPYRAMARCH_SANITIZE_THREAD=ON \
    -DPYRAMARCH_BUILD_SAMPLES=OFF "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g" \
    -Wno-dev > /dev/null
  cmake --build "$tsan_build" -j"$(nproc)" --target thread_tests
  TSAN_OPTIONS="suppressions=$PYRAMARCH_ROOT/tests/sanitizers/tsan.supp:detect_deadlocks=0" \
    "$tsan_build/tests/reliability/thread_tests" --gtest_color=no
  echo "== ThreadSanitizer pass: $(($(date +%s) - tsan_start)) s"
fi

# One clang build serves both the sanitizer pass and the fuzzers: ASan +
# UBSan at -O1 with debug info and asserts on, libFuzzer's coverage
# instrumentation on, the samples and the fuzz targets included.
# run_fuzzers.sh configures the same folder with the same cached options, so
# it only runs the targets.
sanitize_build="$PYRAMARCH_ROOT/build-sanitize"
if [ "${PYRAMARCH_SANITIZERS:-1}" != "0" ]; then
  echo "== sanitizer build (clang, ASan + UBSan, with the fuzz targets)"
  CC=clang CXX=clang++ cmake -S "$PYRAMARCH_ROOT" -B "$sanitize_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPYRAMARCH_SANITIZE=ON -DPYRAMARCH_FUZZ=ON -DPYRAMARCH_BUILD_SAMPLES=ON -DPYRAMARCH_REQUIRE_ALL_TESTS=ON \
    -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
    "-DCMAKE_C_FLAGS_RELWITHDEBINFO=-O1 -g" "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g"
  cmake --build "$sanitize_build" -j"$(nproc)"
  # Third-party leaks (driver, validation layer, loader) are suppressed by
  # library name only: tests/sanitizers/lsan.supp.
  (
    export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:strict_string_checks=1"
    export LSAN_OPTIONS="suppressions=$PYRAMARCH_ROOT/tests/sanitizers/lsan.supp:print_suppressions=0"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
    # Labels matched whole: `gpu` must not also select `gpuav` (GPU-assisted
    # validation runs once, in the normal build).
    cd "$sanitize_build" && ctest --output-on-failure --timeout 3000 -L '^(cpu|gpu)$'
  )
  export PYRAMARCH_FUZZ_BUILD="$sanitize_build"
fi

# Fuzzing: every target for PYRAMARCH_FUZZ_SECONDS (default 30), as many at
# once as there are cores.
fuzz_seconds="${PYRAMARCH_FUZZ_SECONDS:-30}"
if [ "$fuzz_seconds" != "0" ]; then
  echo "== fuzzing (${fuzz_seconds}s per target)"
  "$PYRAMARCH_ROOT/tests/fuzz/run_fuzzers.sh" "$fuzz_seconds"
fi
