// The surface's vertex buffer (IsoVertex) and index buffer (uint) as up to
// kIsoOutputSlices storage bindings of one VkBuffer each, at offsets of
// kVertexSliceSize vertices / kIndexSliceSize indices (within one
// maxStorageBufferRange, a multiple of minStorageBufferOffsetAlignment): the
// buffers hosts draw may be larger than one storage binding (lavapipe's
// 128 MiB holds 4.2 M vertices, 33.5 M indices), only the compute writes go
// through bindings. Slice 0 sits at the includer's usual binding, slices
// 1..kIsoOutputSlices-1 at the bindings after its last one; the host binds
// every one (slices past the buffer repeat slice 0). The slice counts and
// sizes are specialization constants: one slice (every buffer within one
// binding) compiles to the plain array access, no division, no branch.
//
// Before including, the includer defines (either or both):
//   ISO_VERTEX_SLICES  the binding of slice 0, then ISO_VERTEX_SLICES_NEXT
//                      (slice 1's binding) and ISO_VERTEX_READ and/or
//                      ISO_VERTEX_WRITE (what the shader does with them)
//   ISO_INDEX_SLICES   the same for the index buffer (ISO_INDEX_SLICES_NEXT,
//                      ISO_INDEX_READ, ISO_INDEX_WRITE)
// and gets isoStoreVertex / isoStoreVertexPosition / isoStoreVertexNormal /
// isoStoreVertexXyz / isoLoadVertexPosition, isoStoreIndex / isoLoadIndex,
// each taking the vertex or index number in the whole buffer.
#ifndef ISO_OUTPUT_SLICES_GLSL
#define ISO_OUTPUT_SLICES_GLSL

