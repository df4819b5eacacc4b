# KILN_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer (the `asan` preset). UBSan findings abort, so a
# test that trips one fails. KILN_TSAN=ON builds everything with
# ThreadSanitizer instead (the `tsan` preset): the two cannot be combined.
option(KILN_SANITIZE "Build with ASan + UBSan" OFF)
option(KILN_TSAN "Build with ThreadSanitizer" OFF)
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
