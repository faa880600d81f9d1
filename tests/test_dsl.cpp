// The DSL front end: distinct variable types, run-time size errors that name the operator and
// both sizes, the compile-time plan (Ω/Ψ), and describe().
#include <catch2/catch.hpp>

#include <boost/hana/size.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using Catch::Matchers::Contains;

TEST_CASE("each variable call site is a distinct type", "[dsl]") {
    auto a = pg::variable(4, 4);
    auto b = pg::variable(4, 4);
    STATIC_REQUIRE(!std::is_same_v<decltype(a), decltype(b)>);
    STATIC_REQUIRE(decltype(a)::rank == 2);
    STATIC_REQUIRE(decltype(pg::variable(4, 4, 3))::rank == 3);
    STATIC_REQUIRE(decltype(pg::grad(a))::rank == 3);
}

TEST_CASE("size mismatches throw proxgen::Error naming the operator and both sizes", "[dsl][errors]") {
    auto x = pg::variable(8, 6);
    const pg::Image b({7, 6});
    CHECK_THROWS_WITH(x - b, Contains("-") && Contains("8x6") && Contains("7x6"));
    CHECK_THROWS_WITH(pg::mul_elemwise(pg::Image({8, 5}), x), Contains("mul_elemwise") && Contains("8x5") && Contains("8x6"));
    CHECK_THROWS_WITH(pg::conv(pg::Image({9, 9}), x), Contains("conv") && Contains("9x9") && Contains("8x6"));
    CHECK_THROWS_WITH(pg::conv(pg::Image(), x), Contains("conv") && Contains("empty"));
    CHECK_THROWS_WITH(x - pg::Image(), Contains("empty"));
    auto y = pg::variable(8, 7);
    CHECK_THROWS_WITH(x + y, Contains("+") && Contains("8x6") && Contains("8x7"));
    CHECK_THROWS_AS(pg::variable(0, 5), pg::Error);
    CHECK_THROWS_WITH(-1.0f * pg::sum_squares(x), Contains("non-negative"));
    CHECK_THROWS_AS(pg::subsample(x, 0, 1), pg::Error);
}

TEST_CASE("PC and L-ADMM absorb diagonal quadratics and constraints, the rest is split", "[plan]") {
    auto x = pg::variable(16, 16);
    const pg::Image b({16, 16}), k({3, 3});
    using A = pg::Algorithm;
    using denoise = decltype(pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x)));
    using P1 = pg::detail::plan_of<denoise, A::pock_chambolle>;
    STATIC_REQUIRE(P1::in_omega[0]);
    STATIC_REQUIRE(!P1::in_omega[1]);
    STATIC_REQUIRE(P1::omega_count == 1);
    STATIC_REQUIRE(P1::x_update == pg::plan::XUpdate::closed_form_prox);

    using deconv = decltype(pg::sum_squares(pg::conv(k, x) - b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x));
    using P2 = pg::detail::plan_of<deconv, A::ladmm>;
    STATIC_REQUIRE(P2::in_omega[0]);   // circular conv: its quadratic has an exact FFT prox
    STATIC_REQUIRE(!P2::in_omega[1]);
    STATIC_REQUIRE(!P2::in_omega[2]);  // so the constraint is split
    STATIC_REQUIRE(P2::psi_count == 2);
    STATIC_REQUIRE(P2::x_update == pg::plan::XUpdate::fft);
    using masked = decltype(pg::sum_squares(pg::mul_elemwise(b, pg::conv(k, x)) - b) + pg::nonneg(x));
    using P4 = pg::detail::plan_of<masked, A::pock_chambolle>;  // weights break the FFT: split it
    STATIC_REQUIRE(!P4::in_omega[0]);
    STATIC_REQUIRE(P4::in_omega[1]);
    STATIC_REQUIRE(P4::x_update == pg::plan::XUpdate::closed_form_prox);

    // after the rewrites: weights and scales are absorbed into the prox, so these are diagonal
    using weighted = decltype(pg::sum_squares(pg::mul_elemwise(b, x) - b) + pg::norm1(x) + pg::nonneg(2.0f * x) +
                              pg::norm1(pg::mul_elemwise(b, pg::grad(x))));
    using P3 = pg::detail::plan_of<weighted, A::pock_chambolle>;
    STATIC_REQUIRE(P3::in_omega[0]);   // diagonal weights: closed form per pixel
    STATIC_REQUIRE(!P3::in_omega[1]);  // norm1 is proxed
    STATIC_REQUIRE(P3::in_omega[2]);   // 2x >= 0: an interval per pixel
    STATIC_REQUIRE(!P3::in_omega[3]);
}

