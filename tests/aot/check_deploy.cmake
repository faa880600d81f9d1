# cmake -DDEPLOY=<proxgen_deploy> -DJIT=<jit_reference> -DCOMPARE=<compare> -DWORK_DIR=<dir>
#       [-DWIDTH=256] [-DITERATIONS=200] [-DLAMBDA=0.002] -P check_deploy.cmake
# 1. the deployed program needs neither libHalide nor LLVM (readelf -d NEEDED entries, and ldd's
#    full resolution, which also sees indirect dependencies);
# 2. its solution matches the JIT pg::solve engine's (same plan, steps and iterations) within 1e-5.
foreach(default WIDTH=256 ITERATIONS=200 LAMBDA=0.002)
  string(REPLACE "=" ";" kv ${default})
  list(GET kv 0 var)
  list(GET kv 1 value)
  if(NOT DEFINED ${var})
    set(${var} ${value})
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step(readelf -d ${DEPLOY})
string(REGEX MATCHALL "\\(NEEDED\\)[^\n]*" needed "${step_output}")
message(STATUS "NEEDED: ${needed}")
if(NOT needed)
  message(FATAL_ERROR "readelf found no NEEDED entries: is ${DEPLOY} a dynamic executable?")
endif()
if(needed MATCHES "[Hh]alide|LLVM")
  message(FATAL_ERROR "${DEPLOY} needs libHalide or LLVM: ${needed}")
endif()
step(ldd ${DEPLOY})
if(step_output MATCHES "[Hh]alide|LLVM")
  message(FATAL_ERROR "${DEPLOY} loads libHalide or LLVM (ldd)")
endif()

step(${JIT} ${WIDTH} ${LAMBDA} ${ITERATIONS} ${WORK_DIR})
step(${DEPLOY} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_aot.npy)
step(${COMPARE} ${WORK_DIR}/x_aot.npy ${WORK_DIR}/x_jit.npy 1e-5)
