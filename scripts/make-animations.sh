#!/usr/bin/env bash
# Turns the demo's PNG frames into one animated GIF per scene, the pictures
# the README shows:
#
#   ./scripts/demo.sh                              # -> demo-out/<scene>_0000.png ...
#   ./scripts/make-animations.sh [IN] [OUT]        # -> OUT/demo_<scene>.gif
#
# IN defaults to demo-out, OUT to samples/pyramarch/images. Every scene whose
# frames are in IN (metaballs, pointcloud, fluid, channel) gets an animation,
# scaled to ANIMATION_WIDTH pixels (default 480) at ANIMATION_FPS frames per
# second (default 15), with a palette made for that scene. Needs ffmpeg; when
# it is missing the script installs Debian's package (apt-get, through sudo
# when not root). Only this script installs it: the build and the tests do
# not need it.
set -euo pipefail
in="${1:-demo-out}"
out="${2:-$(cd "$(dirname "$0")/.." && pwd)/samples/pyramarch/images}"
width="${ANIMATION_WIDTH:-480}"
fps="${ANIMATION_FPS:-15}"
if ! command -v ffmpeg >/dev/null 2>&1; then
  echo "installing ffmpeg"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends ffmpeg
fi
mkdir -p "$out"
made=0
for scene in metaballs pointcloud fluid channel; do
  [ -e "$in/${scene}_0000.png" ] || continue
  gif="$out/demo_${scene}.gif"
  # One palette per scene (stats over every frame), then the frames mapped
  # onto it; only the changed rectangle of each frame is dithered.
  ffmpeg -loglevel error -y -framerate "$fps" -i "$in/${scene}_%04d.png" \
    -vf "scale=${width}:-1:flags=lanczos,split[a][b];[a]palettegen=max_colors=128:stats_mode=full[p];[b][p]paletteuse=dither=bayer:bayer_scale=3:diff_mode=rectangle" \
    -loop 0 "$gif"
  frames=$(ls "$in/${scene}"_[0-9]*.png | wc -l)
  echo "$gif: $frames frames, $(du -k "$gif" | cut -f1) KiB"
  made=$((made + 1))
done
if [ "$made" -eq 0 ]; then
  echo "make-animations.sh: no frames in $in (run ./scripts/demo.sh first)" >&2
  exit 1
fi