TEST_CASE("ADMM and HQS absorb quadratics and pick the x-update from the operators", "[plan]") {
    auto x = pg::variable(16, 16);
    const pg::Image b({16, 16}), k({3, 3});
    using A = pg::Algorithm;
    using X = pg::plan::XUpdate;
    using denoise = decltype(pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x)));
    STATIC_REQUIRE(pg::detail::plan_of<denoise, A::admm>::x_update == X::dct);
    using periodic = decltype(pg::sum_squares(pg::conv(k, x) - b) + 0.1f * pg::group_norm1(pg::grad(x, pg::periodic)));
    STATIC_REQUIRE(pg::detail::plan_of<periodic, A::admm>::x_update == X::fft);
    STATIC_REQUIRE(pg::detail::plan_of<periodic, A::admm>::in_omega[0]);
    using deconv = decltype(pg::sum_squares(pg::conv(k, x) - b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x));
    using P = pg::detail::plan_of<deconv, A::hqs>;
    STATIC_REQUIRE(P::x_update == X::cg);  // circular conv and Neumann grad share no basis
    STATIC_REQUIRE(P::in_omega[0]);
    STATIC_REQUIRE(!P::in_omega[2]);      // constraints are split in ADMM / HQS
    using diagonal = decltype(pg::sum_squares(x - b) + pg::norm1(x) + pg::nonneg(x));
    STATIC_REQUIRE(pg::detail::plan_of<diagonal, A::admm>::x_update == X::elementwise);
    using weighted = decltype(pg::sum_squares(pg::mul_elemwise(b, pg::conv(k, x)) - b) + pg::norm1(pg::grad(x, pg::periodic)));
    STATIC_REQUIRE(pg::detail::plan_of<weighted, A::admm>::x_update == X::cg);  // W² breaks the FFT diagonal
    // the canonical Poisson problem: the likelihood is never absorbed (it is not a quadratic)
    using poisson = decltype(pg::poisson_norm(pg::conv(k, x), b) + 0.02f * pg::group_norm1(pg::grad(x)));
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::admm>::omega_count == 0);
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::admm>::x_update == X::cg);
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::hqs>::x_update == X::cg);
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::pock_chambolle>::psi_count == 2);
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::pock_chambolle>::x_update == X::closed_form_prox);
    STATIC_REQUIRE(pg::detail::plan_of<poisson, A::ladmm>::x_update == X::closed_form_prox);
    using tv_only = decltype(pg::group_norm1(pg::grad(x)));
    STATIC_REQUIRE(!pg::detail::plan_of<tv_only, A::admm>::viable);
    STATIC_REQUIRE(pg::detail::plan_of<tv_only, A::pock_chambolle>::viable);
}

TEST_CASE("rewrite rules absorb offsets, scales and weights into the prox parameters", "[plan]") {
    auto x = pg::variable(4, 3);
    pg::Image b({4, 3}), w({4, 3});
    for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = float(i), w.data()[i] = 0.5f + float(i);
    // 3 · norm1(2 · (w ⊙ x − b)) → 3 · norm1(2 w ⊙ x − 2 b): the type (compile time) ...
    auto raw = 3.0f * pg::norm1(2.0f * (pg::mul_elemwise(w, x) - b));
    using T = pg::plan::normalized_term_t<decltype(raw)>;
    STATIC_REQUIRE(std::is_same_v<T::argument_type, decltype(x)>);
    STATIC_REQUIRE(T::weighted);
    // ... and the data (the run-time rules on the IR term)
    const pg::ir::Term t = pg::plan::normalize_term(pg::typed::to_draft(pg::dsl::as_problem(raw)).terms[0]);
    CHECK(t.expr.is_variable());
    CHECK(t.weight == 3.0f);
    CHECK(t.beta == 2.0f);
    for (std::size_t i = 0; i < b.size(); ++i) {
        CHECK(t.arg_weight.data()[i] == w.data()[i]);
        CHECK(t.offset.data()[i] == -2.0f * b.data()[i]);
    }
    // group_norm1 keeps elementwise weights in its operator (not separable), offsets still move
    auto graw = pg::group_norm1(pg::grad(x) - pg::Image({4, 3, 2}));
    using G = pg::plan::normalized_term_t<decltype(graw)>;
    STATIC_REQUIRE(std::is_same_v<G::argument_type, decltype(pg::grad(x))>);
    const pg::ir::Term g = pg::plan::normalize_term(pg::typed::to_draft(pg::dsl::as_problem(graw)).terms[0]);
    CHECK(pg::catalogue::is<pg::catalogue::ops::grad>(g.expr));
    CHECK(!g.offset.empty());
}

