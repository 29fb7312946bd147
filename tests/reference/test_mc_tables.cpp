// Sanity of the marching cubes tables (the single source both the GPU and the
// CPU reference use).
#include <gtest/gtest.h>

#include <bit>

#include "pyramarch/isosurface/mc_tables.h"

using namespace pyramarch::iso::mc;

TEST(McTables, CountsAreWholeTrianglesAtMostFifteen) {
    for (uint32_t c = 0; c < 256; ++c) {
        const int n = vertexCount(c);
        EXPECT_EQ(n % 3, 0) << "case " << c;
        EXPECT_LE(n, 15) << "case " << c;
        for (int j = n; j < 16; ++j) EXPECT_EQ(kTriTable[c][j], -1) << "case " << c << " slot " << j;
    }
    EXPECT_EQ(vertexCount(0), 0);
    EXPECT_EQ(vertexCount(255), 0);
}

TEST(McTables, TriangleEdgesAreCutEdges) {
    for (uint32_t c = 0; c < 256; ++c) {
        const uint32_t cut = cutEdges(c);
        uint32_t used = 0;
        for (int j = 0; j < vertexCount(c); ++j) {
            const int e = triangleEdge(c, j);
            ASSERT_GE(e, 0);
            ASSERT_LT(e, 12);
            EXPECT_TRUE(cut & (1u << e)) << "case " << c << " uses uncut edge " << e;
            used |= 1u << e;
        }
        // Every cut edge carries a vertex, else neighbours would disagree.
        EXPECT_EQ(used, cut) << "case " << c;
    }
}

TEST(McTables, ComplementaryCasesCutSameEdges) {
    for (uint32_t c = 0; c < 256; ++c) {
        EXPECT_EQ(cutEdges(c), cutEdges(255u - c)) << "case " << c;
        EXPECT_EQ(vertexCount(c) == 0, vertexCount(255u - c) == 0) << "case " << c;
    }
}

TEST(McTables, TrianglesAreNotDegenerate) {
    for (uint32_t c = 0; c < 256; ++c)
        for (int t = 0; t + 2 < vertexCount(c); t += 3) {
            const int a = triangleEdge(c, t), b = triangleEdge(c, t + 1), d = triangleEdge(c, t + 2);
            EXPECT_TRUE(a != b && b != d && a != d) << "case " << c << " triangle " << t / 3;
        }
}

TEST(McTables, EdgesJoinAdjacentCorners) {
    for (int e = 0; e < 12; ++e) {
        const int* a = kCornerOffset[kEdgeCorners[e][0]];
        const int* b = kCornerOffset[kEdgeCorners[e][1]];
        EXPECT_EQ(std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2]), 1) << "edge " << e;
    }
}
