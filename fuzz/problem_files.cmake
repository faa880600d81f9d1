# The problem-file readers' fuzz targets (include from fuzz/CMakeLists.txt after
# proxgen_add_fuzzer is defined; src/frontend must be configured first, for
# PROXGEN_FRONTEND_READ_SOURCES). The readers need neither Halide nor the run-time API: the text
# tokenizer and parser, the JSON reader (nlohmann-json) and the graph they produce, instrumented.
add_library(proxgen_fuzz_frontend STATIC ${PROXGEN_FRONTEND_READ_SOURCES})
target_include_directories(proxgen_fuzz_frontend PUBLIC ${PROJECT_SOURCE_DIR}/include ${PROJECT_SOURCE_DIR}/src)
target_compile_options(proxgen_fuzz_frontend PRIVATE ${PROXGEN_FUZZ_COMPILE_FLAGS})
target_link_libraries(proxgen_fuzz_frontend PUBLIC fmt::fmt PRIVATE nlohmann_json::nlohmann_json)

proxgen_add_fuzzer(problem_text proxgen_fuzz_frontend)
proxgen_add_fuzzer(problem_json proxgen_fuzz_frontend)
