# kiln_embed_shaders(<target> <namespace> <header> <source>...): compiles each
# GLSL compute shader with glslc (Vulkan 1.1 SPIR-V, -O) at build time and
# embeds the words in a generated header, one
#   inline constexpr uint32_t <name>[] = {...};
# per shader (name: the file's stem), so the compiler can store the modules a
# model uses in its .kiln file and needs no GLSL toolchain at convert time.
function(kiln_embed_shaders target ns header)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/shaders)
  set(parts)
  foreach(src ${ARGN})
    get_filename_component(abs ${src} ABSOLUTE)
    get_filename_component(stem ${src} NAME_WE)
    set(part ${gen_dir}/${stem}.inc)
    add_custom_command(
      OUTPUT ${part}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen_dir}
      COMMAND ${KILN_GLSLC} --target-env=vulkan1.1 -O -Werror -mfmt=num
              -MD -MF ${part}.d -o ${part} ${abs}
      DEPENDS ${abs}
      DEPFILE ${part}.d
      COMMENT "glslc ${stem}.comp -> SPIR-V"
      VERBATIM)
    list(APPEND parts ${part})
  endforeach()
  set(out ${gen_dir}/${header})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} "-DPARTS=${parts}"
            -P ${PROJECT_SOURCE_DIR}/cmake/KilnShaderHeader.cmake
    DEPENDS ${parts} ${PROJECT_SOURCE_DIR}/cmake/KilnShaderHeader.cmake
    COMMENT "Embedding SPIR-V in ${header}"
    VERBATIM)
  add_custom_target(${target}_spirv DEPENDS ${out})
  add_dependencies(${target} ${target}_spirv)
  target_include_directories(${target} PRIVATE ${gen_dir})
endfunction()
