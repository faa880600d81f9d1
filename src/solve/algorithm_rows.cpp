// The algorithms' rows (algorithm_rows.hpp).
#include "algorithm_rows.hpp"

#include <fmt/format.h>

#include "engine.hpp"
#include "../grad/steppers.hpp"
#include "proxgen/algorithms/pock_chambolle.hpp"
#include "proxgen/error.hpp"

namespace proxgen::detail {

namespace {

std::vector<std::vector<double>> pc_schedule(const ir::Problem& p, const Options& opt, int n) {
    std::vector<std::vector<double>> s;
    for (const algorithms::PCSteps& k : algorithms::PockChambolle::schedule(pc_steps(p, opt), n))
        s.push_back({k.sigma, k.tau, k.theta});
    return s;
}

std::vector<std::vector<double>> ladmm_schedule(const ir::Problem& p, const Options& opt, int n) {
    const steps::LinearizedADMM r = ladmm_steps(p, opt);
    return std::vector<std::vector<double>>(std::size_t(n), {r.lambda, r.mu});
}

std::vector<std::vector<double>> admm_schedule(const ir::Problem& p, const Options& opt, int n) {
    return std::vector<std::vector<double>>(std::size_t(n), {admm_rho(p, opt)});
}

// describe's line of each algorithm's default steps
std::string pc_steps_text(const ir::Problem& p, const Options& opt) {
    const steps::PockChambolle st = pc_steps(p, opt);
    std::string s = fmt::format("  steps: tau = {:.4g}, sigma = {:.4g}{}\n", st.tau, st.sigma,
                                st.accelerated ? fmt::format(", accelerated (Omega strongly convex, gamma = {:.4g})", st.gamma)
                                               : std::string(", theta = 1"));
    if (st.smooth > 0)  // Condat–Vũ
        s += fmt::format("  gradient step: L = {:.4g} (Lipschitz constant of the gradient-step terms' gradient), "
                         "tau * (sigma * ||K||^2 + L/2) = {:.4g}\n",
                         st.smooth, st.product);
    return s;
}

std::string ladmm_steps_text(const ir::Problem& p, const Options& opt) {
    const steps::LinearizedADMM st = ladmm_steps(p, opt);
    return fmt::format("  steps: lambda = {:.4g}, mu = {:.4g}\n", st.lambda, st.mu);
}

std::string admm_steps_text(const ir::Problem& p, const Options& opt) {
    return fmt::format("  steps: rho = {:.4g}, adapted by residual balancing\n", admm_rho(p, opt));
}

std::string hqs_steps_text(const ir::Problem& p, const Options& opt) {
    return fmt::format("  steps: rho = {:.4g}, times {:g} per stage of {} iterations (shorter once the alternation "
                       "settles; held while the primal residual meets its tolerance) up to {:.4g}\n",
                       admm_rho(p, opt), opt.hqs_growth, opt.hqs_every, admm_rho(p, opt) * opt.hqs_max_ratio);
}

// In algorithm_table's order (checked below).
// Planes moved: PC reads x and x̄ and writes x, and reads and writes each dual; the ADMMs read and
// write x, and each split term's z and u; HQS x and each z. Planes held: PC x and x̄ and a dual per
// term; the ADMMs x, z and u; HQS x and z.
const AlgorithmRow rows[] = {
    {Algorithm::admm, &quadratic_split, &gradients::make_admm, &admm_schedule, 10.0, {"rho"}, 2, 4, 1, 2, &admm_steps_text},
    {Algorithm::ladmm, &linearized_admm, &gradients::make_ladmm, &ladmm_schedule, 1.25, {"lambda", "mu"}, 2, 4, 1, 2,
     &ladmm_steps_text},
    {Algorithm::pock_chambolle, &pock_chambolle, &gradients::make_pock_chambolle, &pc_schedule, 1.0,
     {"sigma", "tau", "theta"}, 3, 2, 2, 1, &pc_steps_text},
    {Algorithm::hqs, &quadratic_split, nullptr, nullptr, 10.0, {}, 2, 2, 1, 1, &hqs_steps_text},
    // Condat–Vũ runs Pock–Chambolle's runner (its plan's steps and pipelines differ); automatic
    // does not probe it, so its cost is not measured (PC's separate steps plus ∇h's A and Aᵀ)
    {Algorithm::condat_vu, &pock_chambolle, nullptr, nullptr, 1.0, {}, 3, 2, 2, 1, &pc_steps_text},
};
static_assert(std::size(rows) == algorithm_table.size(), "one row per algorithm of algorithm_table");

}  // namespace

const AlgorithmRow& algorithm_row(Algorithm a) {
    const auto i = std::size_t(a);
    PROXGEN_INTERNAL_ASSERT(i < std::size(rows) && rows[i].algorithm == a);
    return rows[i];
}

}  // namespace proxgen::detail
