# Splits kiln_embed_shaders' entries into parallel lists in the caller's
# scope: <prefix>_STEMS, <prefix>_SOURCES (absolute) and <prefix>_DEFINES
# (each entry's -D flags joined by "|", or "-" for none).
function(kiln_shader_entries prefix)
  set(stems)
  set(sources)
  set(all_defines)
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
    list(APPEND stems ${stem})
    list(APPEND sources ${abs})
    if(defines)
      string(REPLACE ";" "|" defines "${defines}")
    else()
      set(defines "-")
    endif()
    list(APPEND all_defines "${defines}")
  endwhile()
  set(${prefix}_STEMS ${stems} PARENT_SCOPE)
  set(${prefix}_SOURCES ${sources} PARENT_SCOPE)
  set(${prefix}_DEFINES ${all_defines} PARENT_SCOPE)
endfunction()

# The glslc command line of every kiln kernel: Vulkan 1.1 SPIR-V, optimized,
# warnings as errors. The compiler's catalog and the runtime's digests of it
# must come from the same flags.
set(KILN_GLSLC_FLAGS --target-env=vulkan1.1 -O -Werror)

# kiln_compile_shaders(OUT <var> DIR <dir> EXT <ext> [FLAGS <flag>...]
#                      ENTRIES <entry>...): one glslc command per entry
# (kiln_embed_shaders' entries), writing <dir>/<name><ext> with
# KILN_GLSLC_FLAGS and FLAGS; <var> lists the files.
function(kiln_compile_shaders)
  cmake_parse_arguments(A "" "OUT;DIR;EXT" "FLAGS;ENTRIES" ${ARGN})
  kiln_shader_entries(e ${A_ENTRIES})
  set(files)
  foreach(stem abs defines IN ZIP_LISTS e_STEMS e_SOURCES e_DEFINES)
    string(REPLACE "|" ";" defines "${defines}")
    list(REMOVE_ITEM defines "-")
    set(file ${A_DIR}/${stem}${A_EXT})
    add_custom_command(
      OUTPUT ${file}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${A_DIR}
      COMMAND ${KILN_GLSLC} ${KILN_GLSLC_FLAGS} ${A_FLAGS}
              ${defines} -MD -MF ${file}.d -o ${file} ${abs}
      DEPENDS ${abs} ${KILN_GLSLC}
      DEPFILE ${file}.d
      COMMENT "glslc ${stem} -> ${stem}${A_EXT}"
      VERBATIM)
    list(APPEND files ${file})
  endforeach()
  set(${A_OUT} ${files} PARENT_SCOPE)
endfunction()

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
  kiln_compile_shaders(OUT parts DIR ${gen_dir} EXT .inc FLAGS -mfmt=num
                       ENTRIES ${ARGN})
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

# kiln_shader_digests(<target> <namespace> <header> <entry>...): compiles the
# same entries as kiln_embed_shaders (binary SPIR-V, the same glslc flags)
# and writes a header with the SHA-256 of each module:
#   inline constexpr KernelDigest <array>[] = {{"<name>", {32 bytes}}, ...};
# The runtime carries these, not the modules, and loads a GPU file only
# where each of its modules is one of them (docs/security.md).
function(kiln_shader_digests target ns header)
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/shader-digests)
  kiln_compile_shaders(OUT modules DIR ${gen_dir} EXT .spv ENTRIES ${ARGN})
  set(out ${gen_dir}/${header})
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DNS=${ns} "-DMODULES=${modules}"
            -P ${PROJECT_SOURCE_DIR}/cmake/KilnShaderDigestHeader.cmake
    DEPENDS ${modules} ${PROJECT_SOURCE_DIR}/cmake/KilnShaderDigestHeader.cmake
    COMMENT "SHA-256 of the kernel catalog in ${header}"
    VERBATIM)
  add_custom_target(${target}_shader_digests DEPENDS ${out})
  add_dependencies(${target} ${target}_shader_digests)
  target_include_directories(${target} PRIVATE ${gen_dir})
endfunction()
