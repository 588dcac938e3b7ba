# Runs `tessera conformance` over the generated benchmark models with the
# suite's tolerance; prints SKIPPED when they are absent.
if(NOT EXISTS "${MODELS}/resnet50/model.onnx")
  message("SKIPPED: no benchmark models in ${MODELS} (generate them with ../shared/bench/make_models.py)")
  return()
endif()
execute_process(COMMAND ${TESSERA} conformance ${MODELS} --scaled-atol 1e-4 --jobs 1 --timeout 600 --verbose
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tessera conformance failed")
endif()
