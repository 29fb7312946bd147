#!/usr/bin/env bash
# Installs what is missing, builds, and runs the main job: `pyramarch demo`,
# the headless demo on the default device (PNG frames + per-pass timings).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/install-deps.sh"
source "$here/env.sh"
pyramarch_build
"$PYRAMARCH_BUILD/samples/pyramarch/pyramarch" demo "$@"
