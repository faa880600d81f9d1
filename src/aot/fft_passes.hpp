// The Halide side of the ahead-of-time FFT (the driver is include/proxgen/aot/fft.hpp): every pass
// of a 2-D real FFT, its inverse, a 2-D DCT-II and its inverse, as Halide pipelines whose sizes are
// all run-time (buffer extents and strides), so one library serves every image size. What each
// pass computes and the argument order the driver relies on: fft_passes.cpp.
#pragma once

#include <string>
#include <vector>

#include <Halide.h>

namespace proxgen::aot::fft {

/// One pass: its entry-point suffix (the library exports <prefix>_<name>) and its arguments in
/// call order (inputs, then the output buffer).
struct PassPipeline {
    std::string name;
    Halide::Pipeline pipeline;
    std::vector<Halide::Argument> arguments;
};

/// Every pass, scheduled for the current lower::ScheduleScope (the hand CPU schedule with the
/// target's vector width, or one GPU kernel per pass for GPU targets; under an autoscheduler
/// scope the CPU schedule too: the passes' loop structure is fixed by the radix, not by sizes an
/// autoscheduler could estimate).
std::vector<PassPipeline> pass_pipelines();

/// The passes compiled for `target`, one module each, whose functions are named
/// <prefix>_<pass name> (`target` should carry NoRuntime when several libraries share one
/// runtime). Keep them in separate objects: GPU modules name their kernel buffers after the API
/// alone, so merged modules would share one pass's kernels.
std::vector<Halide::Module> pass_modules(const std::string& prefix, const Halide::Target& target);

/// The C++ header that hands those entry points to the driver: includes `pipelines_header`
/// (Halide's declarations of the module) and proxgen/aot/fft.hpp, and defines
/// `inline proxgen::aot::fft::Kernels <prefix>_kernels()`.
std::string kernels_header(const std::string& prefix, const std::string& pipelines_header,
                           const Halide::Target& target);

/// Writes <dir>/<prefix>.a (one object per pass), <dir>/<prefix>_pipelines.h and
/// <dir>/<prefix>.h (kernels_header) for `target`, under a ScheduleScope for it.
void emit_library(const std::string& dir, const std::string& prefix, const Halide::Target& target);

}  // namespace proxgen::aot::fft
