# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -DHALIDE_INCLUDE_DIR=<folder of HalideBuffer.h> -P cli_generate.cmake
# `proxgen generate` writes a solver from the problem file (no C++ compilation of the problem),
# by Pock–Chambolle, linearized ADMM, ADMM and HQS; an outside CMake project (generate_consumer/) links
# each without ProxGen's library or libHalide and deblurs a 48x48 image: it converges and improves
# the PSNR.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

set(target x86-64-linux-avx2)
run(${MAKE_DATA} ${WORK_DIR} 48)
run(${PROXGEN} apply "conv(k, x)" --input k=kernel.npy --at x=clean.png --noise 0.01 --out b.npy)
# the same program against the solver of each algorithm with a generated loop: one interface
foreach(algorithm pc ladmm admm hqs)
  set(out solvers_${algorithm})
  run(${PROXGEN} generate ${SOURCE_DIR}/examples/node_graph/deblur.txt --input k=kernel.npy --input b=b.npy
      --name deblur_cli --targets ${target} --out-dir ${out} --algorithm ${algorithm})
  foreach(f deblur_cli.a deblur_cli.h deblur_cli_pipelines.h halide_runtime.a)
    if(NOT EXISTS ${WORK_DIR}/${out}/${target}/${f})
      message(FATAL_ERROR "proxgen generate --algorithm ${algorithm} did not write ${f}")
    endif()
  endforeach()
  set(build ${WORK_DIR}/build_${algorithm})
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/frontend/generate_consumer -B ${build} -G Ninja
      -DCMAKE_BUILD_TYPE=Release -DSOLVER_DIR=${WORK_DIR}/${out}/${target}
      -DPROXGEN_INCLUDE_DIR=${SOURCE_DIR}/include -DHALIDE_INCLUDE_DIR=${HALIDE_INCLUDE_DIR}
      -DNPY_HEADER_DIR=${SOURCE_DIR}/examples/deploy)
  run(${CMAKE_COMMAND} --build ${build})
  run(readelf -d ${build}/deblur_app)
  if(run_output MATCHES "[Hh]alide|LLVM|proxgen")
    message(FATAL_ERROR "the program links a shared libHalide, LLVM or ProxGen")
  endif()
  run(${build}/deblur_app b.npy kernel.npy 0.002 x_${algorithm}.npy)
  run(${PROXGEN} compare clean.png b.npy x_${algorithm}.npy)
  string(REGEX MATCH "b.npy: PSNR ([0-9]+)" _ "${run_output}")
  set(blurred ${CMAKE_MATCH_1})
  string(REGEX MATCH "x_${algorithm}.npy: PSNR ([0-9]+)" _ "${run_output}")
  set(deblurred ${CMAKE_MATCH_1})
  math(EXPR gain "${deblurred} - ${blurred}")
  if(gain LESS 3)
    message(FATAL_ERROR "the generated ${algorithm} solver gained less than 3 dB")
  endif()
endforeach()
