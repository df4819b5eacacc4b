# Warnings are on for kiln's own targets and the build has none. Third-party
# headers are included as SYSTEM so their warnings don't count.
add_library(kiln_warnings INTERFACE)
target_compile_options(kiln_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wnon-virtual-dtor
  -Wimplicit-fallthrough -Wno-unused-parameter)
# Shadowed locals: GCC spells it -Wshadow=local; clang (the fuzzing build)
# has no such option and its -Wshadow also flags members and globals.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(kiln_warnings INTERFACE -Wshadow=local)
else()
  target_compile_options(kiln_warnings INTERFACE -Wshadow-uncaptured-local)
endif()
# GCC 12 at -O2 reports -Wmaybe-uninitialized inside LLVM's formatv templates
# (FormatProviders.h) once they are inlined into our code: false positives in
# a header we do not own, so that one check is off for GCC.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(kiln_warnings INTERFACE -Wno-maybe-uninitialized)
endif()
option(KILN_WERROR "Treat warnings as errors" OFF)
if(KILN_WERROR)
  target_compile_options(kiln_warnings INTERFACE -Werror)
endif()

# kiln_add_library(NAME SOURCES... [DEPS deps...]): a static library of kiln's
# own code, with the repo root on the include path ("IR/Graph.h").
function(kiln_add_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/lib
                                            ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE kiln_warnings)
endfunction()
