# pyramarch_add_shaders(<target> <shader files...>)
#
# Compiles GLSL under shaders/ with glslc into SPIR-V include files
#   <build>/generated/shaders/<feature>/<name>.<stage>.spv.inc
# (a C initializer list of uint32 words) that <target> embeds. glslc writes a
# depfile, so editing an #included header rebuilds the shaders that use it.
# Shaders include shared headers relative to shaders/ ("isosurface/iso_shared.h").
# SPIR-V 1.5, not 1.6: 1.6 declares workgroup sizes with LocalSizeId, which
# needs maintenance4 on the host's device.
find_program(GLSLC_EXECUTABLE glslc REQUIRED)
set(PYRAMARCH_SHADER_ROOT ${CMAKE_CURRENT_LIST_DIR}/../shaders)
cmake_path(NORMAL_PATH PYRAMARCH_SHADER_ROOT)
set(PYRAMARCH_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)

# The SPIR-V include files of <target> go to a custom target <target>_spirv
# that <target> depends on, so every shader is compiled before any of the
# target's C++ files. As plain sources of <target>, make could compile a C++
# file it has no dependency information for yet (a new file) before the
# shaders it includes were regenerated, and embed the old SPIR-V.
function(_pyramarch_shader_outputs target)
  set_property(GLOBAL APPEND PROPERTY PYRAMARCH_SPIRV_${target} ${ARGN})
  get_property(deferred GLOBAL PROPERTY PYRAMARCH_SPIRV_DEFERRED_${target})
  if(NOT deferred)
    set_property(GLOBAL PROPERTY PYRAMARCH_SPIRV_DEFERRED_${target} TRUE)
    # A deferred call's arguments are evaluated when it runs: pass the name as text.
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _pyramarch_order_shaders [[${target}]])")
  endif()
  target_include_directories(${target} PRIVATE ${PYRAMARCH_GENERATED_DIR} ${PYRAMARCH_SHADER_ROOT})
endfunction()

function(_pyramarch_order_shaders target)
  get_property(outputs GLOBAL PROPERTY PYRAMARCH_SPIRV_${target})
  add_custom_target(${target}_spirv DEPENDS ${outputs})
  add_dependencies(${target} ${target}_spirv)
endfunction()

function(pyramarch_add_shaders target)
  set(outputs "")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE)
    file(RELATIVE_PATH rel ${PYRAMARCH_SHADER_ROOT} ${abs})
    set(out ${PYRAMARCH_GENERATED_DIR}/shaders/${rel}.spv.inc)
    get_filename_component(outdir ${out} DIRECTORY)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
      COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.3 --target-spv=spv1.5 -O -Werror
              -I ${PYRAMARCH_SHADER_ROOT} -MD -MF ${out}.d -mfmt=c -o ${out} ${abs}
      DEPENDS ${abs}
      DEPFILE ${out}.d
      COMMENT "glslc ${rel}"
      VERBATIM)
    list(APPEND outputs ${out})
  endforeach()
  _pyramarch_shader_outputs(${target} ${outputs})
endfunction()

# pyramarch_add_shader_variant(<target> <shader file> <variant> <DEFINE...>)
#
# The same GLSL compiled again with -D<DEFINE> for each define, into
#   <build>/generated/shaders/<feature>/<name>.<variant>.<stage>.spv.inc
# For code that needs SPIR-V capabilities a device may lack (subgroup
# arithmetic, ballot): a specialization constant cannot remove a capability
# from the module, so the host picks the variant the device supports.
function(pyramarch_add_shader_variant target src variant)
  get_filename_component(abs ${src} ABSOLUTE)
  file(RELATIVE_PATH rel ${PYRAMARCH_SHADER_ROOT} ${abs})
  get_filename_component(dir ${rel} DIRECTORY)
  get_filename_component(name ${rel} NAME_WE)
  get_filename_component(stage ${rel} LAST_EXT)
  string(SUBSTRING ${stage} 1 -1 stage)
  set(out ${PYRAMARCH_GENERATED_DIR}/shaders/${dir}/${name}.${variant}.${stage}.spv.inc)
  get_filename_component(outdir ${out} DIRECTORY)
  set(defines "")
  foreach(d IN LISTS ARGN)
    list(APPEND defines -D${d})
  endforeach()
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${outdir}
    COMMAND ${GLSLC_EXECUTABLE} --target-env=vulkan1.3 --target-spv=spv1.5 -O -Werror -fshader-stage=${stage}
            ${defines} -I ${PYRAMARCH_SHADER_ROOT} -MD -MF ${out}.d -mfmt=c -o ${out} ${abs}
    DEPENDS ${abs}
    DEPFILE ${out}.d
    COMMENT "glslc ${rel} (${variant})"
    VERBATIM)
  _pyramarch_shader_outputs(${target} ${out})
endfunction()
