# cmake -DDIR=classes -DOUTPUT=out.jar -P JavaZip.cmake: zips every file
# under DIR, in sorted order, dated 1980-01-01, so that the same class files
# give the same bytes (the jar tool dates entries now and walks the folder
# in the file system's order).
file(GLOB_RECURSE kiln_zip_files LIST_DIRECTORIES false RELATIVE "${DIR}" "${DIR}/*")
list(SORT kiln_zip_files)
if(NOT kiln_zip_files)
  message(FATAL_ERROR "JavaZip: nothing in ${DIR}")
endif()
file(REMOVE "${OUTPUT}")
execute_process(
  COMMAND ${CMAKE_COMMAND} -E tar cf "${OUTPUT}" --format=zip --mtime=1980-01-01
          -- ${kiln_zip_files}
  WORKING_DIRECTORY "${DIR}"
  RESULT_VARIABLE kiln_zip_result)
if(NOT kiln_zip_result EQUAL 0)
  message(FATAL_ERROR "JavaZip: zipping ${DIR} failed")
endif()
