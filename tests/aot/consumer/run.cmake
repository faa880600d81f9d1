# cmake -DSOURCE_DIR= -DBUILD_DIR= -DWORK_DIR= -P run.cmake
# Installs the built ProxGen into WORK_DIR/prefix, builds the outside project (which calls
# proxgen_add_solver for two targets) against it, runs its program, and checks that the program
# needs no libHalide / LLVM and that the arm64 library was emitted.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/aot/consumer -B ${WORK_DIR}/build -G Ninja
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${WORK_DIR}/build/tv_app)
step(readelf -d ${WORK_DIR}/build/tv_app)
if(step_output MATCHES "[Hh]alide|LLVM")
  message(FATAL_ERROR "tv_app needs libHalide or LLVM")
endif()
foreach(f tv.a tv.h)
  if(NOT EXISTS ${WORK_DIR}/build/tv.proxgen/arm-64-linux/${f})
    message(FATAL_ERROR "the arm-64-linux ${f} was not emitted")
  endif()
endforeach()
