// The convergence benchmark's problems: each built twice, as a ProxGen problem (the run-time API)
// and as the float64 reference's (reference_solver.hpp), from the same data. Real image crops
// where data/camera.png and data/astronaut.png exist (tools/fetch_demo_images.sh), else the
// reference generator's synthetic scene (tests/reference_problems.hpp).
#pragma once

#include <string>
#include <vector>

#include <proxgen/proxgen.hpp>
#include <proxgen/runtime.hpp>

#include "reference_solver.hpp"

namespace proxgen::bench {

struct SuiteProblem {
    std::string name;      ///< short id, e.g. "deconv"
    std::string kind;      ///< one line: what it is
    std::string source;    ///< "camera", "astronaut" or "synthetic"
    rt::Problem problem;   ///< variable "x"
    ref::Problem reference;
    Image x0;              ///< start of every solver (empty: zeros)
    double shift = 0;      ///< added to objectives before gaps (Poisson: Σ b log b − b, the deviance)
};

/// The suite's names, in order.
std::vector<std::string> suite_names();
/// Builds one problem at size W (volumes W × W × W/6, colour W × W × 3). data_dir: where camera.png
/// and astronaut.png may be.
SuiteProblem make_suite_problem(const std::string& name, int W, const std::string& data_dir);

}  // namespace proxgen::bench
