#!/usr/bin/env bash
# Sparse volumes against the dense volume path, on lavapipe or any
# device: CT-like heads (tests/bench/ct_phantom) at 256^3 u8 and f32 (both
# paths, alternated), 640^3 f32 and 1024^3 u8 (sparse only: their dense
# fields exceed one storage buffer), and the peers' Cayley 255^3 volume
# beside VTK's vtkFlyingEdges3D when the peers are built
# (../shared/peers/build.sh). Prints one JSON document: every run with its
# command and the tool's --stats output.
#   tests/bench/sparse_volumes.sh [BUILD=build] [DATA=/tmp/pyramarch-volumes] > results.json
set -euo pipefail
build="${1:-build}"; data="${2:-/tmp/pyramarch-volumes}"
pm="$build/samples/pyramarch/pyramarch"; phantom="$build/tests/bench/ct_phantom"
mkdir -p "$data"
[ -f "$data/head256.raw" ] || "$phantom" "$data/head256.raw" 256
[ -f "$data/head256f.raw" ] || "$phantom" "$data/head256f.raw" 256 --f32
[ -f "$data/head640f.raw" ] || "$phantom" "$data/head640f.raw" 640 --f32
[ -f "$data/head1024.raw" ] || "$phantom" "$data/head1024.raw" 1024
peers="${PEERS_BUILD:-}"
runs=()
run() { # command line after `pyramarch`
  local out="$data/run${#runs[@]}.json"
  "$pm" "$@" --stats "$out" >"$out.txt" 2>&1
  runs+=("$out|pyramarch $*")
}
for round in 1 2 3; do
  for pair in "head256.raw u8" "head256f.raw f32"; do
    set -- $pair
    run iso --raw "$data/$1" --dims 256,256,256 --type "$2" --iso 128 --repeat 4
    run iso --raw "$data/$1" --dims 256,256,256 --type "$2" --iso 128 --repeat 4 --sparse
  done
done
run iso --raw "$data/head640f.raw" --dims 640,640,640 --type f32 --iso 128 --repeat 3
run iso --raw "$data/head1024.raw" --dims 1024,1024,1024 --type u8 --iso 128 --repeat 3
vtk=""
if [ -n "$peers" ] && [ -x "$peers/peer_iso" ]; then
  "$peers/peer_iso" --impl vtk_flying_edges --field cayley --dims 256x256x256 --threads 2 \
    --dump-field "$data/cayley256.raw" >/dev/null
  for round in 1 2; do
    run iso --raw "$data/cayley256.raw" --dims 256,256,256 --type f32 --iso 0 --repeat 4
    run iso --raw "$data/cayley256.raw" --dims 256,256,256 --type f32 --iso 0 --repeat 4 --sparse
  done
  vtk=$("$peers/peer_iso" --impl vtk_flying_edges --field cayley --dims 256x256x256 --threads 2 | tail -1)
fi
python3 - "$vtk" "${runs[@]}" <<'PY'
import json, sys
vtk = sys.argv[1]
runs = []
for arg in sys.argv[2:]:
    path, command = arg.split("|", 1)
    text = open(path + ".txt").read()
    entry = {"command": command, "printed": [l for l in text.splitlines() if l.startswith(("sparse", "triangles"))]}
    try:
        entry["stats"] = json.load(open(path))
    except (OSError, ValueError):
        entry["error"] = text.strip().splitlines()[-1] if text.strip() else "no output"
    runs.append(entry)
doc = {"what": "sparse volumes vs the dense volume path (tests/bench/sparse_volumes.sh)", "runs": runs}
if vtk:
    doc["vtk_flying_edges_cayley256"] = json.loads(vtk)
print(json.dumps(doc, indent=1))
PY
