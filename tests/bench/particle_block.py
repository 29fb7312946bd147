#!/usr/bin/env python3
"""Writes the particle set of the sparse-particle measurements
(tests/bench/results/2026-11-28-sparse-metaballs-particles.json): 48,000
particles on a 0.01 lattice (60 x 20 x 40, x jittered by +-0.002) and 500 in
a splash 2 units away, seed 1, as an ASCII PLY.

    python3 tests/bench/particle_block.py block.ply
    pyramarch iso --particles block.ply --particle-radius 0.005 [--voxel-size 0.002] --sparse
"""
import random
import sys

random.seed(1)
points = []
for z in range(40):
    for y in range(20):
        for x in range(60):
            points.append((x * 0.01 + random.uniform(-0.002, 0.002), y * 0.01, z * 0.01))
for _ in range(500):
    points.append((2.0 + random.uniform(0, 0.1), 0.5 + random.uniform(0, 0.1), random.uniform(0, 0.1)))
with open(sys.argv[1] if len(sys.argv) > 1 else "block.ply", "w") as f:
    f.write("ply\nformat ascii 1.0\nelement vertex %d\n" % len(points))
    f.write("property float x\nproperty float y\nproperty float z\nend_header\n")
    for p in points:
        f.write("%f %f %f\n" % p)