// The slice of element i of the slices B0, B1, .. (SLICES of SIZE
// elements) and its index there; ACCESS(buffer, j, v) is a statement
// on element j of `buffer` with the value or variable v. An if-chain whose
// arms past the slices in use fold away at specialization: CPU drivers run
// every arm of a branch their SIMD lanes may diverge on, masked, so a switch
// over all 16 bindings cost 16 masked stores a vertex (2 slices: extraction
// 2.7x slower than one).
#define ISO_SLICE_CHAIN(B, SLICES, SIZE, i, ACCESS, v) \
    if (SLICES == 1u) { \
        ACCESS(B##0, (i), v); \
    } else { \
        const uint s = (i) / SIZE, j = (i) - s * SIZE; \
        if (s == 0u) ACCESS(B##0, j, v); \
        else if (SLICES > 1u && s == 1u) ACCESS(B##1, j, v); \
        else if (SLICES > 2u && s == 2u) ACCESS(B##2, j, v); \
        else if (SLICES > 3u && s == 3u) ACCESS(B##3, j, v); \
        else if (SLICES > 4u && s == 4u) ACCESS(B##4, j, v); \
        else if (SLICES > 5u && s == 5u) ACCESS(B##5, j, v); \
        else if (SLICES > 6u && s == 6u) ACCESS(B##6, j, v); \
        else if (SLICES > 7u && s == 7u) ACCESS(B##7, j, v); \
        else if (SLICES > 8u && s == 8u) ACCESS(B##8, j, v); \
        else if (SLICES > 9u && s == 9u) ACCESS(B##9, j, v); \
        else if (SLICES > 10u && s == 10u) ACCESS(B##10, j, v); \
        else if (SLICES > 11u && s == 11u) ACCESS(B##11, j, v); \
        else if (SLICES > 12u && s == 12u) ACCESS(B##12, j, v); \
        else if (SLICES > 13u && s == 13u) ACCESS(B##13, j, v); \
        else if (SLICES > 14u && s == 14u) ACCESS(B##14, j, v); \
        else if (SLICES > 15u && s == 15u) ACCESS(B##15, j, v); \
    }

#ifdef ISO_VERTEX_SLICES
#if defined(ISO_VERTEX_READ) && defined(ISO_VERTEX_WRITE)
#define ISO_VERTEX_ACCESS
#elif defined(ISO_VERTEX_READ)
#define ISO_VERTEX_ACCESS readonly
#else
#define ISO_VERTEX_ACCESS writeonly
#endif
layout(constant_id = kIsoSpecVertexSlices) const uint kVertexSlices = 1u;
layout(constant_id = kIsoSpecVertexSliceSize) const uint kVertexSliceSize = 0xffffffffu;
layout(set = 0, binding = ISO_VERTEX_SLICES, std430) ISO_VERTEX_ACCESS buffer VertexSlice0Buf { IsoVertex isoVertices0[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 0, std430) ISO_VERTEX_ACCESS buffer VertexSlice1Buf { IsoVertex isoVertices1[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 1, std430) ISO_VERTEX_ACCESS buffer VertexSlice2Buf { IsoVertex isoVertices2[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 2, std430) ISO_VERTEX_ACCESS buffer VertexSlice3Buf { IsoVertex isoVertices3[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 3, std430) ISO_VERTEX_ACCESS buffer VertexSlice4Buf { IsoVertex isoVertices4[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 4, std430) ISO_VERTEX_ACCESS buffer VertexSlice5Buf { IsoVertex isoVertices5[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 5, std430) ISO_VERTEX_ACCESS buffer VertexSlice6Buf { IsoVertex isoVertices6[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 6, std430) ISO_VERTEX_ACCESS buffer VertexSlice7Buf { IsoVertex isoVertices7[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 7, std430) ISO_VERTEX_ACCESS buffer VertexSlice8Buf { IsoVertex isoVertices8[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 8, std430) ISO_VERTEX_ACCESS buffer VertexSlice9Buf { IsoVertex isoVertices9[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 9, std430) ISO_VERTEX_ACCESS buffer VertexSlice10Buf { IsoVertex isoVertices10[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 10, std430) ISO_VERTEX_ACCESS buffer VertexSlice11Buf { IsoVertex isoVertices11[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 11, std430) ISO_VERTEX_ACCESS buffer VertexSlice12Buf { IsoVertex isoVertices12[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 12, std430) ISO_VERTEX_ACCESS buffer VertexSlice13Buf { IsoVertex isoVertices13[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 13, std430) ISO_VERTEX_ACCESS buffer VertexSlice14Buf { IsoVertex isoVertices14[]; };
layout(set = 0, binding = ISO_VERTEX_SLICES_NEXT + 14, std430) ISO_VERTEX_ACCESS buffer VertexSlice15Buf { IsoVertex isoVertices15[]; };
// The vertex buffer's ISO_SLICE_CHAIN.
#define ISO_VERTEX_SLICE_SWITCH(i, ACCESS, v) ISO_SLICE_CHAIN(isoVertices, kVertexSlices, kVertexSliceSize, i, ACCESS, v)
#endif // ISO_VERTEX_SLICES

#ifdef ISO_INDEX_SLICES
#if defined(ISO_INDEX_READ) && defined(ISO_INDEX_WRITE)
#define ISO_INDEX_ACCESS
#elif defined(ISO_INDEX_READ)
#define ISO_INDEX_ACCESS readonly
#else
#define ISO_INDEX_ACCESS writeonly
#endif
layout(constant_id = kIsoSpecIndexSlices) const uint kIndexSlices = 1u;
layout(constant_id = kIsoSpecIndexSliceSize) const uint kIndexSliceSize = 0xffffffffu;
layout(set = 0, binding = ISO_INDEX_SLICES, std430) ISO_INDEX_ACCESS buffer IndexSlice0Buf { uint isoIndices0[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 0, std430) ISO_INDEX_ACCESS buffer IndexSlice1Buf { uint isoIndices1[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 1, std430) ISO_INDEX_ACCESS buffer IndexSlice2Buf { uint isoIndices2[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 2, std430) ISO_INDEX_ACCESS buffer IndexSlice3Buf { uint isoIndices3[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 3, std430) ISO_INDEX_ACCESS buffer IndexSlice4Buf { uint isoIndices4[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 4, std430) ISO_INDEX_ACCESS buffer IndexSlice5Buf { uint isoIndices5[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 5, std430) ISO_INDEX_ACCESS buffer IndexSlice6Buf { uint isoIndices6[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 6, std430) ISO_INDEX_ACCESS buffer IndexSlice7Buf { uint isoIndices7[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 7, std430) ISO_INDEX_ACCESS buffer IndexSlice8Buf { uint isoIndices8[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 8, std430) ISO_INDEX_ACCESS buffer IndexSlice9Buf { uint isoIndices9[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 9, std430) ISO_INDEX_ACCESS buffer IndexSlice10Buf { uint isoIndices10[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 10, std430) ISO_INDEX_ACCESS buffer IndexSlice11Buf { uint isoIndices11[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 11, std430) ISO_INDEX_ACCESS buffer IndexSlice12Buf { uint isoIndices12[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 12, std430) ISO_INDEX_ACCESS buffer IndexSlice13Buf { uint isoIndices13[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 13, std430) ISO_INDEX_ACCESS buffer IndexSlice14Buf { uint isoIndices14[]; };
layout(set = 0, binding = ISO_INDEX_SLICES_NEXT + 14, std430) ISO_INDEX_ACCESS buffer IndexSlice15Buf { uint isoIndices15[]; };
// The index buffer's ISO_SLICE_CHAIN.
#define ISO_INDEX_SLICE_SWITCH(i, ACCESS, v) ISO_SLICE_CHAIN(isoIndices, kIndexSlices, kIndexSliceSize, i, ACCESS, v)
#endif // ISO_INDEX_SLICES

#ifdef ISO_VERTEX_WRITE
#define ISO_STORE_VERTEX(b, j, v) b[j] = v
#define ISO_STORE_POSITION(b, j, v) b[j].position = v
#define ISO_STORE_NORMAL(b, j, v) b[j].normal = v
#define ISO_STORE_XYZ(b, j, v) b[j].position.xyz = v
void isoStoreVertex(uint i, IsoVertex v) { ISO_VERTEX_SLICE_SWITCH(i, ISO_STORE_VERTEX, v) }
void isoStoreVertexPosition(uint i, vec4 p) { ISO_VERTEX_SLICE_SWITCH(i, ISO_STORE_POSITION, p) }
void isoStoreVertexNormal(uint i, vec4 n) { ISO_VERTEX_SLICE_SWITCH(i, ISO_STORE_NORMAL, n) }
// position.xyz only (w kept).
void isoStoreVertexXyz(uint i, vec3 p) { ISO_VERTEX_SLICE_SWITCH(i, ISO_STORE_XYZ, p) }
#endif
#ifdef ISO_VERTEX_READ
#define ISO_LOAD_POSITION(b, j, v) v = b[j].position
vec4 isoLoadVertexPosition(uint i) {
    vec4 p = vec4(0.0);
    ISO_VERTEX_SLICE_SWITCH(i, ISO_LOAD_POSITION, p)
    return p;
}
#endif
#ifdef ISO_INDEX_WRITE
#define ISO_STORE_INDEX(b, j, v) b[j] = v
void isoStoreIndex(uint i, uint index) { ISO_INDEX_SLICE_SWITCH(i, ISO_STORE_INDEX, index) }
#endif
#ifdef ISO_INDEX_READ
#define ISO_LOAD_INDEX(b, j, v) v = b[j]
uint isoLoadIndex(uint i) {
    uint index = 0u;
    ISO_INDEX_SLICE_SWITCH(i, ISO_LOAD_INDEX, index)
    return index;
}
#endif

#endif // ISO_OUTPUT_SLICES_GLSL
