# `tessera quantize` from the command line: a static QDQ model calibrated on
# an ONNX test-data folder (test_data_set_*/input_0.pb), a dynamic model, and
# the errors bad input gets.
set(dir "${WORK}/quantize_cli")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}/calibration")
file(COPY ${SOURCE}/models/default/test_data_set_0 DESTINATION ${dir}/calibration)
set(model ${SOURCE}/models/default/model.onnx)

function(expect_ok what)
  execute_process(COMMAND ${TESSERA} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed:\n${out}${err}")
  endif()
  message(STATUS "${what}:\n${out}")
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

function(expect_error what pattern)
  execute_process(COMMAND ${TESSERA} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0 OR NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "${what}: expected an error matching '${pattern}', got rc=${rc}:\n${out}${err}")
  endif()
  message(STATUS "${what}: ${err}")
endfunction()

expect_ok("static" quantize ${model} ${dir}/static.onnx --mode static --calibration ${dir}/calibration
          --per-channel --method percentile --percentile 99.99)
if(NOT last_output MATCHES "quantized [0-9]+ node\\(s\\):[^\n]*Conv [0-9]+" OR NOT last_output MATCHES "calibrated on 1 batch")
  message(FATAL_ERROR "the summary does not list the quantized Conv nodes and the calibration batch")
endif()
if(NOT last_output MATCHES "wrote [^\n]*MiB -> [^\n]*MiB")
  message(FATAL_ERROR "the summary does not give the file sizes")
endif()
expect_ok("static model runs" run ${dir}/static.onnx --input image=${dir}/calibration/test_data_set_0/input_0.pb)
expect_ok("entropy" quantize ${model} ${dir}/entropy.onnx --mode static --calibration ${dir}/calibration
          --method entropy --activation-type int8 --exclude-op-types MaxPool)
expect_ok("dynamic" quantize ${model} ${dir}/dynamic.onnx --mode dynamic)

expect_error("no calibration" "static quantization needs calibration inputs: --calibration DIR"
             quantize ${model} ${dir}/x.onnx --mode static)
expect_error("unknown op type" "op type 'Softmax' has no static quantization rule"
             quantize ${model} ${dir}/x.onnx --mode static --calibration ${dir}/calibration --op-types Conv,Softmax)
file(MAKE_DIRECTORY "${dir}/wrong/set")
file(COPY_FILE ${dir}/calibration/test_data_set_0/input_0.pb ${dir}/wrong/set/picture.pb)
expect_error("input name mismatch" "calibration file '[^']*picture.pb. names no model input"
             quantize ${model} ${dir}/x.onnx --mode static --calibration ${dir}/wrong)
expect_error("missing folder" "calibration folder '[^']*nowhere' does not exist"
             quantize ${model} ${dir}/x.onnx --mode static --calibration ${dir}/nowhere)
expect_error("bad type" "unknown quantization type 'int3'"
             quantize ${model} ${dir}/x.onnx --mode dynamic --weight-type int3)
expect_error("unsupported type" "QInt16 is not supported"
             quantize ${model} ${dir}/x.onnx --mode dynamic --weight-type int16)
