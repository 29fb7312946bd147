#!/usr/bin/env python3
"""Closed/manifold check of a triangle PLY, soup or indexed (what `pyramarch iso --out` writes):
vertices welded by exact position; prints JSON: triangles, vertices, open edges (in one triangle),
non-manifold edges (in more than two), non-manifold vertices (triangles around them not one fan),
degenerate triangles. Pure Python: usage mesh-check.py MESH.ply"""
import struct, sys
from collections import defaultdict

TYPES = {'char': 'b', 'int8': 'b', 'uchar': 'B', 'uint8': 'B', 'short': 'h', 'int16': 'h', 'ushort': 'H', 'uint16': 'H',
         'int': 'i', 'int32': 'i', 'uint': 'I', 'uint32': 'I', 'float': 'f', 'float32': 'f', 'double': 'd', 'float64': 'd'}

def read_ply(path):
    data = open(path, 'rb').read()
    end = data.index(b'end_header') + len(b'end_header')
    end = data.index(b'\n', end) + 1  # the header's last line ends with \n or \r\n
    header = data[:end].decode('ascii').splitlines()
    fmt = None; elements = []
    for line in header:
        w = line.split()
        if not w: continue
        if w[0] == 'format': fmt = w[1]
        elif w[0] == 'element': elements.append([w[1], int(w[2]), []])
        elif w[0] == 'property': elements[-1][2].append(w[1:])
    verts, faces = [], []
    if fmt == 'ascii':
        toks = data[end:].split(); pos = 0
        for name, count, props in elements:
            for _ in range(count):
                rec = []
                for p in props:
                    if p[0] == 'list':
                        n = int(toks[pos]); pos += 1
                        rec.append([int(t) for t in toks[pos:pos + n]]); pos += n
                    else:
                        rec.append(float(toks[pos])); pos += 1
                if name == 'vertex': verts.append(tuple(rec[:3]))
                elif name == 'face': faces.append(rec[0])
    else:
        e = '<' if fmt == 'binary_little_endian' else '>'
        pos = end
        for name, count, props in elements:
            simple = all(p[0] != 'list' for p in props)
            if simple:
                s = struct.Struct(e + ''.join(TYPES[p[0]] for p in props))
                for i in range(count):
                    rec = s.unpack_from(data, pos); pos += s.size
                    if name == 'vertex': verts.append(rec[:3])
            else:
                for i in range(count):
                    rec = []
                    for p in props:
                        if p[0] == 'list':
                            cs = struct.Struct(e + TYPES[p[1]]); n = cs.unpack_from(data, pos)[0]; pos += cs.size
                            ist = struct.Struct(e + TYPES[p[2]] * n); rec.append(list(ist.unpack_from(data, pos))); pos += ist.size
                        else:
                            st = struct.Struct(e + TYPES[p[0]]); rec.append(st.unpack_from(data, pos)[0]); pos += st.size
                    if name == 'face': faces.append(rec[0])
    if not faces:  # triangle soup: consecutive vertex triples
        faces = [[3 * i, 3 * i + 1, 3 * i + 2] for i in range(len(verts) // 3)]
    return verts, faces

def main(path):
    verts, faces = read_ply(path)
    weld = {}; ids = [weld.setdefault(v, len(weld)) for v in verts]
    tris = []; degenerate = 0
    for f in faces:
        a, b, c = ids[f[0]], ids[f[1]], ids[f[2]]
        if a == b or b == c or a == c: degenerate += 1
        tris.append((a, b, c))
    edges = defaultdict(int)
    for a, b, c in tris:
        for u, v in ((a, b), (b, c), (c, a)):
            edges[(min(u, v), max(u, v))] += 1
    open_edges = sum(1 for n in edges.values() if n == 1)
    nonmanifold_edges = sum(1 for n in edges.values() if n > 2)
    # vertex-manifold: the triangles around each vertex form one connected fan
    around = defaultdict(list)
    for a, b, c in tris:
        around[a].append((b, c)); around[b].append((c, a)); around[c].append((a, b))
    nonmanifold_vertices = 0
    for v, opp in around.items():
        parent = {}
        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]; x = parent[x]
            return x
        for u, w in opp:
            parent[find(u)] = find(w)
        if len({find(u) for u, _ in opp}) != 1: nonmanifold_vertices += 1
    print(f'{{"triangles": {len(tris)}, "vertices": {len(weld)}, "open_edges": {open_edges}, '
          f'"nonmanifold_edges": {nonmanifold_edges}, "nonmanifold_vertices": {nonmanifold_vertices}, "degenerate": {degenerate}}}')

if __name__ == '__main__':  # tests/bench/voxelize_vs_sat.sh imports read_ply alone
    main(sys.argv[1])
