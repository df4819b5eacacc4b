# KILN_SANITIZE=ON builds everything with AddressSanitizer and
# UndefinedBehaviorSanitizer (the `asan` preset). UBSan findings abort, so a
# test that trips one fails.
option(KILN_SANITIZE "Build with ASan + UBSan" OFF)
if(KILN_SANITIZE)
  add_compile_options(-fsanitize=address,undefined -fno-sanitize-recover=all
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
