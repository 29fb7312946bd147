#!/usr/bin/env bash
# What storing the leaf merge's output costs on the default Vulkan device,
# through four kinds of store: uvec4 storage-buffer stores (what
# leaf_merge.comp does), 64-bit 4-vectors, buffer device addresses, and
# imageStore into RGBA32UI texel buffers. THREADS defaults to 316,000, the
# occupied cells of the UV sphere at R = 512.
#   tests/bench/store_probe/run.sh [THREADS]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${STORE_PROBE_BUILD:-/tmp/pyramarch-store-probe}
mkdir -p "$out"
shaders=()
for s in uvec4 u64vec4 address image; do
  glslc -O --target-env=vulkan1.2 "$here/stores_$s.comp" -o "$out/stores_$s.spv"
  shaders+=("$out/stores_$s.spv")
done
g++ -O2 -std=c++20 "$here/store_probe.cpp" /usr/include/volk.c -ldl -o "$out/store_probe"
echo "# $0 $*"
"$out/store_probe" "${1:-316000}" "${shaders[@]}"
