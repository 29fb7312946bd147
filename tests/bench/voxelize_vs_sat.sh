#!/usr/bin/env bash
# One run, same machine, same meshes: pyramarch's voxelizer against an exact
# single-thread CPU surface voxelizer (`peer_voxelize --sat 1`: a double
# triangle/box separating-axis test per candidate voxel, the peer tools in
# ../shared/peers). Per round and mesh the peer runs first, then
# `pyramarch voxelize --frames 3 --stats`, so both see the same load; the
# ratio is pyramarch's GPU time (the sum of its per-pass medians) over the
# peer's SAT time, each side the median of 3 timed runs (the peer's
# --repeats; pyramarch's --frames, after its first frame, which JIT-compiles
# the shaders on a CPU driver). Writes one JSON (every round, the medians, the commands,
# the machine) and prints a table.
#
#   tests/bench/voxelize_vs_sat.sh PATH/TO/pyramarch [ROUNDS=3] [RES=512] [OUT-DIR=tests/bench/results] [MESH...]
#
# MESH: the peer's built-in `torusknot` and `uvsphere` (the default), or a
# mesh file: .obj as it is, .ply converted to .obj for the peer (which reads
# OBJ only; pyramarch reads the same .obj, so both voxelize the same
# triangles). The peer's other timings (OpenVDB level set and distance
# field, several seconds a mesh and repeat) run too and are kept in the JSON.
#
# PEERS_BUILD names the peers' build folder (../shared/peers/build.sh builds it).
set -euo pipefail
cmdline="$0 $*"
root=$(cd "$(dirname "$0")/../.." && pwd)
pm=$(realpath "$1")
rounds=${2:-3}
res=${3:-512}
out=${4:-$root/tests/bench/results}
shift $(( $# >= 4 ? 4 : $# ))
meshes=("$@")
[[ ${#meshes[@]} -gt 0 ]] || meshes=(torusknot uvsphere)
peers=${PEERS_DIR:-$root/../shared/peers}
build=$("$peers/build.sh")
mkdir -p "$out"
day=$(date -u +%Y-%m-%d)
kind=$("$pm" info 2>/dev/null | sed -n 's/^Chosen: //p' | head -1 | sed 's/ (.*//; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr 'A-Z' 'a-z')
base=$out/$day-${kind:-unknown}-voxelize-vs-sat
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Each mesh as the peer names it (built-in name or .obj path) and as a file for pyramarch.
peer_names=() files=()
for m in "${meshes[@]}"; do
  case $m in
    torusknot | uvsphere)
      "$build/peer_voxelize" --mesh "$m" --res 8 --threads 1 --repeats 1 --dump-obj "$tmp/$m.obj" >/dev/null
      peer_names+=("$m") files+=("$tmp/$m.obj") ;;
    *.obj | *.OBJ)
      [[ -r $m ]] || { echo "voxelize_vs_sat.sh: cannot read $m" >&2; exit 1; }
      peer_names+=("$(realpath "$m")") files+=("$(realpath "$m")") ;;
    *.ply | *.PLY)
      [[ -r $m ]] || { echo "voxelize_vs_sat.sh: cannot read $m" >&2; exit 1; }
      obj=$tmp/$(basename "${m%.*}").obj
      python3 - "$root/scripts/mesh-check.py" "$m" "$obj" <<'PY'
import importlib.util, sys
spec = importlib.util.spec_from_file_location("mesh_check", sys.argv[1])
mc = importlib.util.module_from_spec(spec); spec.loader.exec_module(mc)
verts, faces = mc.read_ply(sys.argv[2])
with open(sys.argv[3], "w") as f:
    f.writelines("v %.9g %.9g %.9g\n" % tuple(v) for v in verts)
    for p in faces:  # polygons as fans, as pyramarch's PLY reader splits them
        f.writelines("f %d %d %d\n" % (p[0] + 1, p[i] + 1, p[i + 1] + 1) for i in range(1, len(p) - 1))
PY
      peer_names+=("$obj") files+=("$obj") ;;
    *) echo "voxelize_vs_sat.sh: $m: torusknot, uvsphere, or a .obj/.ply file" >&2; exit 1 ;;
  esac
done

: >"$tmp/rounds.jsonl"
for r in $(seq 1 "$rounds"); do
  for i in "${!files[@]}"; do
    peer_cmd=("$build/peer_voxelize" --mesh "${peer_names[$i]}" --res "$res" --threads 1 --repeats 3 --sat 1)
    pm_cmd=("$pm" voxelize --mesh "${files[$i]}" --res "$res" --frames 3 --stats "$tmp/stats.json")
    "${peer_cmd[@]}" 2>/dev/null | tail -1 >"$tmp/peer.json"
    "${pm_cmd[@]}" >/dev/null 2>"$tmp/pm.log" || { cat "$tmp/pm.log" >&2; exit 1; }
    python3 - "$r" "${meshes[$i]}" "$tmp/peer.json" "$tmp/stats.json" "${peer_cmd[*]}" "${pm_cmd[*]}" \
      >>"$tmp/rounds.jsonl" <<'PY'
import json, sys
r, mesh, peer_file, stats_file, peer_cmd, pm_cmd = sys.argv[1:]
peer = json.load(open(peer_file))
stats = json.load(open(stats_file))
# Per-pass medians; the "name.*" entries are sums of a pass's launches, already counted.
passes = {k: v for k, v in stats["passMilliseconds"].items() if not k.endswith("*")}
gpu = sum(passes.values())
print(json.dumps({"round": int(r), "mesh": mesh, "sat_ms": peer["sat_ms_median"], "pyramarch_gpu_ms": gpu,
                  "ratio": gpu / peer["sat_ms_median"], "triangles": stats["triangles"], "leaves": stats["leaves"],
                  "sat_voxels": peer.get("exact_surface_voxels"), "peer_command": peer_cmd, "pyramarch_command": pm_cmd,
                  "peer": peer, "passes": passes}))
PY
  done
done

python3 - "$tmp/rounds.jsonl" "$base.json" "$cmdline" "$pm" <<'PY'
import json, platform, statistics, subprocess, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
info = subprocess.run([sys.argv[4], "info"], capture_output=True, text=True).stdout
summary = {}
for mesh in dict.fromkeys(r["mesh"] for r in rows):
    mine = [r for r in rows if r["mesh"] == mesh]
    summary[mesh] = {"rounds": len(mine), "sat_ms": [r["sat_ms"] for r in mine],
                     "pyramarch_gpu_ms": [r["pyramarch_gpu_ms"] for r in mine],
                     "ratio": [r["ratio"] for r in mine], "ratio_median": statistics.median(r["ratio"] for r in mine)}
json.dump({"command": sys.argv[3], "machine": {"cpu": cpu, "cores": len(open("/proc/cpuinfo").read().split("processor")) - 1,
                                              "host": platform.node()},
           "device": [l for l in info.splitlines() if l.startswith("Chosen")], "summary": summary, "rounds": rows},
          open(sys.argv[2], "w"), indent=1)
print("%-22s %-28s %-28s %s" % ("mesh", "SAT ms (1 thread)", "pyramarch GPU ms", "ratio per round (median)"))
for mesh, s in summary.items():
    rng = lambda v: "%.1f-%.1f" % (min(v), max(v))
    print("%-22s %-28s %-28s %s (%.2fx)" % (mesh[-22:], rng(s["sat_ms"]), rng(s["pyramarch_gpu_ms"]),
                                          " ".join("%.2f" % x for x in s["ratio"]), s["ratio_median"]))
PY
echo "wrote $base.json"
