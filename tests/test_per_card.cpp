// The per-card tier (Options::tier = Tier::per_card): an expression applied node by node equals the
// fused forward and adjoint, and every algorithm run card by card reaches the fused tier's optimum
// with the same iterates up to float32 rounding.
#include <catch2/catch.hpp>

#include <algorithm>
#include <deque>
#include <optional>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/proxgen.hpp>
#include <proxgen/runtime.hpp>
#include <proxgen/typed/to_ir.hpp>

#include "solve/per_card.hpp"
#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;
using Catch::Matchers::Contains;
using pg::test::relative_difference;

namespace {

constexpr int W = 37, H = 29;

/// The one-term problem whose kernels the fused evaluation runs (expr over one variable).
pg::ir::Problem fused_term(const pg::ir::Node& expr, const std::vector<int>& var_shape) {
    pg::ir::Problem q;
    q.variable_shape = var_shape;
    q.psi.push_back(pg::catalogue::term<pg::catalogue::penalties::sum_squares>(expr));
    pg::ir::assign_slots(q);
    return q;
}

/// ‖k ⊛ x − b‖² (a random 5×5 blur, zero boundary) + 0.01 TV(x) + x ≥ 0: k and b from seeds seed, seed + 1.
rt::Problem tv_deblur(unsigned seed) {
    const pg::Image k = pg::test::random_image({5, 5}, seed, 0.0f, 0.08f);
    const pg::Image b = pg::test::random_image({W, H}, seed + 1, 0.0f, 1.0f);
    const rt::Expr x = rt::variable("x", {W, H});
    return rt::sum_squares(rt::conv(k, x, rt::ConvBoundary::zero) - b) + 0.01 * rt::group_norm1(rt::grad(x)) +
           rt::nonneg(x);
}

}  // namespace

TEST_CASE("an expression applied card by card equals its fused forward, constant part and adjoint", "[per_card]") {
    const pg::Image k = pg::test::random_image({5, 3}, 1, 0.0f, 1.0f), w = pg::test::random_image({W, H}, 2, 0.0f, 1.0f);
    const pg::Image w2 = pg::test::random_image({(W + 1) / 2, H}, 9, 0.0f, 1.0f);
    const pg::Image b = pg::test::random_image({W, H}, 3), b2 = pg::test::random_image({W, H, 2}, 4);
    auto x = pg::variable(W, H);
    const std::vector<pg::ir::Node> exprs{
        pg::typed::to_ir(pg::grad(pg::conv(k, x, pg::zero_boundary))),
        pg::typed::to_ir(pg::mul_elemwise(w, pg::conv(k, x, pg::replicate)) - b),
        pg::typed::to_ir(pg::grad(x - b) + b2),
        pg::typed::to_ir(pg::vstack(pg::subsample(x, 2, 1), pg::mul_elemwise(w2, pg::subsample(x, 2, 1)))),
        pg::typed::to_ir(pg::conv(k, x) + pg::mul_elemwise(w, pg::conv(k, x, pg::zero_boundary))),
    };
    // all the operators of one owner share its buffers (zeros, scratch): those that keep their
    // outputs are read after every other one has run, those read at once when they are applied
    const auto outputs = GENERATE(pg::detail::PerCardOutputs::kept, pg::detail::PerCardOutputs::read_at_once);
    const bool kept = outputs == pg::detail::PerCardOutputs::kept;
    INFO((kept ? "outputs kept" : "outputs read at once"));
    pg::detail::SharedBuffers shared;
    std::vector<pg::ir::Problem> qs;
    std::deque<pg::detail::PerCardOperator> ops;
    std::vector<pg::Image> xs, ys, outs;
    for (std::size_t e = 0; e < exprs.size(); ++e) {
        qs.push_back(fused_term(exprs[e], {W, H}));
        ops.emplace_back(qs[e], exprs[e], shared, outputs);
        xs.push_back(pg::test::random_image({W, H}, 10 + unsigned(e)));
        ys.push_back(pg::test::random_image(exprs[e].shape, 20 + unsigned(e)));
    }
    for (std::size_t e = 0; e < exprs.size() && kept; ++e) outs.push_back(ops[e].linear({xs[e]}));
    for (std::size_t e = 0; e < exprs.size(); ++e) {
        INFO("expression " << pg::ir::to_string(exprs[e]));
        const pg::ir::Problem& q = qs[e];
        const pg::Image& out = kept ? outs[e] : ops[e].linear({xs[e]});
        CHECK(relative_difference(out, pg::lower::term_forward(q, xs[e], false)) <= 1e-6);
        const pg::Image zero({W, H});
        const pg::Image c = pg::lower::term_forward(q, zero, true);
        if (ops[e].constant().empty()) CHECK(pg::test::norm(c) == 0.0);
        else CHECK(relative_difference(ops[e].constant(), c) <= 1e-6);
        std::vector<pg::Image> back{pg::Image({W, H})};
        ops[e].adjoint_add(ys[e], back);
        CHECK(relative_difference(back[0], pg::lower::term_adjoint(q, ys[e])) <= 1e-6);
    }
}

