# cmake -DSOURCE_DIR= -DBUILD_DIR= -DWORK_DIR= -DDEPLOY= -DJIT= -DCOMPARE= -DCTEST= -DHALIDE_INCLUDE_DIR=
#       -P check_arm64.cmake
# Cross-builds the deployment example for arm64 (g++-aarch64-linux-gnu) against the arm-64-linux
# solver and runtime of the host build, runs it under qemu-aarch64 through ctest
# (CMAKE_CROSSCOMPILING_EMULATOR), and checks that it matches the host's deployed result within 1e-5.
set(WIDTH 128)
set(ITERATIONS 100)
set(LAMBDA 0.002)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
function(step)
  execute_process(COMMAND ${ARGV} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGV}")
  endif()
endfunction()
step(${JIT} ${WIDTH} ${LAMBDA} 0 ${WORK_DIR})  # writes b.npy, kernel.npy only
step(${DEPLOY} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_host.npy)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/aot/cross -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
     -DSOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur.proxgen/arm-64-linux
     -DRUNTIME=${BUILD_DIR}/proxgen_runtime/arm-64-linux/halide_runtime.a
     -DPROXGEN_SOURCE_DIR=${SOURCE_DIR} -DHALIDE_INCLUDE_DIR=${HALIDE_INCLUDE_DIR}
     -DINPUT_DIR=${WORK_DIR} -DLAMBDA=${LAMBDA} -DITERATIONS=${ITERATIONS})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
execute_process(COMMAND readelf -h ${WORK_DIR}/build/proxgen_deploy OUTPUT_VARIABLE elf)
if(NOT elf MATCHES "Machine:[ \t]+AArch64")
  message(FATAL_ERROR "the cross-built program is not an AArch64 executable:\n${elf}")
endif()
step(${CTEST} --test-dir ${WORK_DIR}/build --output-on-failure -V)
step(${COMPARE} ${WORK_DIR}/x_arm64.npy ${WORK_DIR}/x_host.npy 1e-5)
