# cmake -DSOURCE_DIR= -DBUILD_DIR= -DWORK_DIR= -P run.cmake
# Installs the built ProxGen into WORK_DIR/prefix, builds the outside project (which calls
# proxgen_add_solver for two targets) against it, runs its program, and checks that the program
# needs no libHalide / LLVM and that the arm64 library was emitted, and that the installed kernel
# pack serves the installed `proxgen`. Then its TV deconvolution and
# masked super-resolution solvers, by every algorithm, 5000 iterations each: each result's objective
# within 1e-5 of that of the installed `proxgen solve` by the same algorithm on the problem's text
# file (examples/node_graph/deblur.txt, tests/frontend/superres.txt) with the same data.
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

set(iterations 5000)
step(${WORK_DIR}/build/inverse_app ${WORK_DIR} ${iterations})
set(proxgen ${WORK_DIR}/prefix/bin/proxgen)
set(deconv_file ${SOURCE_DIR}/examples/node_graph/deblur.txt)
set(deconv_inputs --input k=k.npy --input b=b.npy)

# The kernel pack is installed, and the installed `proxgen` reads it (beside itself, before the
# build tree's): a per-card solve on an empty kernel cache compiles nothing.
if(NOT IS_DIRECTORY ${WORK_DIR}/prefix/share/proxgen/kernel_pack/kernels-v1)
  message(FATAL_ERROR "the kernel pack was not installed into share/proxgen/kernel_pack")
endif()
file(MAKE_DIRECTORY ${WORK_DIR}/empty_cache)
execute_process(COMMAND ${CMAKE_COMMAND} -E env --unset=PROXGEN_KERNEL_PACK PROXGEN_CACHE_DIR=${WORK_DIR}/empty_cache
                ${proxgen} solve ${deconv_file} ${deconv_inputs} --tier per-card -n 5 --eps 0 --out x=x_pack.npy
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message(STATUS "${out}")
if(NOT rc EQUAL 0 OR NOT out MATCHES "JIT compilation 0.00 s")
  message(FATAL_ERROR "the installed proxgen did not solve in the per-card tier without compiling (empty cache)")
endif()
set(superres_file ${SOURCE_DIR}/tests/frontend/superres.txt)
set(superres_inputs --input m=m.npy --input k=k.npy --input b=bs.npy)
find_program(PYTHON3 python3 REQUIRED)
foreach(problem deconv superres)
  foreach(algorithm pc ladmm admm hqs cv)
    step(${proxgen} solve ${${problem}_file} ${${problem}_inputs} --algorithm ${algorithm} -n ${iterations} --eps 0
         --no-objective --out x=xj_${problem}_${algorithm}.npy)
    foreach(x x_${problem}_${algorithm} xj_${problem}_${algorithm})
      step(${proxgen} objective ${${problem}_file} ${${problem}_inputs} --at ${x}.npy)
      string(REGEX MATCH "objective ([-+0-9.eEinf]+)" _ "${step_output}")
      set(f_${x} ${CMAKE_MATCH_1})
    endforeach()
    set(f ${f_x_${problem}_${algorithm}})
    set(f_jit ${f_xj_${problem}_${algorithm}})
    execute_process(COMMAND ${PYTHON3} -c
      "import sys; g, j = float(sys.argv[1]), float(sys.argv[2]); d = abs(g - j) / abs(j); print(f'{d:.2e}'); sys.exit(0 if d <= 1e-5 else 1)"
      ${f} ${f_jit} RESULT_VARIABLE rc OUTPUT_VARIABLE relative OUTPUT_STRIP_TRAILING_WHITESPACE)
    message(STATUS "${problem} by ${algorithm}: generated objective ${f}, proxgen solve ${f_jit}, relative ${relative}")
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${problem} by ${algorithm}: the generated solver's objective ${f} is not within 1e-5 of the JIT's ${f_jit}")
    endif()
  endforeach()
endforeach()