TEST_CASE("quadratics on the same data-free operator merge into one term, objective unchanged", "[plan]") {
    auto x = pg::variable(5, 4);
    const pg::Image b1 = pg::test::random_image({5, 4}, 21), b2 = pg::test::random_image({5, 4}, 22);
    const pg::Image g = pg::test::random_image({5, 4, 2}, 23), k = pg::test::random_image({3, 3}, 24);
    // 2 terms on x, 2 on grad(x): 2 merged terms + the norm1 term; the two convs stay apart
    auto prob = pg::sum_squares(x - b1) + 0.5f * pg::sum_squares(3.0f * x + b2) +
                pg::sum_squares(pg::grad(x)) + 0.2f * pg::sum_squares(pg::grad(x) - g) + 0.1f * pg::norm1(x) +
                pg::sum_squares(pg::conv(k, x)) + pg::sum_squares(pg::conv(k, x) - b1);
    using N = pg::plan::normalized_t<decltype(prob)>;
    STATIC_REQUIRE(decltype(boost::hana::size(std::declval<N>().terms))::value == 5);
    const auto n = pg::plan::normalize(pg::typed::to_draft(prob).terms);
    REQUIRE(n.size() == 5);
    // α = 1 + 0.5·9, β = 1, c = (b1·(−1) + 0.5·3·b2)/α ... and the objective is the same everywhere
    CHECK(n[0].weight == Approx(5.5f));
    CHECK(n[1].weight == Approx(1.2f));
    for (unsigned seed : {31u, 32u, 33u}) {
        const pg::Image at = pg::test::random_image({5, 4}, seed);
        double by_hand = 0;
        for (std::size_t i = 0; i < at.size(); ++i) {
            const double v = at.data()[i];
            by_hand += std::pow(v - b1.data()[i], 2) + 0.5 * std::pow(3 * v + b2.data()[i], 2) + 0.1 * std::abs(v);
        }
        const double f_all = pg::objective(prob, at);
        const double f_quad_x = pg::objective(pg::sum_squares(x - b1) + 0.5f * pg::sum_squares(3.0f * x + b2) +
                                              0.1f * pg::norm1(x), at);
        CHECK(f_quad_x == Approx(by_hand).epsilon(1e-5));
        const double f_rest = pg::objective(pg::sum_squares(pg::grad(x)) + 0.2f * pg::sum_squares(pg::grad(x) - g) +
                                            pg::sum_squares(pg::conv(k, x)) + pg::sum_squares(pg::conv(k, x) - b1), at);
        CHECK(f_all == Approx(f_quad_x + f_rest).epsilon(1e-5));
    }
}

TEST_CASE("describe prints the plan", "[plan]") {
    auto x = pg::variable(32, 32);
    const pg::Image b({32, 32}), k({5, 5});
    auto prob = pg::sum_squares(pg::conv(k, x) - b) + 0.01f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const std::string d = pg::describe(prob, pg::Algorithm::pock_chambolle);
    CHECK_THAT(d, Contains("Omega") && Contains("nonneg(x)") && Contains("Psi") && Contains("group_norm1(grad(x))") &&
                      Contains("conv(k[5x5], x)") && Contains("tau") && Contains("FFT solve"));
    CHECK_THAT(pg::describe(prob, pg::Algorithm::ladmm), Contains("lambda") && Contains("mu"));
    CHECK_THAT(pg::describe(prob, pg::Algorithm::admm), Contains("conjugate gradient") && Contains("rho"));
    auto denoise = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x));
    CHECK_THAT(pg::describe(denoise, pg::Algorithm::hqs), Contains("DCT solve (exact"));
}

TEST_CASE("a typed problem in two variables is written as IR with both and planned", "[plan][variables]") {
    auto x = pg::variable(6, 5);
    auto y = pg::variable(6, 5);
    const pg::Image b({6, 5});
    auto prob = pg::sum_squares(x - y) + pg::norm1(pg::grad(y)) + pg::sum_squares(x - b);
    STATIC_REQUIRE(std::is_same_v<pg::traits::linear_traits<decltype(x - y)>::variable, pg::traits::several_variables>);
    const pg::plan::Draft d = pg::typed::to_draft(prob);
    REQUIRE(d.variables.size() == 2);
    CHECK(d.variables[0].name == "x");
    CHECK(d.variables[1].name == "y");
    CHECK(d.terms[0].expr.args[0].variable == 0);
    CHECK(d.terms[0].expr.args[1].args[0].variable == 1);
    CHECK(d.terms[1].expr.args[0].variable == 1);
    CHECK(d.terms[2].expr.args[0].variable == 0);
    const pg::ir::Problem p = pg::plan::plan(d, pg::Algorithm::pock_chambolle);
    CHECK(p.variables.size() == 2);
    CHECK(p.variable_shape == std::vector<int>{60});  // the stacked state
    // the coupling term x - y is split; each one-variable quadratic stays in the x-update
    REQUIRE(p.psi.size() == 2);
    CHECK(pg::ir::variables_of(p.psi[0].expr) == std::vector<int>{0, 1});
    // ADMM absorbs the coupling quadratic: a joint solve by CG
    const pg::ir::Problem q = pg::plan::plan(d, pg::Algorithm::admm);
    CHECK(q.omega.size() == 2);
    CHECK(q.x_update == pg::plan::XUpdate::cg);
}
