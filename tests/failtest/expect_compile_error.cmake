# cmake -DBUILD_DIR=... -DTARGET=... -DEXPECT=<regex> -P expect_compile_error.cmake
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${TARGET}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "${TARGET} compiled, but it must be rejected at compile time with: ${EXPECT}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT}")
  message(FATAL_ERROR "${TARGET} failed to compile, but not with the expected message '${EXPECT}':\n${out}${err}")
endif()
message(STATUS "${TARGET}: rejected with the expected message")
