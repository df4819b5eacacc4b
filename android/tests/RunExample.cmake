# ctest android-example: examples/android/SegmentFrame.java on a 160x120
# RGBA frame must give the mask kiln_session_set_image gives (make_fixtures.py
# wrote deeplab_mask.ref.bin with kiln-image-reference).
execute_process(
  COMMAND ${JVM} -Dkiln.jni.library=${LIBRARY} -cp ${CLASSPATH} SegmentFrame
          ${FIXTURES}/deeplab_mask.kiln ${FIXTURES}/street.rgba 160 120
          ${FIXTURES}/example.mask
  RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "SegmentFrame failed (${result})")
endif()
file(SHA256 ${FIXTURES}/example.mask got)
file(SHA256 ${FIXTURES}/deeplab_mask.ref.bin want)
if(NOT got STREQUAL want)
  message(FATAL_ERROR "SegmentFrame's mask differs from the C API's")
endif()
message(STATUS "SegmentFrame's mask equals the C API's")
