# proxgen_add_solver(<name>
#     PROBLEM <header>            # defines the problem function (see docs/deploy.md)
#     [FUNCTION <function>]       # default: <name>_problem; callable with no arguments
#     [ALGORITHM pock_chambolle|ladmm|admm|hqs|condat_vu]  # the algorithms with an ahead-of-time loop so far
#     TARGETS <halide-target>...  # e.g. x86-64-linux-avx2 arm-64-linux host-cuda-cuda_capability_61
#     [ITERATIONS_PER_CALL <n>]   # > 1: also emit <name>_iterate, n iterations per call (fixed steps)
#     [AUTOSCHEDULER <Mullapudi2016|Adams2019|Li2018>])  # default: the hand schedules
#
# Builds a generator executable <name>.generator from the problem header (it links libHalide; it
# runs at build time on this machine; the solvers of one PROBLEM and FUNCTION share the first one's,
# which takes -a <algorithm>), and per target T (T's dashes become underscores in <t>):
#   <binary dir>/<name>.proxgen/<T>/<name>.a           the step pipelines (no runtime)
#   <binary dir>/<name>.proxgen/<T>/<name>.h           the typed solver interface
#   ${CMAKE_BINARY_DIR}/proxgen_runtime/<T>/halide_runtime.a   one Halide runtime per target,
#                                                      shared by every solver of the build
#   ${CMAKE_BINARY_DIR}/proxgen_fft/<T>/proxgen_fft.a  the FFT / DCT passes of ADMM's and HQS's
#                                                      spectral x-updates, one per target, shared
#                                                      by the ADMM and HQS solvers of the build
# and an imported static library target <name>_<t> (the pipelines + that runtime + the header's
# include directories). <name> is an alias of the first target's library. Programs that link it
# need neither libHalide nor LLVM.
include_guard(GLOBAL)

# The generator's main(): generators/ in the source tree, beside this file once installed.
if(EXISTS "${CMAKE_CURRENT_LIST_DIR}/proxgen_generator_main.cpp")
  set(_PROXGEN_GENERATOR_MAIN "${CMAKE_CURRENT_LIST_DIR}/proxgen_generator_main.cpp")
else()
  set(_PROXGEN_GENERATOR_MAIN "${CMAKE_CURRENT_LIST_DIR}/../generators/proxgen_generator_main.cpp")
endif()

option(PROXGEN_AUTOSCHEDULE "Schedule generated solvers with a Halide autoscheduler (takes minutes)" OFF)
# Measured on the deblurring solver (x86-64-linux-avx2, 2-core VM): Li2018 8 s of generation,
# Adams2019 ~14 min, Mullapudi2016 stops on a Halide 14 internal error (see docs/deploy.md).
set(PROXGEN_AUTOSCHEDULER "Li2018" CACHE STRING
    "Autoscheduler used when PROXGEN_AUTOSCHEDULE is ON: Li2018, Adams2019 or Mullapudi2016")

function(_proxgen_target_suffix target out)
  string(MAKE_C_IDENTIFIER "${target}" id)
  set(${out} "${id}" PARENT_SCOPE)
endfunction()

