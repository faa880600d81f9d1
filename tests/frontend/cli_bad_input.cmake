# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -P cli_bad_input.cmake
# A new user's bad input through the command line (docs/reliability.md lists the classes): each
# case gets its sentence and the exit code docs/cli.md gives it, never a crash. Most are refused
# before anything is compiled; the four solves use one-term problems of 16x16 or 32x32.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

execute_process(COMMAND ${MAKE_DATA} ${WORK_DIR} 32 --bad RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_test_data failed")
endif()
set(problem ${SOURCE_DIR}/examples/node_graph/deblur.txt)
set(data --input k=kernel.npy --input b=clean.png)
file(WRITE ${WORK_DIR}/huge_weight.txt "x = variable(16, 16)\nsum_squares(x) + 1e308 * norm1(x)\n")
file(WRITE ${WORK_DIR}/huge_weight.json
     "{\"format\": \"proxgen-graph\", \"version\": 1, \"nodes\": [\n"
     " {\"id\": \"x\", \"op\": \"variable\", \"shape\": [16, 16]},\n"
     " {\"id\": \"l1\", \"op\": \"norm1\", \"inputs\": {\"e\": \"x\"}, \"weight\": 1e308},\n"
     " {\"id\": \"fit\", \"op\": \"sum_squares\", \"inputs\": {\"e\": \"x\"}}], \"objective\": [\"fit\", \"l1\"]}\n")
file(WRITE ${WORK_DIR}/huge_variable.txt "x = variable(100000, 100000)\nsum_squares(x)\n")
file(WRITE ${WORK_DIR}/unbounded.txt "x = variable(16, 16)\nsum_entries(x)\n")
file(WRITE ${WORK_DIR}/denoise.txt "sum_squares(x - b)\n")

# data: the input's name and file, the position as (x, y), the value as given (the file's +inf, not
# the -inf the rewrite rules would make of it); bad input, exit 1
expect(1 "proxgen: error: input 'b' \\(file nonfinite.npy\\) holds a non-finite value, inf, at \\(x, y\\) = \\(4, 12\\)"
       solve ${problem} --input k=kernel.npy --input b=nonfinite.npy --out x.npy)
# a float64 value float32 cannot hold is refused where it is read, not loaded as inf
expect(1 "'huge64.npy': the float64 value 1e\\+308 at \\(x, y\\) = \\(4, 12\\) is more than float32 .* can hold"
       solve ${problem} --input k=kernel.npy --input b=huge64.npy --out x.npy)
# weights float32 cannot hold: what was given and where (a --param, a text term, a JSON node)
expect(1 "deblur.txt:5:[0-9]+: scalar \\* penalty: parameter 'lambda': a penalty's weight must be finite and non-negative, got 1e\\+39, which float32"
       solve ${problem} ${data} --param lambda=1e39 --out x.npy)
expect(1 "huge_weight.txt:2:[0-9]+: scalar \\* penalty: a penalty's weight must be finite and non-negative, got 1e\\+308"
       solve huge_weight.txt --out x.npy)
expect(1 "node \"l1\": field \"weight\": scalar \\* penalty: a penalty's weight must be finite and non-negative, got 1e\\+308"
       solve huge_weight.json --out x.npy)
# options: the ranges and sentences of pg::Options, with the flag that gave them
expect(1 "--iters: max_iters must be an integer from 0 to 2147483647, got 1e\\+12" solve ${problem} ${data}
       --iters 1e12 --out x.npy)
expect(1 "--eps: eps_abs must be a finite number >= 0, got -1" solve ${problem} ${data} --eps -1 --out x.npy)
expect(1 "--check-every: check_every must be an integer from 1 to 2147483647, got 0" solve ${problem} ${data}
       --check-every 0 --out x.npy)
# generated names are C++ identifiers; the generator's errors are sentences
expect(1 "--name: the solver name 'int' is a C\\+\\+ keyword" generate ${problem} ${data} --name int --targets host
       --out-dir gen)
expect(1 "--name: the solver name 'std' is a namespace" generate ${problem} ${data} --name std --targets host
       --out-dir gen)
# -a auto, offered by --help, chooses when solving: generate and bench say so instead of "no algorithm can plan"
expect(1 "-a auto chooses the algorithm when solving, by probing; a generated solver runs one algorithm: name it"
       generate ${problem} ${data} -a auto --name deblur --targets host --out-dir gen)
expect(1 "-a auto chooses the algorithm when solving, by probing each candidate; bench measures algorithms by name"
       bench ${problem} ${data} -a auto)
# (an empty argument does not survive CMake's argument lists: through sh)
find_program(SH sh REQUIRED)
execute_process(COMMAND ${SH} -c "exec \"$0\" generate \"$1\" --input k=kernel.npy --input b=clean.png --name deblur --targets '' --out-dir gen"
                        ${PROXGEN} ${problem} WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "$ proxgen generate ... --targets '' -> ${rc}\n${out}${err}")
if(NOT rc EQUAL 1 OR NOT "${err}" MATCHES "--targets '': an empty target name; give Halide targets separated by commas")
  message(FATAL_ERROR "--targets '' must be refused with a sentence, exit 1")
endif()
if(EXISTS ${WORK_DIR}/gen)
  message(FATAL_ERROR "a refused generate must write nothing")
endif()

# describe prints the problem with its inputs' names (deblur.json names them kernel and blurred)
expect(0 "problem: .*conv\\(kernel\\[9x9\\], x\\).*blurred\\[32x32\\]" describe ${SOURCE_DIR}/examples/node_graph/deblur.json
       --input kernel=kernel.npy --input blurred=clean.png --algorithm pc)

# status: a problem the x-update solves exactly converges at once (HQS and Pock-Chambolle)
expect(0 "hqs converged after 1 iterations" solve denoise.txt --input b=clean.png --algorithm hqs --out x.npy)
# the same for a burst of 17 frames (one data term per frame): the sum is still solved exactly
set(burst "")
set(frames)
foreach(i RANGE 16)
  if(i GREATER 0)
    string(APPEND burst " + ")
  endif()
  string(APPEND burst "sum_squares(x - b${i})")
  list(APPEND frames --input b${i}=clean.png)
endforeach()
file(WRITE ${WORK_DIR}/burst17.txt "${burst}\n")
expect(0 "hqs converged after 1 iterations" solve burst17.txt ${frames} --algorithm hqs --out x.npy)
expect(0 "pock_chambolle converged after 1 iterations.*time: JIT compilation [0-9.]+ s, iterations"
       solve denoise.txt --input b=clean.png --algorithm pc --out x.npy)
# an unbounded problem is not called infeasible; exit 2 (stopped early, outputs written)
expect(2 "unbounded: the problem looks unbounded" solve unbounded.txt --out u.npy)
if(NOT EXISTS ${WORK_DIR}/u.npy)
  message(FATAL_ERROR "a solve stopped as unbounded must still write its output")
endif()

# a variable that cannot be allocated, under a capped address space: a sentence naming the
# variable and the bytes, exit 3 (solving failed), never a segmentation fault
execute_process(COMMAND ${SH} -c "ulimit -v 4000000 && exec \"$0\" solve huge_variable.txt --out x.npy" ${PROXGEN}
                WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message(STATUS "$ (ulimit -v 4000000; proxgen solve huge_variable.txt --out x.npy)  -> ${rc}\n${out}${err}")
if(NOT rc EQUAL 3 OR NOT "${err}" MATCHES
   "proxgen: error: solving for variable 'x' \\(100000x100000, 40000000000 bytes per float32 copy\\): cannot allocate 40000000000 bytes")
  message(FATAL_ERROR "a variable too large for memory must exit 3 with a sentence naming it and the bytes")
endif()
