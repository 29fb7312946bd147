#!/usr/bin/env bash
# Installs the Debian/Ubuntu packages Pyramarch builds and tests with, only
# when some are missing (apt-get, through sudo when not root).
set -euo pipefail
packages=(
  cmake make g++ pkg-config
  libvulkan-dev libvulkan-volk-dev glslc libshaderc-dev glslang-dev spirv-tools
  zlib1g-dev  # particle files: gzip BGEO, zlib-compressed VTK XML
  libglm-dev libglfw3-dev mesa-vulkan-drivers vulkan-validationlayers vulkan-tools
  libgtest-dev googletest libbenchmark-dev
  libstb-dev libimgui-dev libtinyobjloader-dev libcli11-dev xvfb xauth
  libtinygltf-dev nlohmann-json3-dev  # glTF 2.0 meshes (samples/common/src/mesh_files.cpp)
  clang  # libFuzzer targets (tests/fuzz/run_fuzzers.sh)
  clang-format  # scripts/check-format.sh (Debian 12: clang-format 14)
)
# Debian 12 ships libFuzzer's runtime in its own package; elsewhere it comes with clang.
if apt-cache show libclang-rt-dev >/dev/null 2>&1; then packages+=(libclang-rt-dev); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "installing: ${missing[*]}"
sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
