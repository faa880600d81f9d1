# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -DHALIDE_INCLUDE_DIR=<folder of HalideBuffer.h> -P cli_generate.cmake
# `proxgen generate` writes a solver from the problem file (no C++ compilation of the problem); an
# outside CMake project (generate_consumer/) links it without ProxGen's library or libHalide and
# deblurs a 48x48 image: it converges and improves the PSNR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

set(target x86-64-linux-avx2)
run(${MAKE_DATA} ${WORK_DIR} 48)
run(${PROXGEN} apply "conv(k, x)" --input k=kernel.npy --at x=clean.png --noise 0.01 --out b.npy)
run(${PROXGEN} generate ${SOURCE_DIR}/examples/node_graph/deblur.txt --input k=kernel.npy --input b=b.npy
    --name deblur_cli --targets ${target} --out-dir solvers)
foreach(f deblur_cli.a deblur_cli.h deblur_cli_pipelines.h halide_runtime.a)
  if(NOT EXISTS ${WORK_DIR}/solvers/${target}/${f})
    message(FATAL_ERROR "proxgen generate did not write ${f}")
  endif()
endforeach()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/frontend/generate_consumer -B ${WORK_DIR}/build -G Ninja
    -DCMAKE_BUILD_TYPE=Release -DSOLVER_DIR=${WORK_DIR}/solvers/${target}
    -DPROXGEN_INCLUDE_DIR=${SOURCE_DIR}/include -DHALIDE_INCLUDE_DIR=${HALIDE_INCLUDE_DIR}
    -DNPY_HEADER_DIR=${SOURCE_DIR}/examples/deploy)
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(readelf -d ${WORK_DIR}/build/deblur_app)
if(run_output MATCHES "[Hh]alide|LLVM|proxgen")
  message(FATAL_ERROR "the program links a shared libHalide, LLVM or ProxGen")
endif()
run(${WORK_DIR}/build/deblur_app b.npy kernel.npy 0.002 x.npy)
run(${PROXGEN} compare clean.png b.npy x.npy)
string(REGEX MATCH "b.npy: PSNR ([0-9]+)" _ "${run_output}")
set(blurred ${CMAKE_MATCH_1})
string(REGEX MATCH "x.npy: PSNR ([0-9]+)" _ "${run_output}")
set(deblurred ${CMAKE_MATCH_1})
math(EXPR gain "${deblurred} - ${blurred}")
if(gain LESS 3)
  message(FATAL_ERROR "the generated solver gained less than 3 dB")
endif()
