#!/usr/bin/env bash
# One run, same machine, same Cayley volumes: pyramarch's HistoPyramid, its
# shared-vertex (indexed) output and the scan baseline's extraction (`pyramarch bench --source volume`: the field is uploaded as a
# float32 volume before timing, so extraction is every pass after it) against
# VTK's vtkFlyingEdges3D with 2 threads (the peer tool in ../shared/peers).
# Writes one JSON (both sides, the commands, the machine) and, where
# python3-matplotlib is installed, the plot of M cells/s against grid size.
#
#   tests/bench/iso_vs_vtk.sh PATH/TO/pyramarch [SIZES=63,127,255] [OUT-DIR=tests/bench/results] [bench options...]
#
# Each size is timed with the module's default normals (central) and with
# --normals none (the peer computes none: the same work). Further bench
# options go to `pyramarch bench` and into the file name.
#
# PEERS_BUILD names the peers' build folder (../shared/peers/build.sh builds it).
set -euo pipefail
cmdline="$0 $*"
root=$(cd "$(dirname "$0")/../.." && pwd)
pm=$1
sizes=${2:-63,127,255}
out=${3:-$root/tests/bench/results}
shift $(( $# >= 3 ? 3 : $# ))
extra=("$@")
suffix=$(printf '%s' "${extra[*]:-}" | sed 's/--//g; s/[^A-Za-z0-9]\+/-/g; s/^-//; s/-$//')
peers=${PEERS_DIR:-$root/../shared/peers}
build=$("$peers/build.sh")
mkdir -p "$out"
day=$(date -u +%Y-%m-%d)
kind=$("$pm" info 2>/dev/null | sed -n 's/^Chosen: //p' | head -1 | sed 's/ (.*//; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr 'A-Z' 'a-z')
base=$out/$day-${kind:-unknown}-iso-vs-vtk${suffix:+-$suffix}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/peer.jsonl"
for cells in ${sizes//,/ }; do
  samples=$((cells + 1))
  "$build/peer_iso" --impl vtk_flying_edges --field cayley --dims "${samples}x${samples}x${samples}" --threads 2 \
    | tail -1 >>"$tmp/peer.jsonl"
done
# Central-difference normals (the module's default) and no normals (the
# peer computes none: the same work), one after the other.
"$pm" bench --groups iso --field cayley --sizes "$sizes" --strategy all --source volume ${extra[@]+"${extra[@]}"} --json "$tmp/pm.json" >/dev/null
"$pm" bench --groups iso --field cayley --sizes "$sizes" --strategy all --source volume --normals none ${extra[@]+"${extra[@]}"} --json "$tmp/pm-none.json" >/dev/null
python3 - "$tmp/peer.jsonl" "$tmp/pm.json" "$tmp/pm-none.json" "$base.json" "$cmdline" <<'PY'
import json, sys
peer = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
ours = json.load(open(sys.argv[2]))
ours["results"] += json.load(open(sys.argv[3]))["results"]
ours["command"] = [ours["command"], json.load(open(sys.argv[3]))["command"]]
json.dump({"command": sys.argv[5], "peer": peer, "pyramarch": ours}, open(sys.argv[4], "w"), indent=1)
PY
py=python3
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null && py=/usr/bin/python3
if "$py" -c 'import matplotlib' 2>/dev/null; then
  "$py" "$root/tests/bench/plot_iso.py" "$base.json" --png "$base.png"
else
  "$py" "$root/tests/bench/plot_iso.py" "$base.json"
  echo "iso_vs_vtk.sh: no plot (apt-get install python3-matplotlib)" >&2
fi
echo "wrote $base.json"
