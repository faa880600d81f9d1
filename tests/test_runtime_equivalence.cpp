// The typed DSL and the run-time API share one planner: every problem of equivalence_problems.hpp
// (the test suite's typed problems, the canonical problems, the examples' problems and the rest of
// the catalogue), built through both front ends from the same tokens, plans to the same ir::Problem
// for every algorithm (every field the back end reads, images bitwise), describes the same, fails
// with the same sentence where it cannot be planned, and — for a subset, to keep CI fast — solves
// to bitwise-equal iterates. Planning typed problems also checks, inside detail::plan_for, that the
// run-time decisions equal plan_t's compile-time ones.
#include <catch2/catch.hpp>

#include <cstring>
#include <set>

#include <proxgen/proxgen.hpp>

#include "equivalence_problems.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;

namespace {

constexpr pg::Algorithm all_algorithms[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm,
                                            pg::Algorithm::admm, pg::Algorithm::hqs};

template <int R>
auto typed_variable(const std::vector<int>& s) {
    if constexpr (R == 2) return pg::variable(s[0], s[1]);
    else return pg::variable(s[0], s[1], s[2]);
}

bool same_bits(const pg::Image& a, const pg::Image& b) {
    return a.sizes() == b.sizes() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void require_same_node(const pg::ir::Node& a, const pg::ir::Node& b) {
    INFO(pg::ir::to_string(a) << " vs " << pg::ir::to_string(b));
    REQUIRE(a.op == b.op);
    CHECK(a.shape == b.shape);
    CHECK(same_bits(a.image, b.image));
    CHECK(same_bits(double(a.scalar), double(b.scalar)));
    CHECK(a.ints == b.ints);
    CHECK(a.image_slot == b.image_slot);
    CHECK(a.scalar_slot == b.scalar_slot);
    CHECK(a.variable == b.variable);
    CHECK(same_bits(a.norm_factor, b.norm_factor));
    REQUIRE(a.args.size() == b.args.size());
    for (std::size_t i = 0; i < a.args.size(); ++i) require_same_node(a.args[i], b.args[i]);
}

void require_same_terms(const std::vector<pg::ir::Term>& a, const std::vector<pg::ir::Term>& b) {
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        const pg::ir::Term &s = a[i], &t = b[i];
        INFO("term " << s.text);
        CHECK(s.text == t.text);
        CHECK(s.penalty == t.penalty);
        CHECK(same_bits(double(s.weight), double(t.weight)));
        CHECK(same_bits(double(s.beta), double(t.beta)));
        CHECK(same_bits(s.arg_weight, t.arg_weight));
        CHECK(same_bits(s.offset, t.offset));
        CHECK(same_bits(s.data, t.data));
        CHECK(same_bits(s.norm_bound, t.norm_bound));
        CHECK(same_bits(s.constant, t.constant));
        CHECK(s.weight_slot == t.weight_slot);
        CHECK(s.beta_slot == t.beta_slot);
        CHECK(s.arg_weight_slot == t.arg_weight_slot);
        CHECK(s.offset_slot == t.offset_slot);
        CHECK(s.data_slot == t.data_slot);
        require_same_node(s.expr, t.expr);
    }
}

/// Every field of the planned problem that the back end reads.
void require_same_plan(const pg::ir::Problem& a, const pg::ir::Problem& b) {
    CHECK(pg::ir::signature(a) == pg::ir::signature(b));
    CHECK(a.algorithm == b.algorithm);
    CHECK(a.x_update == b.x_update);
    CHECK(a.variable_shape == b.variable_shape);
    REQUIRE(a.variables.size() == b.variables.size());
    CHECK(a.variables[0].name == b.variables[0].name);
    CHECK(same_bits(a.omega_strong_convexity, b.omega_strong_convexity));
    CHECK(a.image_slots == b.image_slots);
    CHECK(a.scalar_slots == b.scalar_slots);
    require_same_terms(a.omega, b.omega);
    require_same_terms(a.psi, b.psi);
}

void require_same_result(const pg::Result& a, const pg::Result& b) {
    CHECK(a.iterations == b.iterations);
    CHECK(a.status == b.status);
    CHECK(same_bits(a.x, b.x));
    CHECK(same_bits(a.primal_residual, b.primal_residual));
    CHECK(same_bits(a.dual_residual, b.dual_residual));
    REQUIRE(a.steps.size() == b.steps.size());
    for (std::size_t i = 0; i < a.steps.size(); ++i) CHECK(same_bits(a.steps[i], b.steps[i]));
}

}  // namespace

TEST_CASE("every typed test problem plans and describes the same through the run-time API", "[runtime][equivalence]") {
    int problems = 0;
    pg::test::for_each_problem([&](const char* name, auto rank, const std::vector<int>& shape, auto make, const pg::Image&) {
        ++problems;
        const auto typed = make(typed_variable<decltype(rank)::value>(shape));
        const rt::Problem run = make(rt::variable("x", shape));
        for (pg::Algorithm a : all_algorithms) {
            INFO(name << ", " << pg::name(a));
            std::string typed_error, run_error;
            pg::ir::Problem pt, pr;
            try {
                pt = pg::detail::plan_for(pg::detail::normalized(typed), a);
            } catch (const pg::Error& e) {
                typed_error = e.what();
            }
            try {
                pr = rt::plan(run, a);
            } catch (const pg::Error& e) {
                run_error = e.what();
            }
            CHECK(typed_error == run_error);
            if (!typed_error.empty() || !run_error.empty()) continue;
            require_same_plan(pt, pr);
            CHECK(pg::describe(typed, a) == rt::describe(run, a));
        }
    });
    CHECK(problems >= 25);
}

TEST_CASE("typed and run-time solves return bitwise-equal iterates", "[runtime][equivalence]") {
    // A subset: every structure costs JIT compilations (shared by both front ends: one signature),
    // and equal plans (above) already mean equal solves, the back end being a function of the plan.
    // TV denoising with every algorithm, Poisson (x0) and colour demosaicking with one.
    const std::set<std::string> every_algorithm{"tv_denoise"};
    const std::set<std::string> pock_chambolle{"poisson_tv", "demosaicking"};
    pg::test::for_each_problem([&](const char* name, auto rank, const std::vector<int>& shape, auto make,
                                   const pg::Image& x0) {
        const bool all = every_algorithm.count(name), pc = pock_chambolle.count(name);
        if (!all && !pc) return;
        auto x = typed_variable<decltype(rank)::value>(shape);
        const auto typed = make(x);
        const rt::Expr rx = rt::variable("x", shape);
        const rt::Problem run = make(rx);
        for (pg::Algorithm a : all_algorithms) {
            if (!all && a != pg::Algorithm::pock_chambolle) continue;
            INFO(name << ", " << pg::name(a));
            pg::Options opt = pg::test::fixed_iterations(a, 6);
            opt.check_every = 3;
            opt.x0 = x0;
            const pg::Result rt_ = pg::solve(typed, opt);
            const pg::Result rr = rt::solve(run, opt);
            require_same_result(rt_, rr);
            CHECK(same_bits(rt_[x], rr[rx]));
            CHECK(same_bits(rr["x"], rr.x));
            CHECK(same_bits(pg::objective(typed, rt_), rt::objective(run, rr)));
            // and a warm start continues the same way
            const pg::Result wt = pg::solve(typed, opt, rt_), wr = rt::solve(run, opt, rr);
            require_same_result(wt, wr);
        }
    });
}
