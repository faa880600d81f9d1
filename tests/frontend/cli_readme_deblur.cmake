# cmake -DPROXGEN=<proxgen> -DMAKE_DATA=<proxgen_frontend_test_data> -DSOURCE_DIR=<repo> -DWORK_DIR=<dir>
#       -P cli_readme_deblur.cmake
# The README's "Command line" deblurring, command for command, on a 64x64 synthetic image instead of
# data/camera.png (which CI does not fetch): blur with the committed kernel plus 1% noise
# (`proxgen apply`), deblur (`proxgen solve`), and the PSNR must improve by at least 3 dB.
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/data ${WORK_DIR}/out)
include(${CMAKE_CURRENT_LIST_DIR}/cli_run.cmake)

run(${MAKE_DATA} ${WORK_DIR}/data 64)
file(RENAME ${WORK_DIR}/data/clean.png ${WORK_DIR}/data/camera.png)
set(kernel ${SOURCE_DIR}/data/blur_kernel_9x9.npy)
set(problem ${SOURCE_DIR}/examples/node_graph/deblur.txt)
# --- the README's commands (paths: the README's, relative to the clone) ---
run(${PROXGEN} apply "conv(k, x)" --input k=${kernel} --at x=data/camera.png --noise 0.01
    --out out/camera_blurred.png)
run(${PROXGEN} solve ${problem} --input k=${kernel} --input b=out/camera_blurred.png --out x=out/camera_deblurred.png)
run(${PROXGEN} compare data/camera.png out/camera_blurred.png out/camera_deblurred.png)
# ---
string(REGEX MATCH "camera_blurred.png: PSNR ([0-9.]+) dB" _ "${run_output}")
set(blurred ${CMAKE_MATCH_1})
string(REGEX MATCH "camera_deblurred.png: PSNR ([0-9.]+) dB" _ "${run_output}")
set(deblurred ${CMAKE_MATCH_1})
if(NOT blurred OR NOT deblurred)
  message(FATAL_ERROR "no PSNRs in the output of proxgen compare")
endif()

if(NOT deblurred GREATER blurred)
  message(FATAL_ERROR "deblurring did not improve the PSNR: ${blurred} dB -> ${deblurred} dB")
endif()
string(REGEX REPLACE "\\..*" "" b_int "${blurred}")
string(REGEX REPLACE "\\..*" "" d_int "${deblurred}")
math(EXPR gain "${d_int} - ${b_int}")
if(gain LESS 3)
  message(FATAL_ERROR "deblurring gained less than 3 dB: ${blurred} dB -> ${deblurred} dB")
endif()
message(STATUS "PSNR ${blurred} dB -> ${deblurred} dB")
