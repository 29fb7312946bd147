# Sourced by the scripts: a quiet Vulkan loader and a build folder.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-/tmp/pyramarch-xdg-$(id -u)}"
mkdir -p "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR" 2>/dev/null || true
PYRAMARCH_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYRAMARCH_BUILD="${PYRAMARCH_BUILD:-$PYRAMARCH_ROOT/build}"
pyramarch_build() {
  cmake -S "$PYRAMARCH_ROOT" -B "$PYRAMARCH_BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo "$@"
  cmake --build "$PYRAMARCH_BUILD" -j"$(nproc)"
}
# ccache, where installed, keeps rebuilds of unchanged files cheap (the
# normal, sanitizer and ThreadSanitizer builds compile the same sources);
# PYRAMARCH_CCACHE=0 turns it off.
if [ "${PYRAMARCH_CCACHE:-1}" != "0" ] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_C_COMPILER_LAUNCHER="${CMAKE_C_COMPILER_LAUNCHER:-ccache}"
  export CMAKE_CXX_COMPILER_LAUNCHER="${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}"
fi
