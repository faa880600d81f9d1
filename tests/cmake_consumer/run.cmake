# cmake -DSOURCE_DIR= -DBUILD_DIR= -DWORK_DIR= -P run.cmake
# Installs the built ProxGen into WORK_DIR/prefix, configures and builds the outside project
# against it with find_package(ProxGen), and runs the API example.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
step(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/cmake_consumer -B ${WORK_DIR}/build -G Ninja
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix)
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
step(${BUILD_DIR}/tests/make_consumer_inputs ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy)
step(${WORK_DIR}/build/api_example ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy)
