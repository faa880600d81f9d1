# cmake -DSOURCE_DIR= -DBUILD_DIR= -DWORK_DIR= -DDEPLOY= -DJIT= -DCOMPARE= -DCTEST= -DHALIDE_INCLUDE_DIR=
#       -DDEPLOY_LADMM= -DDEPLOY_ADMM= -DDEPLOY_HQS= -DDEPLOY_CV=
#       -P check_arm64.cmake
# Cross-builds the deployment example for arm64 (g++-aarch64-linux-gnu) against the arm-64-linux
# solvers (Pock–Chambolle, linearized ADMM, ADMM, HQS and Condat–Vũ) and runtime of the host build, runs them under
# qemu-aarch64 through ctest (CMAKE_CROSSCOMPILING_EMULATOR), and checks that each gives the host's
# deployed result bit for bit. Linearized ADMM is generated with strict_float on both targets:
# without it Halide lets LLVM fuse multiply-adds where the target has them (arm64 does, the pinned
# x86-64 AVX2 target does not), which moved its x by 6e-8 relative; Pock–Chambolle's pipelines
# came out bit for bit without it. ADMM's and HQS's CG vector work is pipelines too (strict_float);
# their programs are compiled with -ffp-contract=off on both, so that g++ does not fuse the host's
# float arithmetic (step sizes, the preconditioner's gain table) on arm64 alone.
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
step(${DEPLOY_LADMM} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_ladmm_host.npy)
step(${DEPLOY_ADMM} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_admm_host.npy)
step(${DEPLOY_HQS} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_hqs_host.npy)
step(${DEPLOY_CV} ${WORK_DIR}/b.npy ${WORK_DIR}/kernel.npy ${LAMBDA} ${ITERATIONS} ${WORK_DIR}/x_cv_host.npy)
step(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/aot/cross -B ${WORK_DIR}/build -G Ninja -DCMAKE_BUILD_TYPE=Release
     -DCMAKE_TOOLCHAIN_FILE=${SOURCE_DIR}/cmake/toolchains/aarch64-linux-gnu.cmake
     -DSOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur.proxgen/arm-64-linux
     -DLADMM_SOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur_ladmm.proxgen/arm-64-linux-strict_float
     -DADMM_SOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur_admm.proxgen/arm-64-linux-strict_float
     -DHQS_SOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur_hqs.proxgen/arm-64-linux-strict_float
     -DCV_SOLVER_DIR=${BUILD_DIR}/examples/deploy/deblur_cv.proxgen/arm-64-linux-strict_float
     -DRUNTIME=${BUILD_DIR}/proxgen_runtime/arm-64-linux/halide_runtime.a
     -DFFT_DIR=${BUILD_DIR}/proxgen_fft/arm-64-linux-strict_float
     -DPROXGEN_SOURCE_DIR=${SOURCE_DIR} -DHALIDE_INCLUDE_DIR=${HALIDE_INCLUDE_DIR}
     -DINPUT_DIR=${WORK_DIR} -DLAMBDA=${LAMBDA} -DITERATIONS=${ITERATIONS})
step(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
foreach(program proxgen_deploy proxgen_deploy_ladmm proxgen_deploy_admm proxgen_deploy_hqs proxgen_deploy_cv)
  execute_process(COMMAND readelf -h ${WORK_DIR}/build/${program} OUTPUT_VARIABLE elf)
  if(NOT elf MATCHES "Machine:[ \t]+AArch64")
    message(FATAL_ERROR "the cross-built ${program} is not an AArch64 executable:\n${elf}")
  endif()
endforeach()
step(${CTEST} --test-dir ${WORK_DIR}/build --output-on-failure -V)
step(${COMPARE} ${WORK_DIR}/x_arm64.npy ${WORK_DIR}/x_host.npy 0)
step(${COMPARE} ${WORK_DIR}/x_ladmm_arm64.npy ${WORK_DIR}/x_ladmm_host.npy 0)
step(${COMPARE} ${WORK_DIR}/x_admm_arm64.npy ${WORK_DIR}/x_admm_host.npy 0)
step(${COMPARE} ${WORK_DIR}/x_hqs_arm64.npy ${WORK_DIR}/x_hqs_host.npy 0)
step(${COMPARE} ${WORK_DIR}/x_cv_arm64.npy ${WORK_DIR}/x_cv_host.npy 0)
