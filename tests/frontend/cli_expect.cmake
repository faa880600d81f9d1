# expect(<exit code> <regex the output must match> <arguments...>): runs ${PROXGEN} with the
# arguments in ${WORK_DIR}, prints the command and its output, and fails the script unless both the
# exit code and the output are as expected. Included by the command line's test scripts.
function(expect code pattern)
  execute_process(COMMAND ${PROXGEN} ${ARGN} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "$ proxgen ${ARGN}  -> ${rc}\n${out}${err}")
  if(NOT rc EQUAL code)
    message(FATAL_ERROR "expected exit code ${code}, got ${rc}: proxgen ${ARGN}")
  endif()
  if(NOT "${out}${err}" MATCHES "${pattern}")
    message(FATAL_ERROR "the output does not match '${pattern}': proxgen ${ARGN}")
  endif()
endfunction()
