# gpuav_coverage (label cpu): every shader stage file under SHADER_ROOT is
# named in COVERAGE by at least one entry declared in tests/gpuav/CMakeLists.txt
# (DECLARED lists them); every line names a shader that exists and entries
# that are declared. A shader added without a GPU-AV run fails here.
#   cmake -DSHADER_ROOT=... -DCOVERAGE=... -DDECLARED=... -P check_coverage.cmake
cmake_minimum_required(VERSION 3.25)
file(GLOB_RECURSE shaders RELATIVE ${SHADER_ROOT}
  ${SHADER_ROOT}/*.comp ${SHADER_ROOT}/*.vert ${SHADER_ROOT}/*.frag ${SHADER_ROOT}/*.geom
  ${SHADER_ROOT}/*.tesc ${SHADER_ROOT}/*.tese ${SHADER_ROOT}/*.mesh ${SHADER_ROOT}/*.task)
file(STRINGS ${DECLARED} declared)
file(STRINGS ${COVERAGE} lines)
set(errors "")
set(covered "")
foreach(line IN LISTS lines)
  string(STRIP "${line}" line)
  if(line STREQUAL "" OR line MATCHES "^#")
    continue()
  endif()
  string(REGEX REPLACE "[ \t]+" ";" words "${line}")
  list(POP_FRONT words shader)
  if(NOT EXISTS ${SHADER_ROOT}/${shader})
    string(APPEND errors "  coverage.txt names ${shader}, which is not under shaders/ (remove or fix the line)\n")
  endif()
  if(NOT words)
    string(APPEND errors "  coverage.txt: ${shader} names no gpuav entry\n")
  endif()
  foreach(entry IN LISTS words)
    if(NOT entry IN_LIST declared)
      string(APPEND errors "  coverage.txt: ${shader} names ${entry}, which tests/gpuav/CMakeLists.txt does not declare\n")
    endif()
  endforeach()
  list(APPEND covered ${shader})
endforeach()
foreach(shader IN LISTS shaders)
  if(NOT shader IN_LIST covered)
    string(APPEND errors "  shaders/${shader} has no GPU-assisted validation run: add a small-size case for it to "
                         "tests/gpuav/CMakeLists.txt (label gpuav) and name it in tests/gpuav/coverage.txt\n")
  endif()
endforeach()
if(errors)
  message(FATAL_ERROR "GPU-AV coverage (tests/README.md, \"Every new shader or pass joins the gpuav run\"):\n${errors}")
endif()
list(LENGTH shaders n)
message(STATUS "GPU-AV coverage: all ${n} shaders are named in tests/gpuav/coverage.txt")