TEST_CASE("every algorithm card by card reaches the fused tier's optimum along the same iterates", "[per_card][solve]") {
    using A = pg::Algorithm;
    const A algorithm = GENERATE(A::pock_chambolle, A::ladmm, A::admm, A::hqs, A::condat_vu);
    INFO(pg::name(algorithm));
    const pg::Image k = pg::test::random_image({5, 5}, 5, 0.0f, 0.08f), m = pg::test::random_image({W, H}, 6, 0.0f, 1.0f);
    const pg::Image b = pg::test::random_image({W, H}, 7, 0.0f, 1.0f), c = pg::test::random_image({W, H}, 8, 0.0f, 1.0f);
    const rt::Expr x = rt::variable("x", {W, H});
    // each with the algorithms whose plans differ there (ADMM: DCT, CG and FFT x-updates, HQS the
    // latter two; Condat–Vũ: gradient steps on one and two masked blurs); every fused structure
    // compiles, so not every pair
    struct Case {
        const char* what;
        rt::Problem prob;
        std::vector<A> algorithms;
    };
    const std::vector<Case> problems{
        {"TV denoising", rt::sum_squares(x - b) + 0.1 * rt::group_norm1(rt::grad(x)),
         {A::pock_chambolle, A::ladmm, A::admm}},
        {"TV deblurring, zero boundary, nonneg",
         rt::sum_squares(rt::conv(k, x, rt::ConvBoundary::zero) - b) + 0.01 * rt::group_norm1(rt::grad(x)) +
             rt::nonneg(x),
         {A::pock_chambolle, A::ladmm, A::admm, A::hqs, A::condat_vu}},
        {"TV deblurring, circular: an FFT x-update",
         rt::sum_squares(rt::conv(k, x) - b) + 0.01 * rt::group_norm1(rt::grad(x)),
         {A::pock_chambolle, A::ladmm, A::admm, A::hqs}},
        {"two masked blurs and an anisotropic TV of x - c",
         rt::sum_squares(rt::mul_elemwise(m, rt::conv(k, x, rt::ConvBoundary::zero)) - b) +
             rt::sum_squares(rt::mul_elemwise(c, rt::conv(k, x, rt::ConvBoundary::replicate)) - c) +
             0.02 * rt::norm1(rt::grad(x - c)),
         {A::pock_chambolle, A::condat_vu}},
    };
    for (const auto& [what, prob, algorithms] : problems) {
        if (std::find(algorithms.begin(), algorithms.end(), algorithm) == algorithms.end()) continue;
        INFO(what);
        REQUIRE(pg::detail::per_card_unsupported(rt::plan(prob, algorithm).ir()).empty());
        // the same 40 iterations (checks, and steps adapted there, at 10, 20, 30, 40)
        pg::Options opt = pg::test::fixed_iterations(algorithm, 40);
        const pg::Result fused = rt::solve(prob, opt);
        opt.tier = pg::Tier::per_card;
        const pg::Result per_card = rt::solve(prob, opt);
        CHECK(per_card.iterations == 40);
        CHECK(relative_difference(per_card.x, fused.x) <= 1e-4);
        // both to the tolerances: the same optimum
        pg::Options tol;
        tol.algorithm = algorithm;
        tol.max_iters = 3000;
        tol.eps_abs = tol.eps_rel = 1e-5;
        const pg::Result a = rt::solve(prob, tol);
        tol.tier = pg::Tier::per_card;
        const pg::Result r = rt::solve(prob, tol);
        CHECK(r.status == a.status);
        const double fa = rt::objective(prob, a), fr = rt::objective(prob, r);
        INFO("objectives " << fa << " (fused, " << a.iterations << " iterations) and " << fr << " (per card, "
                           << r.iterations << ")");
        CHECK(std::abs(fr - fa) <= 1e-4 * std::abs(fa));
        CHECK(std::abs(r.iterations - a.iterations) <= 20);
        INFO(what << ": " << a.iterations << " / " << r.iterations << " iterations, objectives " << fa << " / " << fr
                  << ", x differs by " << relative_difference(per_card.x, fused.x) << " after 40");
    }
}

