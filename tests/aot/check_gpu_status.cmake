# cmake -DPROGRAM=<proxgen_deploy_<gpu target>> -DJIT=<jit_reference> -DWORK_DIR= -P check_gpu_status.cmake
# A GPU build of the deployed program either solves (a GPU is present) or, without a device or
# driver, returns the solver's status code 3 with Halide's message (from init's ||K|| estimate or
# the first step, whichever runs a GPU pipeline first): it never aborts or crashes.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
execute_process(COMMAND ${JIT} 64 0.002 0 ${WORK_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "could not write the inputs")
endif()
execute_process(COMMAND ${PROGRAM} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy 0.002 5 ${WORK_DIR}/x.npy
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "exit ${rc}: ${out}${err}")
if(rc EQUAL 0)
  message(STATUS "a GPU is present: the program solved")
elseif(NOT (rc EQUAL 3 AND err MATCHES "halide_error: deblur: (step pipeline failed|estimating \\|\\|K\\|\\|: the Gram pipeline failed)"))
  message(FATAL_ERROR "expected success or status halide_error (exit 3), got exit ${rc}")
endif()
