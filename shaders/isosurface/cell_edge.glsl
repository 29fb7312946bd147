// Vertex `key` of a cell's case -> the samples at the ends of its edge, the
// lower corner first. Needs `grid` and `tables` declared by the includer.
#ifndef ISO_CELL_EDGE_GLSL
#define ISO_CELL_EDGE_GLSL

// Cell index -> cell coordinates (once per cell, not per vertex; no division).
ivec3 cellCoord(uint cell) {
    const uint cx = grid.cells.x, cy = grid.cells.y;
    const uint row = divideBy(cell, grid.cellDivisors.x, grid.cellDivisors.z);
    const uint z = divideBy(row, grid.cellDivisors.y, grid.cellDivisors.w);
    return ivec3(cell - row * cx, row - z * cy, z);
}

// `edges`: tables.cases[case].xy, loaded once by a caller that needs several vertices of one cell.
// The corners of vertex `key`'s edge as offset codes (x | y << 1 | z << 2;
// corner k of a cell c is c + ivec3(k & 1, (k >> 1) & 1, k >> 2)), from constants.
void cellEdgeCorners(uvec2 edges, uint key, out uint oa, out uint ob) {
    const uint edge = ((key < 8 ? edges.x : edges.y) >> (4 * (key & 7u))) & 0xfu;
    const uint word = edge < 4u ? kIsoEdgeCodes0 : edge < 8u ? kIsoEdgeCodes1 : kIsoEdgeCodes2;
    const uint codes = (word >> (8u * (edge & 3u))) & 0xffu;
    oa = codes & 7u;
    ob = (codes >> 4) & 7u;
}

ivec3 cellCorner(ivec3 c, uint k) { return c + ivec3(k & 1u, (k >> 1) & 1u, (k >> 2) & 1u); }

void cellEdgeOf(ivec3 c, uvec2 edges, uint key, out ivec3 pa, out ivec3 pb) {
    uint oa, ob;
    cellEdgeCorners(edges, key, oa, ob);
    pa = cellCorner(c, oa);
    pb = cellCorner(c, ob);
}

// Includers without the MC tables (ISO_NO_TABLES) have cellCoord and cellEdgeOf only.
#ifndef ISO_NO_TABLES
void cellEdgeAt(ivec3 c, uint mcCase, uint key, out ivec3 pa, out ivec3 pb) {
    cellEdgeOf(c, tables.cases[mcCase].xy, key, pa, pb);
}

void cellEdge(uint cell, uint mcCase, uint key, out ivec3 pa, out ivec3 pb) {
    cellEdgeAt(cellCoord(cell), mcCase, key, pa, pb);
}
#endif
#endif
