# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -P cli_exit_codes.cmake
# The command line's documented exit codes and messages (docs/cli.md), and --help for every
# subcommand.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
include(${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)

execute_process(COMMAND ${MAKE_DATA} ${WORK_DIR} 32 RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_test_data failed")
endif()
set(problem ${SOURCE_DIR}/examples/node_graph/deblur.txt)
set(data --input k=kernel.npy --input b=blurred.npy)
file(WRITE ${WORK_DIR}/broken.txt "lambda = 0.002\nsum_squares(conv(k, x) - b) + lambda * group_norm1(grad(x)\n")
file(WRITE ${WORK_DIR}/admm_singular.txt "x = variable(32, 32)\nnorm1(grad(x))\n")

execute_process(COMMAND ${PROXGEN} apply "conv(k, x)" --input k=kernel.npy --at x=clean.png --noise 0.01
                        --out blurred.npy WORKING_DIRECTORY ${WORK_DIR} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "proxgen apply failed")
endif()

# help and version
expect(0 "Usage:.*solve.*describe.*generate.*Exit codes: 0" --help)
foreach(sub solve describe generate objective apply compare ops bench)
  expect(0 "Usage:.*${sub}" ${sub} --help)
endforeach()
expect(0 "0\\.[0-9]+\\.[0-9]+" --version)
expect(0 "operators:.*conv\\(kernel, e\\[, boundary\\]\\).*penalties:.*sum_squares\\(e\\)" ops)

# Each solve compiles its pipelines again (a new process): three solves only.
# 0: converged; the table (stderr is not a terminal here): a header and one row per check
expect(0 "iter +r_primal +eps_primal +r_dual +eps_dual +objective +time\\[s\\]\n +10 .*converged after [0-9]+ iterations.*wrote x \\(32x32\\) to x.npy"
       solve ${problem} ${data} --eps 1e-3 --out x.npy)
# 0: exactly --iters with --eps 0
expect(0 "ran after 7 iterations" solve ${problem} ${data} --iters 7 --eps 0 --no-objective --out x=x7.npy)
# --precondition reaches the solver: PC's dual steps per split term change the iterates
expect(0 "ran after 7 iterations" solve ${problem} ${data} --iters 7 --eps 0 --no-objective --precondition
       --out x=x7p.npy)
file(SHA256 ${WORK_DIR}/x7.npy plain)
file(SHA256 ${WORK_DIR}/x7p.npy preconditioned)
if(plain STREQUAL preconditioned)
  message(FATAL_ERROR "--precondition did not change the iterates")
endif()
# --tier per-card reaches the solver: the same 7 iterations card by card (their objective printed
# from the last check, evaluated per card); a tier that does not exist is a usage error
expect(0 "ran after 7 iterations.*objective [0-9]" solve ${problem} ${data} --iters 7 --eps 0 --tier per-card
       --out x=x7c.npy)
expect(0 "ran after 7 iterations" solve ${problem} ${data} --iters 7 --eps 0 --no-objective --tier auto
       --out x=x7a.npy)
expect(1 "--tier: .*not in \{.*fused.*per-card.*auto" solve ${problem} ${data} --tier unfused --out x=x7u.npy)
# an environment switch that is neither 0 nor 1 is an error, not silently on
set(ENV{PROXGEN_TIGHT_NORMS} banana)
expect(3 "PROXGEN_TIGHT_NORMS must be 0 \\(the planner's norm bounds\\) or 1 .*got 'banana'"
       solve ${problem} ${data} --iters 7 --eps 0 --no-objective --out x=xb.npy)
unset(ENV{PROXGEN_TIGHT_NORMS})
# 2: did not converge; --quiet prints nothing; the output is written all the same
expect(2 "^$" solve ${problem} ${data} --iters 5 --eps 1e-9 --quiet --out x=x5.npy)
if(NOT EXISTS ${WORK_DIR}/x5.npy)
  message(FATAL_ERROR "a solve that did not converge must still write its output")
endif()
# two variables: each written to its own file
file(WRITE ${WORK_DIR}/layers.txt "x = variable(32, 32)\ny = variable(32, 32)\n"
     "sum_squares(x + y - b) + 0.1 * group_norm1(grad(x)) + 0.5 * sum_squares(grad(y)) + 0.05 * sum_squares(y)\n")
expect(0 "2 variables: x 32x32, y 32x32" describe layers.txt --input b=blurred.npy)
expect(0 "wrote x \\(32x32\\) to layer_x.npy.*wrote y \\(32x32\\) to layer_y.npy"
       solve layers.txt --input b=blurred.npy --iters 50 --eps 0 --out x=layer_x.npy --out y=layer_y.npy)
expect(1 "--out x.npy: the problem has several variables \\(x, y\\)" solve layers.txt --input b=blurred.npy --out x.npy)
# 1: bad input, with the place
expect(1 "broken.txt:3:1: expected '\\)' after the arguments of group_norm1, got the end of the text \\(the '\\(' at 2:51 is not closed\\)"
       solve broken.txt ${data} --out x.npy)
expect(1 "cannot read the problem file 'missing.txt'" solve missing.txt ${data} --out x.npy)
expect(1 "cannot load 'nothere.png'" solve ${problem} --input k=kernel.npy --input b=nothere.png --out x.npy)
expect(1 "the problem uses no input named c \\(its inputs: b, k\\)" solve ${problem} ${data} --input c=clean.png
       --out x.npy)
expect(1 "the problem has no parameter named mu \\(its parameters: lambda\\)" solve ${problem} ${data} --param mu=1
       --out x.npy)
expect(1 "--param lambda: expected a number, got 'big'" solve ${problem} ${data} --param lambda=big --out x.npy)
expect(1 "--out y=y.npy: the problem has no variable 'y' \\(its variables: x\\)" solve ${problem} ${data} --out y=y.npy)
expect(1 "--input expects NAME=VALUE, got 'kernel.npy'" solve ${problem} --input kernel.npy --out x.npy)
expect(1 "--algorithm: unknown algorithm 'fista': the algorithms are 'admm', 'ladmm' \\(linearized_admm\\), 'pc' \\(pock_chambolle\\), 'hqs' \\(half_quadratic_splitting\\), 'cv' \\(condat_vu, condat\\), 'auto' \\(automatic\\)\n"
       solve ${problem} ${data} --algorithm fista --out x.npy)
expect(1 "--algorithm: unknown algorithm 'fista': .*'cv' \\(condat_vu, condat\\), 'auto' \\(automatic\\), or 'all' for each"
       describe ${problem} ${data} --algorithm fista)
expect(1 "the folder 'no/such' does not exist" solve ${problem} ${data} --out x=no/such/x.png)
expect(1 "deblur.txt:5:18: unknown names 'k' \\(5:18\\), 'x' \\(5:21\\), 'b' \\(5:26\\)" solve ${problem} --out x.npy)
# a plan the algorithm cannot make is bad input too (ADMM needs an invertible x-update)
expect(1 "proxgen: error: admm: ADMM and HQS solve the x-update as a linear system, which is singular" solve
       admm_singular.txt --algorithm admm --out x.npy)
# describe: one algorithm, or all (an algorithm that cannot plan the problem says so)
expect(0 "== pc ==.*ProxGen plan \\(pock_chambolle\\)" describe ${problem} ${data} --algorithm pc)
# every name of an algorithm is accepted (ProxImaL's long names too); the short name is printed
expect(0 "== ladmm ==.*ProxGen plan \\(ladmm\\)" describe ${problem} ${data} --algorithm linearized_admm)
expect(0 "== hqs ==.*ProxGen plan \\(hqs\\)" describe ${problem} ${data} --algorithm half_quadratic_splitting)
expect(0 "== pc ==.*ProxGen plan \\(pock_chambolle\\)" describe ${problem} ${data} --algorithm pock_chambolle)
expect(0 "== admm ==\nnot plannable: .*== pc ==\nProxGen plan" describe admm_singular.txt)
# generate: every algorithm has an ahead-of-time loop; the automatic choice is made when solving
expect(1 "-a auto chooses the algorithm when solving, by probing; a generated solver runs one algorithm: name it"
       generate ${problem} ${data} --name d --targets host --out-dir gen --algorithm auto)
expect(1 "--name: the solver name '2d' is not a C identifier" generate ${problem} ${data} --name 2d --targets host
       --out-dir gen)
# objective: the value at given variables; a variable missing or unknown is named
expect(0 "objective [0-9.e+]+\n" objective ${problem} ${data} --at x=clean.png)
expect(1 "objective: the problem has no variable 'y'" objective ${problem} ${data} --at x=clean.png --at y=clean.png)
expect(1 "--at: variable 'x' is given twice" objective ${problem} ${data} --at x=clean.png --at clean.png)
# apply and compare
expect(0 "wrote conv\\(k\\[9x9\\], x\\) \\(32x32\\) to blurred2.npy" apply "conv(k, x)" --input k=kernel.npy
       --at x=clean.png --out blurred2.npy)
expect(1 "expression 1:10: expected '\\)' after the arguments of conv" apply "conv(k, x" --input k=kernel.npy
       --at x=clean.png --out b.npy)
expect(1 "adds an image \\(an offset\\)" apply "x - k" --input k=clean.png --at x=clean.png --out b.npy)
expect(0 "blurred.npy: PSNR [0-9.]+ dB" compare clean.png blurred.npy)
expect(1 "is 9x9 but the reference clean.png is 32x32" compare clean.png kernel.npy)

# bench: one algorithm, short runs (the timings themselves are never checked, only the report)
# (at 32x32 and 1 vs 3 iterations the difference of the two times is noise and may be negative)
expect(0 "STREAM triad: [0-9.]+ GB/s.*algo +ms/iter +MB/iter +GB/s +of_triad.*\npc +-?[0-9.]+ +[0-9.]+ +-?[0-9.]+ +-?[0-9.]+"
       bench ${problem} ${data} --algorithm pc --short 1 --long 3 --repeats 1)
expect(1 "--short 5 and --long 5: need 0 <= short < long" bench ${problem} ${data} --short 5 --long 5)
# --to-tolerance: the report's columns and a row (f* from 60-iteration runs: the counts are not checked)
expect(0 "optimum f\\* = .*algo +it_1e-3 +it_1e-4 +ms_1e-3 +ms_1e-4 +default_its.*\npc +[-0-9]+ +[-0-9]+"
       bench ${problem} ${data} --algorithm pc --to-tolerance --optimum-iters 60 --max-iters 60)
