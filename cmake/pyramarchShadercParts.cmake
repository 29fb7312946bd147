# The static archives that make up shaderc on Debian/Ubuntu, in link order
# (libshaderc_combined plus glslang's pieces). Used by the build and by the
# installed package's shader_compiler component, which finds them on the
# host's machine.
set(PYRAMARCH_SHADERC_PARTS shaderc_combined glslang MachineIndependent OSDependent GenericCodeGen
    OGLCompiler SPIRV SPIRV-Tools-opt SPIRV-Tools)
