// Emits the FFT pass library (src/aot/fft_passes.cpp) for one Halide target, or the Halide runtime
// for it, as proxgen_add_solver's generators do:
//   proxgen_fft_generator -o <dir> -n <prefix> -t <target>   → <prefix>.a, <prefix>.h, <prefix>_pipelines.h
//   proxgen_fft_generator -o <dir> -r <stem> -t <target>     → <stem>.a (the runtime)
#include <cstdio>
#include <cstring>
#include <string>

#include <Halide.h>

#include "aot/fft_passes.hpp"
#include "proxgen/error.hpp"

int main(int argc, char** argv) {
    std::string dir, prefix, runtime, target;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        if (flag == "-o") dir = argv[i + 1];
        else if (flag == "-n") prefix = argv[i + 1];
        else if (flag == "-r") runtime = argv[i + 1];
        else if (flag == "-t") target = argv[i + 1];
    }
    if (dir.empty() || target.empty() || prefix.empty() == runtime.empty()) {
        std::fprintf(stderr, "usage: %s -o <dir> (-n <prefix> | -r <runtime stem>) -t <halide target>\n", argv[0]);
        return 1;
    }
    try {
        const Halide::Target t(target);
        if (!runtime.empty()) {
            Halide::compile_standalone_runtime({{Halide::OutputFileType::static_library, dir + "/" + runtime + ".a"}}, t);
            return 0;
        }
        proxgen::aot::fft::emit_library(dir, prefix, t.with_feature(Halide::Target::NoRuntime));
        return 0;
    } catch (const proxgen::Error& e) {
        std::fprintf(stderr, "%s\n", e.what());
    } catch (const Halide::Error& e) {
        std::fprintf(stderr, "fft generator: Halide: %s\n", e.what());
    }
    return 1;
}
