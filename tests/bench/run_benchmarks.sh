#!/usr/bin/env bash
# Runs the standard benchmark suite and writes JSON under tests/bench/results/
# (or $1): `pyramarch bench` (the one GPU benchmark driver) at its default
# settings (every scenario, both strategies), its indexed and root-descent
# variants, plus the Google Benchmark CPU pieces (cpu_bench, render_graph_bench).
#
#   tests/bench/run_benchmarks.sh [out-dir] [build-dir]
#
# The file names carry the date and the device kind; each JSON names the
# command, the machine (CPU model, cores), the Vulkan device and its driver.
# On a machine without a GPU set VK_DRIVER_FILES to lavapipe's ICD, e.g.
#   VK_DRIVER_FILES=/usr/share/vulkan/icd.d/lvp_icd.x86_64.json tests/bench/run_benchmarks.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/tests/bench/results}
build=${2:-$root/build}
exe=$build/samples/pyramarch/pyramarch
for f in "$exe" "$build/tests/bench/cpu_bench" "$build/tests/bench/render_graph_bench"; do
  [[ -x $f ]] || { echo "run_benchmarks.sh: $f not built (cmake --build $build)" >&2; exit 1; }
done
mkdir -p "$out"
day=$(date -u +%Y-%m-%d)
kind=$("$exe" info 2>/dev/null | sed -n 's/^Chosen: //p' | head -1 | sed 's/ (.*//; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr 'A-Z' 'a-z')
kind=${kind:-unknown}
base=$out/$day-$kind
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //')" | tee "$base-bench.txt"
echo "command: pyramarch bench --json $base-bench.json" | tee -a "$base-bench.txt"
start=$(date +%s)
"$exe" bench --json "$base-bench.json" | tee -a "$base-bench.txt"
echo "suite wall time: $(( $(date +%s) - start )) s" | tee -a "$base-bench.txt"
# What the former iso_bench and voxelizer_bench drivers measured beyond the
# default suite: indexed HistoPyramid output on the Cayley sizes, and the
# voxelizer's other octree builds (root descent as in Crassin & Green 2012, and the tile hash).
"$exe" bench --groups iso --field cayley --strategy indexed --json "$base-bench-indexed.json" > "$base-bench-indexed.txt"
"$exe" bench --groups voxelizer --octree-build root --json "$base-bench-octree-root.json" > "$base-bench-octree-root.txt"
"$exe" bench --groups voxelizer --octree-build hash --json "$base-bench-octree-hash.json" > "$base-bench-octree-hash.txt"
# Timestamps against the wall clock before and after the queue renders (the lavapipe caveat in the README).
"$exe" bench --timing-check > "$base-timing-check.txt"
"$build/tests/bench/cpu_bench" --benchmark_format=json --benchmark_out="$base-cpu_bench.json" --benchmark_out_format=json >/dev/null
"$build/tests/bench/render_graph_bench" --benchmark_out="$base-render_graph_bench.json" --benchmark_out_format=json >/dev/null
echo "wrote $base-bench.json, $base-bench.txt, $base-bench-indexed.json, $base-bench-octree-root.json, $base-timing-check.txt, $base-cpu_bench.json, $base-render_graph_bench.json"
