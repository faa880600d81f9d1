# The on-disk kernel cache across processes (run by ctest):
#   1. an empty cache: the probe compiles every kernel and stores it
#   2. a second process: compiles nothing, loads every kernel, same result
#   3. every entry corrupted (truncated, or bytes overwritten): detected, rebuilt, same result
#   4. four processes writing an empty cache at once: all succeed with the same result, each
#      kernel is compiled by one of them (the others wait for it and load it), and a fifth process
#      then loads everything
# cmake -DPROBE=<cache_probe> -DDIR=<scratch dir> -P check_disk_cache.cmake
function(probe out)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env PROXGEN_CACHE_DIR=${DIR}/cache ${PROBE}
                  OUTPUT_VARIABLE text ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "cache_probe failed (${rc}): ${err}")
  endif()
  string(REGEX MATCH "compiled=([0-9]+) loaded=([0-9]+) result=([0-9a-f]+)" _ "${text}")
  set(${out}_compiled ${CMAKE_MATCH_1} PARENT_SCOPE)
  set(${out}_loaded ${CMAKE_MATCH_2} PARENT_SCOPE)
  set(${out}_result ${CMAKE_MATCH_3} PARENT_SCOPE)
  message(STATUS "probe ${out}: ${text}")
endfunction()
function(expect cond)
  if(NOT (${ARGV}))
    message(FATAL_ERROR "expected: ${ARGV}")
  endif()
endfunction()

file(REMOVE_RECURSE ${DIR})
probe(first)
if(NOT first_compiled GREATER 0 OR NOT first_loaded EQUAL 0)
  message(FATAL_ERROR "an empty cache must compile everything: ${first_compiled} compiled, ${first_loaded} loaded")
endif()

probe(second)
if(NOT second_compiled EQUAL 0 OR NOT second_loaded EQUAL first_compiled OR NOT second_result STREQUAL first_result)
  message(FATAL_ERROR "a warm cache must load every kernel and compile none: ${second_compiled} compiled, "
                      "${second_loaded} loaded (${first_compiled} expected), result ${second_result} vs ${first_result}")
endif()

# corrupt every kernel: half of them truncated, the others with bytes overwritten in the middle
execute_process(COMMAND ${PROBE} --corrupt ${DIR}/cache/kernels-v1 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "no kernel to corrupt in ${DIR}/cache/kernels-v1")
endif()
probe(corrupt)
if(NOT corrupt_compiled EQUAL first_compiled OR NOT corrupt_result STREQUAL first_result)
  message(FATAL_ERROR "corrupt entries must be rebuilt: ${corrupt_compiled} compiled (${first_compiled} expected), "
                      "result ${corrupt_result} vs ${first_result}")
endif()

# concurrent writers on an empty cache (execute_process runs its COMMANDs at the same time)
file(REMOVE_RECURSE ${DIR}/cache)
foreach(k 1 2 3 4)
  list(APPEND cmds COMMAND ${CMAKE_COMMAND} -E env PROXGEN_CACHE_DIR=${DIR}/cache ${PROBE} ${DIR}/writer${k}.txt)
endforeach()
execute_process(${cmds} ERROR_VARIABLE err RESULTS_VARIABLE rcs)
set(compiled_by_writers 0)
foreach(k 1 2 3 4)
  list(GET rcs 0 rc)
  list(REMOVE_AT rcs 0)
  file(READ ${DIR}/writer${k}.txt text)
  string(REGEX MATCH "compiled=([0-9]+) loaded=[0-9]+ result=([0-9a-f]+)" _ "${text}")
  if(NOT rc EQUAL 0 OR NOT CMAKE_MATCH_2 STREQUAL first_result)
    message(FATAL_ERROR "concurrent writer ${k} failed (${rc}) or computed '${CMAKE_MATCH_2}' instead of ${first_result}: ${err}")
  endif()
  message(STATUS "concurrent writer ${k}: ${text}")
  math(EXPR compiled_by_writers "${compiled_by_writers} + ${CMAKE_MATCH_1}")
endforeach()
if(NOT compiled_by_writers EQUAL first_compiled)
  message(FATAL_ERROR "concurrent writers compiled ${compiled_by_writers} kernels between them, not each of the "
                      "${first_compiled} once: a kernel another process is compiling must be waited for, not compiled again")
endif()
probe(after)
if(NOT after_compiled EQUAL 0 OR NOT after_result STREQUAL first_result)
  message(FATAL_ERROR "after concurrent writers the cache must be complete: ${after_compiled} compiled")
endif()
message(STATUS "disk cache: hit, miss, corrupt entries and concurrent writers behave")
