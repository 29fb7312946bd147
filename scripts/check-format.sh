#!/usr/bin/env bash
# Checks that the C++ sources are formatted with the repository's
# .clang-format (clang-format 14, Debian 12's). With no arguments it checks
# the files that differ from PYRAMARCH_FORMAT_BASE (default: the commit that
# applied the format to the whole tree, so in effect every file touched
# since); `--all` checks every tracked file; `--fix` rewrites in place.
set -euo pipefail
cd "$(dirname "$0")/.."
fmt="$(command -v clang-format-14 || command -v clang-format || true)"
if [ -z "$fmt" ]; then
  echo "check-format: clang-format not found (Debian: apt-get install clang-format)" >&2
  exit 1
fi
mode=check
files=()
case "${1:-}" in
  --fix) mode=fix; mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp') ;;
  --all) mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp') ;;
  "")
    base="${PYRAMARCH_FORMAT_BASE:-$(git log --format=%H --grep='^format: apply .clang-format' -n 1)}"
    if [ -z "$base" ] || ! git cat-file -e "$base^{commit}" 2>/dev/null; then
      mapfile -t files < <(git ls-files '*.cpp' '*.h' '*.hpp')
    else
      mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.h' '*.hpp')
    fi ;;
  *) echo "usage: $0 [--all|--fix]" >&2; exit 2 ;;
esac
# Fuzz inputs are data, and the headers under shaders/ are read by glslc as
# GLSL too (clang-format only knows C++): neither is formatted.
keep=()
for f in "${files[@]}"; do
  case "$f" in tests/fuzz/corpus/*|shaders/*) continue ;; esac
  [ -f "$f" ] && keep+=("$f")
done
if [ ${#keep[@]} -eq 0 ]; then echo "check-format: no C++ files to check"; exit 0; fi
if [ "$mode" = fix ]; then
  "$fmt" -i --style=file "${keep[@]}"
  exit 0
fi
bad=()
for f in "${keep[@]}"; do
  if ! "$fmt" --style=file --dry-run --Werror "$f" >/dev/null 2>&1; then bad+=("$f"); fi
done
if [ ${#bad[@]} -ne 0 ]; then
  echo "check-format: ${#bad[@]} file(s) not formatted with .clang-format (fix: scripts/check-format.sh --fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#keep[@]} file(s) formatted"
