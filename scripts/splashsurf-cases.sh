#!/usr/bin/env bash
# splashsurf's own integration cases through `pyramarch iso`, on the dense
# grid and with --sparse, each mesh checked closed and manifold:
#
#   ./scripts/splashsurf-cases.sh SPLASHSURF_CHECKOUT [PYRAMARCH] [OUT]
#
# SPLASHSURF_CHECKOUT is a clone of github.com/InteractiveComputerGraphics/
# splashsurf (its data/ folder: legacy VTK and BGEO particle files). The cases
# and their triangle (and vertex) ranges are those of its tests
# splashsurf_lib/tests/integration_tests/test_full.rs and
# splashsurf/tests/test_pipeline.rs: particle radius r, compact support 4 r
# (pyramarch's --smoothing-length 2), cube size C r, surface threshold T. The
# "_grid" and "_global" variants of a test differ only in splashsurf's own
# domain decomposition and are one case here. test_pipeline's two
# postprocessing cases decimate the mesh (splashsurf's mesh cleanup), which
# pyramarch does not do, and are not run.
#
# Prints one JSON line per case and domain: the tool's exit code, splashsurf's
# range, and scripts/mesh-check.py's counts (vertices welded by position).
# A line with "in_range": false, open or non-manifold edges is a miss.
set -u
data="$1/data"
tool="${2:-build/samples/pyramarch/pyramarch}"
out="${3:-splashsurf-out}"
here="$(cd "$(dirname "$0")" && pwd)"
mkdir -p "$out"
run() { # name lo hi vertex_lo vertex_hi file r C T [options...]
  local name=$1 lo=$2 hi=$3 vlo=$4 vhi=$5 file=$6 r=$7 c=$8 t=$9
  shift 9
  for domain in dense sparse; do
    local flag=()
    [ "$domain" = sparse ] && flag=(--sparse)
    local mesh="$out/$name.$domain.ply"
    rm -f "$mesh"
    "$tool" iso --particles "$data/$file" --particle-radius "$r" --smoothing-length 2 --cube-size "$c" \
      --surface-threshold "$t" --indexed "${flag[@]}" "$@" --out "$mesh" > "$out/$name.$domain.log" 2>&1
    local rc=$?
    local check='{"triangles": 0, "vertices": 0}'
    [ -f "$mesh" ] && check=$(python3 "$here/mesh-check.py" "$mesh")
    python3 - "$name" "$domain" "$rc" "$lo" "$hi" "$vlo" "$vhi" "$check" <<'PY'
import json, sys
name, domain, rc, lo, hi, vlo, vhi, check = sys.argv[1:]
m = json.loads(check)
ok = int(lo) < m["triangles"] < int(hi) and (vlo == "0" or int(vlo) <= m["vertices"] < int(vhi))
print(json.dumps({"case": name, "domain": domain, "rc": int(rc), "range": [int(lo), int(hi)],
                  "vertex_range": [int(vlo), int(vhi)] if vlo != "0" else None, "in_range": ok, **m}))
PY
  done
}
run bunny 60000 80000 0 0 bunny_frame_14_7705_particles.vtk 0.025 0.75 0.6
run hexecontahedron 550000 650000 0 0 pentagonal_hexecontahedron_32286_particles.bgeo 0.025 0.75 0.6
run hilbert 360000 400000 0 0 hilbert_46843_particles.bgeo 0.025 0.75 0.6
run hilbert2 90000 100000 0 0 hilbert2_7954_particles.vtk 0.025 1.1 0.6
run octocat 140000 180000 0 0 octocat_32614_particles.bgeo 0.025 0.75 0.6
run knot 40000 70000 0 0 sailors_knot_19539_particles.vtk 0.025 1.1 0.6
run free_particles_01 21000 25000 0 0 free_particles_1000_particles.vtk 0.5 1.5 0.45
run free_particles_02 1500 1600 0 0 free_particles_125_particles.vtk 0.5 1.5 0.45 \
  --particle-aabb-min -10,-10,-10 --particle-aabb-max 210,210,210
run pipeline_basic 35000 40000 15000 20000 bunny_frame_14_7705_particles.vtk 0.025 1.0 0.6
run pipeline_fine 920000 930000 455000 465000 bunny_frame_14_7705_particles.vtk 0.025 0.2 0.6
run pipeline_particle_aabb 19000 23000 9500 11500 bunny_frame_14_7705_particles.vtk 0.025 1.0 0.6 \
  --particle-aabb-min -0.7,0.6,-0.2 --particle-aabb-max 0.8,2.1,0.7
