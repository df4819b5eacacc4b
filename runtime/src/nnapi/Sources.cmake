# The NNAPI target (included by runtime/CMakeLists.txt for Targets.def's
# nnapi line): the payload's verifier in every build.
target_sources(kiln_runtime_objects PRIVATE
  src/nnapi/NnapiTarget.cpp
  src/nnapi/NnapiPayloadVerifier.cpp)

# The NNAPI executor (src/nnapi, KILN_WITH_NNAPI): libneuralnetworks.so is
# dlopened at session creation, so only libdl is linked.
if(KILN_WITH_NNAPI)
  target_sources(kiln_runtime_objects PRIVATE
    src/nnapi/NnapiExecutor.cpp
    src/nnapi/NnapiHostSteps.cpp
    src/nnapi/NnapiLibrary.cpp)
  target_compile_definitions(kiln_runtime_objects PRIVATE KILN_WITH_NNAPI)
  list(APPEND kiln_runtime_libs ${CMAKE_DL_LIBS})
endif()
