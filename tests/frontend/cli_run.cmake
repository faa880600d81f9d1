# run(<command...>): runs a step of a command-line test script in WORK_DIR, shows its output, stops
# the script when it fails; the step's stdout is left in run_output.
function(run)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  message(STATUS "$ ${ARGV}\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (exit ${rc}): ${ARGV}")
  endif()
  set(run_output "${out}" PARENT_SCOPE)
endfunction()
