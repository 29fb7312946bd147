# Smoke check of `pyramarch bench` (CTest, label bench): a tiny run of every
# scenario group, strategy, particle splat and octree build must exit 0 and
# write JSON whose records carry the fields the README's tables come from,
# with every strategy (histopyramid, scan, indexed) agreeing on the triangle
# count of each iso scenario and the three octree builds on the voxelizer's
# fragments and leaves.
#   cmake -DPYRAMARCH=<exe> -DOUT=<file.json> -P check_bench_json.cmake
execute_process(
  COMMAND ${PYRAMARCH} bench --sizes 7,16 --field cayley,gyroid --particles 2000 --particle-sizes 16
          --resolutions 16 --meshes sphere --frames 1 --strategy all --splat both --octree-build all
          --validation --json ${OUT}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 77)
  message(STATUS "no Vulkan device")
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pyramarch bench failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${OUT} json)
string(JSON device ERROR_VARIABLE e GET "${json}" device)
if(e OR device STREQUAL "")
  message(FATAL_ERROR "no device in ${OUT}: ${e}")
endif()
foreach(key date command driver machine)
  string(JSON v ERROR_VARIABLE e GET "${json}" ${key})
  if(e)
    message(FATAL_ERROR "no '${key}' in ${OUT}: ${e}")
  endif()
endforeach()
string(JSON count LENGTH "${json}" results)
# 2 fields x 2 sizes x 3 strategies + 1 particle scenario x 2 splats x 3 strategies
# + 1 voxelizer scenario x 3 octree builds (levels, root, hash)
if(NOT count EQUAL 21)
  message(FATAL_ERROR "expected 21 records, got ${count}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON group GET "${json}" results ${i} group)
  string(JSON scenario GET "${json}" results ${i} scenario)
  string(JSON strategy GET "${json}" results ${i} strategy)
  string(JSON tris GET "${json}" results ${i} triangles)
  string(JSON gpu GET "${json}" results ${i} gpuMs median)
  string(JSON passes LENGTH "${json}" results ${i} passes)
  string(JSON total GET "${json}" results ${i} memoryBytes total)
  string(JSON module GET "${json}" results ${i} memoryBytes module)
  string(JSON overflow GET "${json}" results ${i} overflow)
  string(JSON cmd GET "${json}" results ${i} command)
  if(tris EQUAL 0 OR passes EQUAL 0 OR NOT gpu GREATER 0 OR module EQUAL 0 OR total LESS module OR overflow OR cmd STREQUAL "")
    message(FATAL_ERROR "record ${i} (${scenario} ${strategy}): triangles ${tris}, passes ${passes}, gpu ${gpu} ms, "
                        "memory ${module}/${total}, overflow ${overflow}, command '${cmd}'")
  endif()
  if(NOT group STREQUAL "voxelizer")
    if(DEFINED tris_${scenario} AND NOT tris_${scenario} EQUAL tris)
      message(FATAL_ERROR "${scenario}: strategies disagree on the triangle count (${tris_${scenario}} vs ${tris} for ${strategy})")
    endif()
    set(tris_${scenario} ${tris})
  else()
    list(APPEND vox_strategies ${strategy})
    string(JSON leaves GET "${json}" results ${i} leaves)
    string(JSON fragments GET "${json}" results ${i} fragments)
    if(leaves EQUAL 0)
      message(FATAL_ERROR "${scenario} ${strategy}: no leaves")
    endif()
    if(DEFINED leaves_${scenario} AND NOT (leaves_${scenario} EQUAL leaves AND fragments_${scenario} EQUAL fragments))
      message(FATAL_ERROR "${scenario}: octree builds disagree (leaves ${leaves_${scenario}} vs ${leaves}, "
                          "fragments ${fragments_${scenario}} vs ${fragments})")
    endif()
    set(leaves_${scenario} ${leaves})
    set(fragments_${scenario} ${fragments})
  endif()
endforeach()
# Each octree build labelled by its name (OctreeBuild::OccupancyLevels,
# RootDescent, TileHash), in the order --octree-build all runs them.
if(NOT vox_strategies STREQUAL "voxelizer-levels;voxelizer-root;voxelizer-hash")
  message(FATAL_ERROR "voxelizer strategies '${vox_strategies}', expected voxelizer-levels, -root, -hash")
endif()
message(STATUS "${count} records OK on ${device}")

# --source volume: the analytic fields sampled once on the CPU and uploaded;
# every strategy must agree on each scenario's triangles, and the field pass
# (the upload's conversion) must not count as extraction.
execute_process(
  COMMAND ${PYRAMARCH} bench --groups iso --sizes 7,16 --field cayley,gyroid --frames 1 --strategy all
          --source volume --validation --json ${OUT}.volume.json
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pyramarch bench --source volume failed (${rc}):\n${out}\n${err}")
endif()
file(READ ${OUT}.volume.json json)
string(JSON count LENGTH "${json}" results)
if(NOT count EQUAL 12)
  message(FATAL_ERROR "--source volume: expected 12 records, got ${count}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON scenario GET "${json}" results ${i} scenario)
  string(JSON strategy GET "${json}" results ${i} strategy)
  string(JSON source GET "${json}" results ${i} source)
  string(JSON tris GET "${json}" results ${i} triangles)
  string(JSON extraction GET "${json}" results ${i} extractionMs median)
  string(JSON rate GET "${json}" results ${i} mcellsPerSecond)
  string(JSON memory GET "${json}" results ${i} memoryBytes module)
  if(NOT source STREQUAL "volume" OR tris EQUAL 0 OR NOT extraction GREATER 0 OR NOT rate GREATER 0 OR memory EQUAL 0)
    message(FATAL_ERROR "--source volume record ${i} (${scenario} ${strategy}): source '${source}', triangles ${tris}, "
                        "extraction ${extraction} ms, ${rate} Mcells/s, memory ${memory}")
  endif()
  if(DEFINED vtris_${scenario} AND NOT vtris_${scenario} EQUAL tris)
    message(FATAL_ERROR "${scenario}: strategies disagree on the triangle count (${vtris_${scenario}} vs ${tris} for ${strategy})")
  endif()
  set(vtris_${scenario} ${tris})
endforeach()
message(STATUS "${count} --source volume records OK")
