# KILN_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer (the `asan` preset). UBSan findings abort, so a
# test that trips one fails. KILN_TSAN=ON builds everything with
# ThreadSanitizer instead (the `tsan` preset): the two cannot be combined.
# KILN_FUZZ=ON (the `fuzz` preset, clang only) builds everything with
# libFuzzer's coverage instrumentation, ASan and UBSan, and adds the
# libFuzzer binaries (test/fuzz).
option(KILN_SANITIZE "Build with ASan + UBSan" OFF)
option(KILN_TSAN "Build with ThreadSanitizer" OFF)
option(KILN_FUZZ "Build the libFuzzer targets, everything instrumented (clang)" OFF)
if(KILN_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_FUZZ needs clang (the fuzz preset sets clang++-14)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined
                      -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(KILN_SANITIZE AND KILN_TSAN)
  message(FATAL_ERROR "KILN_SANITIZE and KILN_TSAN cannot be combined")
endif()
if(KILN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
if(KILN_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
