# `tessera optimize` end to end: optimizes the bundled default model at
# LEVEL, then runs the written model (unoptimized, as saved) against the
# default model's reference outputs.
set(dir "${WORK}/optimized_default_${LEVEL}")
file(REMOVE_RECURSE "${dir}")
file(MAKE_DIRECTORY "${dir}")
execute_process(COMMAND ${TESSERA} optimize ${SOURCE}/models/default/model.onnx ${dir}/model.onnx --level ${LEVEL} --stats
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessera optimize failed")
endif()
file(COPY ${SOURCE}/models/default/test_data_set_0 DESTINATION ${dir})
execute_process(COMMAND ${TESSERA} conformance ${dir} --level disabled --rtol 1e-4 --atol 1e-6 --verbose
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the optimized model does not reproduce the reference outputs")
endif()
