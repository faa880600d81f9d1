# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -DHALIDE_INCLUDE_DIR=<folder of HalideBuffer.h> -P cli_generate.cmake
# `proxgen generate` writes a solver from the problem file (no C++ compilation of the problem),
# by Pock–Chambolle, linearized ADMM, ADMM, HQS and Condat–Vũ; an outside CMake project (generate_consumer/) links
# each without ProxGen's library or libHalide and deblurs a 48x48 image: it converges and improves
# the PSNR. Then TV deconvolution with nonnegativity (examples/node_graph/deblur.txt) and masked
# super-resolution (superres.txt), each generated solver and `proxgen solve` by the same algorithm
# run 5000 iterations: their objectives (`proxgen objective`) agree within 1e-5 relative.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

set(target x86-64-linux-avx2)
run(${MAKE_DATA} ${WORK_DIR} 48)
run(${PROXGEN} apply "conv(k, x)" --input k=kernel.npy --at x=clean.png --noise 0.01 --out b.npy)
run(${PROXGEN} apply "mul_elemwise(m, subsample(conv(k, x), 2, 2))" --input k=kernel.npy --input m=mask.npy
    --at x=clean.png --noise 0.01 --out bs.npy)
set(deblur_problem ${SOURCE_DIR}/examples/node_graph/deblur.txt)
set(deblur_inputs --input k=kernel.npy --input b=b.npy)
set(superres_problem ${SOURCE_DIR}/tests/frontend/superres.txt)
set(superres_inputs --input m=mask.npy --input k=kernel.npy --input b=bs.npy)
# exactly this many iterations (tolerances 0) by both: near the optimum at 48², whatever the stop rule
set(tight_iters 5000)
set(tight_eps 0)
find_program(PYTHON3 python3 REQUIRED)
# same_objective(<problem> <x of the generated solver> <x of proxgen solve>): within 1e-5 relative
function(same_objective problem generated jit)
  foreach(x generated jit)
    run(${PROXGEN} objective ${${problem}_problem} ${${problem}_inputs} --at ${${x}})
    string(REGEX MATCH "objective ([-+0-9.eEinf]+)" _ "${run_output}")
    set(f_${x} ${CMAKE_MATCH_1})
  endforeach()
  execute_process(COMMAND ${PYTHON3} -c
    "import sys; g, j = float(sys.argv[1]), float(sys.argv[2]); d = abs(g - j) / abs(j); print(f'relative {d:.2e}'); sys.exit(0 if d <= 1e-5 else 1)"
    ${f_generated} ${f_jit} RESULT_VARIABLE rc OUTPUT_VARIABLE out)
  message(STATUS "${problem}: generated ${generated} objective ${f_generated}, proxgen solve ${f_jit}: ${out}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${problem}: the generated solver's objective ${f_generated} is not within 1e-5 of the JIT's ${f_jit}")
  endif()
endfunction()
# the same program against the solver of each algorithm with a generated loop: one interface
foreach(algorithm pc ladmm admm hqs cv)
  set(out solvers_${algorithm})
  run(${PROXGEN} generate ${SOURCE_DIR}/examples/node_graph/deblur.txt --input k=kernel.npy --input b=b.npy
      --name deblur_cli --targets ${target} --out-dir ${out} --algorithm ${algorithm})
  run(${PROXGEN} generate ${superres_problem} ${superres_inputs} --name superres_cli --targets ${target} --out-dir ${out}
      --algorithm ${algorithm})
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
  # both problems near the optimum, by the generated solver and by the JIT (same algorithm)
  run(${build}/deblur_app b.npy kernel.npy 0.002 xt_deblur_${algorithm}.npy ${tight_iters} ${tight_eps})
  run(${build}/superres_app mask.npy kernel.npy bs.npy 0.01 xt_superres_${algorithm}.npy ${tight_iters} ${tight_eps})
  foreach(problem deblur superres)
    run(${PROXGEN} solve ${${problem}_problem} ${${problem}_inputs} --algorithm ${algorithm} -n ${tight_iters}
        --eps ${tight_eps} --no-objective --out x=xj_${problem}_${algorithm}.npy)
    same_objective(${problem} xt_${problem}_${algorithm}.npy xj_${problem}_${algorithm}.npy)
  endforeach()
endforeach()
