# kiln_embed_shaders(<target> <namespace> <header> <entry>...): compiles each
# GLSL compute shader with glslc (Vulkan 1.1 SPIR-V, -O) at build time and
# embeds the words in a generated header, one
#   inline constexpr uint32_t <name>[] = {...};
# per shader, so the compiler can store the modules a model uses in its .kiln
# file and needs no GLSL toolchain at convert time. An entry is either a
# source (name: the file's stem) or a variant of one compiled with defines:
#   VARIANT <name> <source> <DEFINE>[,<DEFINE>...]
# (e.g. VARIANT conv2d_c4_f16 kernels/conv2d_c4.comp KILN_FP16).
function(kiln_embed_shaders target ns header)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/shaders)
  set(parts)
  set(args ${ARGN})
  list(LENGTH args count)
  set(i 0)
  while(i LESS count)
    list(GET args ${i} src)
    set(defines)
    if(src STREQUAL "VARIANT")
      math(EXPR i_name "${i} + 1")
      math(EXPR i_src "${i} + 2")
      math(EXPR i_defs "${i} + 3")
      math(EXPR i "${i} + 4")
      list(GET args ${i_name} stem)
      list(GET args ${i_src} src)
      list(GET args ${i_defs} defs)
      string(REPLACE "," ";" defs "${defs}")
      foreach(d ${defs})
        list(APPEND defines -D${d})
      endforeach()
    else()
      get_filename_component(stem ${src} NAME_WE)
      math(EXPR i "${i} + 1")
    endif()
    get_filename_component(abs ${src} ABSOLUTE)
    set(part ${gen_dir}/${stem}.inc)
    add_custom_command(
      OUTPUT ${part}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${gen_dir}
      COMMAND ${KILN_GLSLC} --target-env=vulkan1.1 -O -Werror -mfmt=num
              ${defines} -MD -MF ${part}.d -o ${part} ${abs}
      DEPENDS ${abs}
      DEPFILE ${part}.d
      COMMENT "glslc ${stem} -> SPIR-V"
      VERBATIM)
    list(APPEND parts ${part})
  endwhile()
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