# A library shared by the solvers of one target, generated once per build by the first solver that
# needs it: <lib> (an imported static library) from ${CMAKE_BINARY_DIR}/<folder>/<target>/<stem>.a,
# made by `<generator> -o <dir> <flag> <stem> -t <target>`; <stem>.h and <stem>_pipelines.h beside it
# when HEADERS, the folder then being an include directory.
#   _proxgen_shared_library(<lib> <folder> <flag> <stem> <what> <target> <generator> [HEADERS])
function(_proxgen_shared_library lib folder flag stem what target generator)
  if(TARGET ${lib})
    return()
  endif()
  set(dir "${CMAKE_BINARY_DIR}/${folder}/${target}")
  file(MAKE_DIRECTORY "${dir}")
  set(outputs "${dir}/${stem}.a")
  if(ARGN STREQUAL "HEADERS")
    list(APPEND outputs "${dir}/${stem}.h" "${dir}/${stem}_pipelines.h")
  endif()
  add_custom_command(OUTPUT ${outputs}
    COMMAND ${generator} -o "${dir}" ${flag} ${stem} -t "${target}"
    DEPENDS ${generator}
    COMMENT "ProxGen: ${what} for ${target}"
    VERBATIM)
  add_custom_target(${lib}.generate ALL DEPENDS ${outputs})
  add_library(${lib} STATIC IMPORTED GLOBAL)
  set_target_properties(${lib} PROPERTIES IMPORTED_LOCATION "${dir}/${stem}.a")
  if(ARGN STREQUAL "HEADERS")
    set_target_properties(${lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${dir}")
  endif()
  add_dependencies(${lib} ${lib}.generate)
endfunction()

# The Halide runtime for one target.
function(_proxgen_runtime target generator out)
  _proxgen_target_suffix("${target}" t)
  set(lib proxgen_halide_runtime_${t})
  if(NOT TARGET ${lib})
    _proxgen_shared_library(${lib} proxgen_runtime -r halide_runtime "Halide runtime" "${target}" ${generator})
    # the runtime's threads and (for GPU targets) its dlopen of the driver
    find_package(Threads REQUIRED)
    target_link_libraries(${lib} INTERFACE Threads::Threads ${CMAKE_DL_LIBS})
  endif()
  set(${out} ${lib} PARENT_SCOPE)
endfunction()

# The FFT / DCT passes for one target (proxgen_fft.a, proxgen_fft.h), made by the first ADMM or HQS
# solver for it: they depend on the target alone, and compiling them took 3-7 s of every such
# solver's generation.
function(_proxgen_fft target generator out)
  _proxgen_target_suffix("${target}" t)
  _proxgen_shared_library(proxgen_fft_${t} proxgen_fft -f proxgen_fft "FFT passes" "${target}" ${generator} HEADERS)
  set(${out} proxgen_fft_${t} PARENT_SCOPE)
endfunction()

function(proxgen_add_solver name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "PROBLEM;FUNCTION;ALGORITHM;AUTOSCHEDULER;ITERATIONS_PER_CALL" "TARGETS")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "proxgen_add_solver(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT name MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    message(FATAL_ERROR "proxgen_add_solver: the name '${name}' must be a C identifier (it prefixes every symbol)")
  endif()
  if(NOT ARG_PROBLEM)
    message(FATAL_ERROR "proxgen_add_solver(${name}): PROBLEM <header> is required")
  endif()
  if(NOT ARG_TARGETS)
    message(FATAL_ERROR "proxgen_add_solver(${name}): TARGETS <halide-target>... is required "
                        "(e.g. x86-64-linux-avx2; a pinned CPU target runs on other x86-64 machines, `host` may not)")
  endif()
  if(NOT ARG_FUNCTION)
    set(ARG_FUNCTION ${name}_problem)
  endif()
  if(NOT ARG_ALGORITHM)
    set(ARG_ALGORITHM pock_chambolle)
  endif()
  if(ARG_ALGORITHM STREQUAL "linearized_admm")
    set(ARG_ALGORITHM ladmm)
  endif()
  if(ARG_ALGORITHM STREQUAL "half_quadratic_splitting")
    set(ARG_ALGORITHM hqs)
  endif()
  if(ARG_ALGORITHM STREQUAL "cv" OR ARG_ALGORITHM STREQUAL "condat")
    set(ARG_ALGORITHM condat_vu)
  endif()
  if(NOT ARG_ALGORITHM MATCHES "^(pock_chambolle|ladmm|admm|hqs|condat_vu)$")
    message(FATAL_ERROR "proxgen_add_solver(${name}): ALGORITHM ${ARG_ALGORITHM} has no ahead-of-time loop yet; "
                        "use pock_chambolle, ladmm (linearized_admm), admm, hqs (half_quadratic_splitting) or condat_vu (cv)")
  endif()
  if(NOT ARG_AUTOSCHEDULER AND PROXGEN_AUTOSCHEDULE)
    set(ARG_AUTOSCHEDULER ${PROXGEN_AUTOSCHEDULER})
  endif()
  get_filename_component(problem "${ARG_PROBLEM}" ABSOLUTE)
  if(NOT EXISTS "${problem}")
    message(FATAL_ERROR "proxgen_add_solver(${name}): PROBLEM ${problem} does not exist")
  endif()

  # The solvers of one problem function share one generator, compiled for every algorithm they name
  # (PROXGEN_ALGORITHMS, complete when the build is generated) and told which by -a: compiling the
  # problem header with ProxGen's and Halide's is most of a small solver's build time.
  string(SHA1 key "${problem}|${ARG_FUNCTION}")
  get_property(generator GLOBAL PROPERTY _PROXGEN_GENERATOR_${key})
  if(NOT generator)
    set(generator ${name}.generator)
    set_property(GLOBAL PROPERTY _PROXGEN_GENERATOR_${key} ${generator})
    add_executable(${generator} "${_PROXGEN_GENERATOR_MAIN}")
    target_compile_definitions(${generator} PRIVATE
      "PROXGEN_PROBLEM_HEADER=\"${problem}\""
      PROXGEN_PROBLEM_FUNCTION=${ARG_FUNCTION}
      "PROXGEN_ALGORITHMS=proxgen::Algorithm::$<JOIN:$<TARGET_PROPERTY:PROXGEN_ALGORITHMS>,$<COMMA>proxgen::Algorithm::>")
    target_link_libraries(${generator} PRIVATE ProxGen::proxgen)
    # It runs once, at build time, and its work happens in ProxGen's library: optimizing its own
    # code (the problem's construction) would take 40 % of its compilation time and save nothing.
    target_compile_options(${generator} PRIVATE $<$<CXX_COMPILER_ID:GNU,Clang>:-O0>)
  endif()
  get_property(algorithms TARGET ${generator} PROPERTY PROXGEN_ALGORITHMS)
  if(NOT ARG_ALGORITHM IN_LIST algorithms)
    set_property(TARGET ${generator} APPEND PROPERTY PROXGEN_ALGORITHMS ${ARG_ALGORITHM})
  endif()

  set(generator_args)
  if(ARG_ITERATIONS_PER_CALL)
    list(APPEND generator_args -i ${ARG_ITERATIONS_PER_CALL})
  endif()
  if(ARG_AUTOSCHEDULER)
    string(TOLOWER "${ARG_AUTOSCHEDULER}" plugin)
    find_library(_proxgen_plugin_${plugin} autoschedule_${plugin}
      PATHS ${Halide_DIR}/../../halide14 /usr/lib/x86_64-linux-gnu/halide14 NO_DEFAULT_PATH)
    if(NOT _proxgen_plugin_${plugin})
      message(FATAL_ERROR "proxgen_add_solver(${name}): no autoscheduler plugin libautoschedule_${plugin}.so found")
    endif()
    list(APPEND generator_args -s ${ARG_AUTOSCHEDULER} -p ${_proxgen_plugin_${plugin}})
  endif()

  # ADMM and HQS are the algorithms whose generated x-update may be spectral; an autoscheduled
  # solver keeps its own passes (scheduled with it)
  set(shares_fft OFF)
  if(ARG_ALGORITHM MATCHES "^(admm|hqs)$" AND NOT ARG_AUTOSCHEDULER)
    set(shares_fft ON)
    list(APPEND generator_args -F proxgen_fft)
  endif()

  set(first "")
  foreach(target IN LISTS ARG_TARGETS)
    _proxgen_target_suffix("${target}" t)
    set(dir "${CMAKE_CURRENT_BINARY_DIR}/${name}.proxgen/${target}")
    file(MAKE_DIRECTORY "${dir}")
    set(outputs "${dir}/${name}.a" "${dir}/${name}.h" "${dir}/${name}_pipelines.h")
    add_custom_command(OUTPUT ${outputs}
      COMMAND ${generator} -a ${ARG_ALGORITHM} -o "${dir}" -n ${name} -t "${target}" ${generator_args}
      DEPENDS ${generator} "${problem}"
      COMMENT "ProxGen: solver ${name} for ${target}"
      VERBATIM)
    add_custom_target(${name}_${t}.generate ALL DEPENDS ${outputs})
    _proxgen_runtime("${target}" ${generator} runtime)
    set(fft "")
    if(shares_fft)
      _proxgen_fft("${target}" ${generator} fft)
    endif()

    set(lib ${name}_${t})
    add_library(${lib} STATIC IMPORTED GLOBAL)
    set_target_properties(${lib} PROPERTIES
      IMPORTED_LOCATION "${dir}/${name}.a"
      INTERFACE_INCLUDE_DIRECTORIES "${dir}")
    add_dependencies(${lib} ${name}_${t}.generate)
    target_link_libraries(${lib} INTERFACE ${fft} ${runtime} ProxGen::aot_runtime)
    if(NOT first)
      set(first ${lib})
    endif()
  endforeach()
  add_library(${name} INTERFACE)
  target_link_libraries(${name} INTERFACE ${first})
endfunction()
