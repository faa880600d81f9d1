// The algorithms' rows (algorithm_rows.hpp).
#include "algorithm_rows.hpp"

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

// In algorithm_table's order (checked below).
// State planes: PC reads x and x̄ and writes x, and reads and writes each dual; the ADMMs read and
// write x, and each split term's z and u; HQS x and each z.
const AlgorithmRow rows[] = {
    {Algorithm::admm, &quadratic_split, &gradients::make_admm, &admm_schedule, 10.0, {"rho"}, 2, 4},
    {Algorithm::ladmm, &linearized_admm, &gradients::make_ladmm, &ladmm_schedule, 1.25, {"lambda", "mu"}, 2, 4},
    {Algorithm::pock_chambolle, &pock_chambolle, &gradients::make_pock_chambolle, &pc_schedule, 1.0,
     {"sigma", "tau", "theta"}, 3, 2},
    {Algorithm::hqs, &quadratic_split, nullptr, nullptr, 10.0, {}, 2, 2},
    // Condat–Vũ runs Pock–Chambolle's runner (its plan's steps and pipelines differ); automatic
    // does not probe it, so its cost is not measured (PC's separate steps plus ∇h's A and Aᵀ)
    {Algorithm::condat_vu, &pock_chambolle, nullptr, nullptr, 1.0, {}, 3, 2},
};
static_assert(std::size(rows) == algorithm_table.size(), "one row per algorithm of algorithm_table");

}  // namespace

const AlgorithmRow& algorithm_row(Algorithm a) {
    const auto i = std::size_t(a);
    PROXGEN_INTERNAL_ASSERT(i < std::size(rows) && rows[i].algorithm == a);
    return rows[i];
}

}  // namespace proxgen::detail
