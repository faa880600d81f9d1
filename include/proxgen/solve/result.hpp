// pg::Result — what a solve returns: the variables' values (res[x]), iteration count, status,
// last residuals and the residual/objective history (one entry per check).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <typeindex>
#include <vector>

#include "proxgen/typed/variable.hpp"
#include "proxgen/image.hpp"
#include "proxgen/solve/options.hpp"

namespace proxgen {

namespace rt {
class Expr;
}

enum class Status {
    converged,          ///< both residuals met their tolerance
    max_iterations,     ///< ran max_iters without meeting the tolerance
    stopped_by_callback, ///< the callback returned false
    interrupted,        ///< Options::stop was set (a batch member not started then: 0 iterations)
    likely_infeasible,  ///< stopped early: one residual stalled far above its tolerance while the other
                        ///< vanished, the signature of constraints with no common point (Result::message)
    unbounded,          ///< stopped early: the residuals stalled like that while the objective kept
                        ///< falling and x kept growing: the problem has no minimum (Result::message)
    failed              ///< a batch member that could not be solved (its data, or divergence): Result::message
                        ///< says why and names the member; the other members are solved (rt::solve_batch)
};

const char* name(Status s);

struct HistoryEntry {
    int iteration = 0;
    double objective = std::numeric_limits<double>::quiet_NaN();  ///< NaN unless tracked
    double primal_residual = 0, dual_residual = 0, eps_primal = 0, eps_dual = 0;
};

struct Result {
    int iterations = 0;
    bool converged = false;
    Status status = Status::max_iterations;
    double primal_residual = std::numeric_limits<double>::quiet_NaN();
    double dual_residual = std::numeric_limits<double>::quiet_NaN();
    std::vector<HistoryEntry> history;
    double solve_seconds = 0;    ///< the iterations (excluding JIT compilation)
    double compile_seconds = 0;  ///< JIT compilation in this call (0 on a cache hit)
    /// Iterations run by the per-card tier (Options::tier): all of them under Tier::per_card;
    /// under Tier::automatic, those before the fused tier took over (0: fused from the start).
    int per_card_iterations = 0;
    Algorithm algorithm = Algorithm::pock_chambolle;  ///< the one that ran: the plan's
    int cg_iterations = 0;       ///< inner CG iterations in total (CG x-updates only)
    std::string message;         ///< why the solve stopped, when that needs a sentence (likely_infeasible, unbounded)
    /// Algorithm::automatic: what it probed, measured and chose, and why (empty otherwise).
    std::string choice;
    int probe_iterations = 0;    ///< automatic: the probes' iterations, every candidate's

    /// The solution for variable v.
    template <class Tag, int R>
    const Image& operator[](const dsl::variable_t<Tag, R>&) const {
        auto it = values.find(std::type_index(typeid(Tag)));
        if (it == values.end()) fail("Result[x]: this variable is not part of the solved problem");
        return it->second;
    }
    /// The solution for the variable of that name (problems built at run time, proxgen/runtime.hpp).
    const Image& operator[](const std::string& variable) const;
    /// The solution for a run-time variable (rt::variable).
    const Image& operator[](const rt::Expr& variable) const;

    // ---- filled by the solver; read by warm starts and objective() ----
    std::map<std::type_index, Image> values;
    std::map<std::string, Image> named_values;  ///< run-time problems: by variable name
    Image x;                      ///< the (single) variable's value
    Image x_iterate;              ///< the algorithm's own x where `x` is its feasible copy (warm starts)
    std::vector<Image> duals;     ///< algorithm state for warm starts (y, or z and u)
    std::vector<double> steps;    ///< adapted step sizes (τ σ θ α, λ μ, or ρ): warm starts go on with them
    std::string signature;        ///< structure the duals belong to
};

}  // namespace proxgen
