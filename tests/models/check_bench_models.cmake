# Runs `tessera conformance` over the generated benchmark models with the
# suite's tolerance, once per graph-optimization level (the optimizer must
# not change any model's results beyond it); prints SKIPPED when they are
# absent. The four runs take about a minute in all.
if(NOT EXISTS "${MODELS}/resnet50/model.onnx")
  message("SKIPPED: no benchmark models in ${MODELS} (generate them with ../shared/bench/make_models.py)")
  return()
endif()
set(failed "")
foreach(level disabled basic extended all)
  message("== level ${level}")
  execute_process(COMMAND ${TESSERA} conformance ${MODELS} --scaled-atol 1e-4 --jobs 1 --timeout 600 --verbose
                          --level ${level}
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    list(APPEND failed ${level})
  endif()
endforeach()
if(failed)
  message(FATAL_ERROR "tessera conformance failed on the benchmark models at level(s): ${failed}")
endif()
