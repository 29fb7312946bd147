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
  target_sources(${target} PRIVATE ${outputs})
  target_include_directories(${target} PRIVATE ${PYRAMARCH_GENERATED_DIR} ${PYRAMARCH_SHADER_ROOT})
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
  target_sources(${target} PRIVATE ${out})
  target_include_directories(${target} PRIVATE ${PYRAMARCH_GENERATED_DIR} ${PYRAMARCH_SHADER_ROOT})
endfunction()
