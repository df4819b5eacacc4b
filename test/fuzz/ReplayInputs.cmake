# ctest's fuzz-regressions-inputs (and CI's ASan replay, through
# scripts/replay-fuzz-inputs.sh): each input parser's regressions and seed
# corpus through kiln-input-replay. Fails on a crash or on a folder that is
# missing or empty.
#   cmake -DREPLAY=kiln-input-replay -DSOURCE=REPO -P ReplayInputs.cmake
set(onnx_dirs test/fuzz/regressions-onnx test/onnx-malformed test/onnx-models)
set(npy_dirs test/fuzz/regressions-npy test/npy-malformed)
set(image_dirs test/fuzz/regressions-image test/quant-images)
set(torchscript-zip_dirs test/fuzz/regressions-torchscript-zip test/torchscript-malformed)
foreach(kind onnx npy image torchscript-zip)
  set(paths)
  foreach(dir ${${kind}_dirs})
    if(NOT IS_DIRECTORY ${SOURCE}/${dir})
      message(FATAL_ERROR "${kind}: ${SOURCE}/${dir} is missing")
    endif()
    list(APPEND paths ${SOURCE}/${dir})
  endforeach()
  execute_process(COMMAND ${REPLAY} ${kind} ${paths}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  string(STRIP "${out}" out)
  message("${kind}: ${out}")
  if(NOT rc EQUAL 0 OR NOT out MATCHES " 0 crashes$")
    message(FATAL_ERROR "${kind}: kiln-input-replay exited with ${rc}\n${err}")
  endif()
endforeach()
message("input replay: 4 kinds, 0 crashes")
