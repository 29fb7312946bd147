// Mesh files for the tool and the samples: Wavefront OBJ, PLY (ascii and
// binary, either byte order) and glTF 2.0 (.gltf with its buffers, or .glb).
// The voxelizer library itself takes arrays (voxel::TriangleMesh); files are
// read here. Errors name the file and what is wrong with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "pyramarch/engine/status.h"
#include "pyramarch/voxelizer/mesh.h"

namespace sample {

enum class MeshFormat { Obj, Ply, Gltf, Glb };

// The format of a file from its first bytes ("ply", the glTF binary magic,
// a JSON object) or, when they say nothing, its extension (.obj, .ply,
// .gltf, .glb, any case). Fails on anything else.
pyramarch::Result<MeshFormat> meshFormat(const std::string& path, std::string_view head);

// Loads a triangle mesh in any of the formats above. PLY: vertex x, y, z (any
// numeric type), optional red/green/blue (uchar 0..255 or float 0..1) and nx,
// ny, nz; faces as a list property vertex_indices (or vertex_index), polygons
// split as fans, and triangle strips (element tristrips, -1 restarting a
// strip, zero-area joins left out); elements in any order, others skipped.
// glTF: the default scene's (else every) node tree with its transforms,
// primitives of mode triangles, strip or fan, POSITION, optional NORMAL and
// COLOR_0 (any component type: KHR_mesh_quantization; sparse accessors too);
// images are not decoded. Compressed primitives (Draco, meshopt) and files
// that require an extension changing the geometry are refused.
pyramarch::Result<pyramarch::voxel::TriangleMesh> loadMeshFile(const std::string& path);

// The parsers on bytes in memory (fuzz targets, tests); `name` is the file
// name errors report.
pyramarch::Result<pyramarch::voxel::TriangleMesh> parsePly(std::string_view bytes, const std::string& name);
// glTF JSON (binary = false; external buffers are resolved against
// baseDir, "" = none allowed) or a .glb container (binary = true).
pyramarch::Result<pyramarch::voxel::TriangleMesh> parseGltf(std::string_view bytes, const std::string& name,
                                                            bool binary, const std::string& baseDir = "");

} // namespace sample
