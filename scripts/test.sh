#!/usr/bin/env bash
# Installs what is missing, builds, and runs the whole test suite (CTest).
# GPU tests run on the default Vulkan device (Mesa lavapipe without a GPU)
# with validation and synchronization validation on.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/install-deps.sh"
source "$here/env.sh"
pyramarch_build
cd "$PYRAMARCH_BUILD"
ctest --output-on-failure --timeout 1500 "$@"
