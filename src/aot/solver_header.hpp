// The generated solver header (see solver_header.cpp) and the names it gives the data slots.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data_sources.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::aot {

struct SlotInfo {
    std::string name;        ///< field of the generated Data struct, e.g. "sum_squares_offset"
    std::string doc;         ///< what it is, with the term's text
    int rank = 0;            ///< images: dimensions
    std::string shape_code;  ///< images: C++ for the required extents ("" = any)
    /// images of any extents (conv kernels): C++ for the std::string saying why the given image does
    /// not fit ("" when it does), a proxgen/check/rules.hpp rule, the JIT's check ("" = none)
    std::string fit_code;
    float default_value = 0; ///< scalars: the value in the problem the generator was built from
    bool weight = false;     ///< scalars: a penalty's weight α (finite, >= 0, as the JIT requires)
};

struct SlotTable {
    std::vector<SlotInfo> images, scalars;  // by slot
};

/// Names every data slot after its term's penalty (suffixed _2, _3 when repeated) and its role.
SlotTable slot_table(const ir::Problem& p);

/// The solver an algorithm's header names, and which of its step pipelines were generated.
struct SolverSteps {
    std::string include;   ///< the solver class's header, e.g. "proxgen/aot/pock_chambolle.hpp"
    std::string solver;    ///< the class template, e.g. "proxgen::aot::PockChambolle"
    /// Every step the class may call (those not generated are declared as stubs returning −1);
    /// the header declares <name>_<step> for each generated one.
    std::vector<std::string> all, generated;
    /// `fused`: one call per iteration (step, check); else the separate steps.
    bool fused = false;
    /// > 1: <name>_iterate runs that many iterations per call.
    int iterations_per_call = 1;
    /// Split algorithms: the Ψ term whose z is the returned solution (detail::split_solution_term),
    /// −1: x itself; not written for Pock–Chambolle (its `feasible` step projects x instead).
    std::optional<int> solution_term;
    /// ADMM: the x-update's strategy as proxgen::aot::XUpdate's enumerator (direct, fft, dct, cg);
    /// "" for the algorithms without one.
    std::string x_update;
    /// ADMM: each variable's block of the x-update (ir::block_update) as such an enumerator: a
    /// spectral block is solved by its own transforms, a direct one is written by `x_update`.
    std::vector<std::string> blocks;
    /// cg x-updates: preconditioned by a circulant stand-in (the precond_gram steps), by FFT.
    bool cg_preconditioned = false;
    /// fft / dct x-updates: the FFT pass library's prefix (its header <prefix>.h defines
    /// <prefix>_kernels(), which Description::fft_kernels returns); "" when none.
    std::string fft_prefix;
};

/// The ‖K‖ estimates a generated init makes, by the JIT's rule (detail::estimate_norms): a term
/// whose planner bound is not exact is tightened by an estimate (Ψ terms; Ω terms whose bound is
/// known), and a coupled group of Ψ terms with two or more operators that are not multiples of the
/// identity gets an estimate of its stack. Each term that any estimate applies gets a Gram pipeline
/// (detail::GramOfTerm) `norm_gram<k>`, k in the order of `terms`.
struct NormEstimates {
    struct Term {
        bool psi = true;  ///< a Ψ term (else Ω)
        int index = 0;    ///< in p.psi or p.omega
    };
    std::vector<Term> terms;               ///< the Gram pipelines' terms
    std::vector<int> psi_gram, omega_gram;  ///< per term: its pipeline k, or −1
    std::vector<bool> psi_estimated, omega_estimated, psi_general;
};
NormEstimates norm_estimates(const ir::Problem& p);

/// The header <name>.h for one target. With `sources` (a run-time problem's named data, by slot of
/// p), Data has a field per named input and parameter, as the user has them, and bind() makes the
/// slots from them; the other slots keep their derived fields.
std::string solver_header(const ir::Problem& p, const std::string& name, const std::string& target,
                          const std::string& plan_text, const SolverSteps& steps,
                          const DataSources* sources = nullptr);

}  // namespace proxgen::aot
