// Internal: the constructors behind make_baseline (baseline.hpp), one per source file.
#pragma once

#include <memory>

#include "baseline.hpp"

namespace proxgen::bench::detail {

std::unique_ptr<Baseline> make_pc_denoise(const TVProblem& problem, const Steps& steps, int iterations_per_call);
std::unique_ptr<Baseline> make_ladmm_denoise(const TVProblem& problem, const Steps& steps, int iterations_per_call);
std::unique_ptr<Baseline> make_pc_deconv(const TVProblem& problem, const Steps& steps);
std::unique_ptr<Baseline> make_admm_hqs(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps);
std::unique_ptr<Baseline> make_split_deconv(BaselineAlgorithm algorithm, const TVProblem& problem, const Steps& steps);

}  // namespace proxgen::bench::detail