TEST_CASE("the per-card tier names the plan it cannot run", "[per_card]") {
    const pg::Image b = pg::test::random_image({W, H}, 7);
    const rt::Expr x = rt::variable("x", {W, H}), y = rt::variable("y", {W, H});
    // x and y coupled per pixel in ADMM's x-update: a small solve per pixel, not run per card
    const rt::Problem prob = rt::sum_squares(x + y - b) + 0.1 * rt::norm1(x) + 0.2 * rt::norm1(y);
    REQUIRE(rt::plan(prob, pg::Algorithm::admm).ir().x_update == pg::plan::XUpdate::pixel_block);
    pg::Options opt;
    opt.tier = pg::Tier::per_card;
    opt.algorithm = pg::Algorithm::admm;
    CHECK_THROWS_WITH(rt::solve(prob, opt), Contains("per-card tier cannot run") && Contains("pixel"));
    // Tier::automatic runs it fused
    opt.tier = pg::Tier::automatic;
    opt.max_iters = 20;
    CHECK(rt::solve(prob, opt).per_card_iterations == 0);
}

TEST_CASE("Tier::automatic: the fused tier takes over the per-card state and loses none of it", "[per_card][solve]") {
    using A = pg::Algorithm;
    const A algorithm = GENERATE(A::pock_chambolle, A::ladmm, A::admm, A::hqs, A::condat_vu);
    INFO(pg::name(algorithm));
    const rt::Problem prob = tv_deblur(11);
    pg::Options opt = pg::test::fixed_iterations(algorithm, 60);
    opt.tier = pg::Tier::per_card;
    const pg::Result per_card = rt::solve(prob, opt);
    CHECK(per_card.per_card_iterations == 60);
    // switched after 25 iterations (between two checks: PC's x̄ needs the x before, the steps were
    // balanced at checks 10 and 20, linearized ADMM's u rescaled with them): the rest of the run as
    // if per card, up to float32 rounding
    // (the tight norms taken before the first iteration, as the per-card run has them: the same steps)
    opt.tier = pg::Tier::automatic;
    pg::detail::force_tier_switch(25);
    pg::detail::force_tight_norms_after(0);
    const pg::Result switched = rt::solve(prob, opt);
    pg::detail::force_tier_switch(0);
    pg::detail::force_tight_norms_after(std::nullopt);
    CHECK(switched.per_card_iterations == 25);
    CHECK(switched.iterations == 60);
    INFO("x differs from the per-card run's by " << relative_difference(switched.x, per_card.x));
    CHECK(relative_difference(switched.x, per_card.x) <= 1e-5);
    REQUIRE(switched.history.size() == per_card.history.size());  // one history, both tiers' checks
    for (std::size_t i = 0; i < switched.history.size(); ++i) {
        CHECK(switched.history[i].iteration == per_card.history[i].iteration);
        CHECK(std::abs(switched.history[i].primal_residual - per_card.history[i].primal_residual) <=
              1e-3 * per_card.history[i].primal_residual);
    }
    // the fused kernels are in the cache now: automatic runs them from the start
    const pg::Result cached = rt::solve(prob, opt);
    CHECK(cached.per_card_iterations == 0);
    CHECK(relative_difference(cached.x, per_card.x) <= 1e-5);
}

TEST_CASE("Tier::automatic: a run started on the planner's bounds takes the tight norms where they arrive and reaches the same optimum",
          "[per_card][solve]") {
    using A = pg::Algorithm;
    const A algorithm = GENERATE(A::pock_chambolle, A::ladmm, A::admm, A::hqs, A::condat_vu);
    INFO(pg::name(algorithm));
    // a zero-boundary blur beside TV: its bound ‖k‖₁ and the stacked bound √(‖k‖₁² + 8) are loose,
    // so the tight norms are estimated and the run can start without them
    const rt::Problem prob = tv_deblur(21);
    // (Pock–Chambolle and linearized ADMM split the blur: the stacked ‖K‖ tightens; ADMM and HQS
    // absorb it, Condat–Vũ steps along its gradient: its own norm, hence ρ₀ and L, tightens)
    const pg::ir::Problem planned = rt::plan(prob, algorithm).ir();
    REQUIRE(pg::detail::starts_on_bounds(planned));
    const pg::ir::Problem bounds = pg::detail::with_planner_bounds(planned);
    const pg::ir::Problem estimated = pg::detail::with_norm_bounds(planned, true);
    const double bound = bounds.psi_norm, tight = estimated.psi_norm;
    bool tightened = tight < 0.99 * bound;
    for (std::size_t i = 0; i < bounds.omega.size(); ++i)
        tightened = tightened || estimated.omega[i].norm_bound < 0.99 * bounds.omega[i].norm_bound;
    INFO("stacked norm: bound " << bound << ", estimated " << tight);
    REQUIRE(tightened);

    pg::Options opt;
    opt.algorithm = algorithm;
    opt.max_iters = 4000;
    opt.eps_abs = opt.eps_rel = 1e-5;
    opt.tier = pg::Tier::per_card;
    const pg::Result from_the_start = rt::solve(prob, opt);
    // the norms taken after iteration 7 (deterministic here; by default when the estimates arrive),
    // the fused tier from iteration 25 on
    opt.tier = pg::Tier::automatic;
    pg::detail::force_tier_switch(25);
    pg::detail::force_tight_norms_after(7);
    const pg::Result late = rt::solve(prob, opt);
    // the same with the norms taken before the first iteration: a run that did start on the bounds
    // moves along other iterates (one that silently took the norms first would repeat these bitwise)
    pg::detail::force_tight_norms_after(0);
    const pg::Result first = rt::solve(prob, opt);
    pg::detail::force_tight_norms_after(std::nullopt);
    pg::detail::force_tier_switch(0);
    CHECK(pg::test::relative_difference(late["x"], first["x"]) > 0);
    CHECK(late.per_card_iterations == 25);
    CHECK(late.status == from_the_start.status);
    const double f0 = rt::objective(prob, from_the_start), f1 = rt::objective(prob, late);
    INFO("objectives " << f0 << " (" << from_the_start.iterations << " iterations) and " << f1 << " ("
                       << late.iterations << ")");
    CHECK(std::abs(f1 - f0) <= 1e-4 * std::abs(f0));
    // the steps the run ends with are the tight norms': balancing keeps τσ (PC), μ/λ (L-ADMM), and
    // both were set from ‖K‖ (τσ‖K‖² = 1, μ‖K‖²/λ = 1) — from the bound they would be (tight/bound)²
    if (algorithm == A::pock_chambolle) CHECK(late.steps[0] * late.steps[1] * tight * tight == Approx(1.0).epsilon(1e-5));
    if (algorithm == A::ladmm) CHECK(late.steps[1] / late.steps[0] * tight * tight == Approx(1.0).epsilon(1e-5));
}
