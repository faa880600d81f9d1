// A problem file is the typed problem it writes: typed problems of the test suite
// (tests/equivalence_problems.hpp's, with the same data bound by name) written in the text syntax
// and as a JSON node graph describe the same plan for every algorithm (or fail with the same
// sentence), and solve to bitwise-equal iterates. The run-time API's own equivalence to the typed
// DSL is tests/test_runtime_equivalence.cpp; this closes the loop from the files' side.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/proxgen.hpp>

#include "../test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
namespace fe = proxgen::frontend;
using pg::Image;
using pg::test::random_image;

namespace {

constexpr pg::Algorithm all_algorithms[] = {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm,
                                            pg::Algorithm::admm, pg::Algorithm::hqs};
constexpr int W = 20, H = 16;

/// The data of equivalence_problems.hpp, by the names the texts use.
fe::Bindings data() {
    fe::Bindings d;
    d.inputs["b"] = random_image({W, H}, 101, 0, 1);
    d.inputs["k"] = random_image({5, 5}, 100, 0, 0.08f);
    d.inputs["w"] = random_image({W, H}, 103, 0.2f, 1.5f);
    d.inputs["g"] = random_image({W, H, 2}, 104);
    d.inputs["wg"] = random_image({W, H, 2}, 110, 0.2f, 1.5f);
    Image counts({W, H});
    for (std::size_t i = 0; i < counts.size(); ++i) counts.data()[i] = float((i * 7919) % 40);
    d.inputs["counts"] = counts;
    return d;
}

/// `what` for algorithm a: the plan's text, or the error's sentence.
template <class Describe>
std::string plan_or_error(Describe&& describe) {
    try {
        return describe();
    } catch (const pg::Error& e) {
        return std::string("error: ") + e.what();
    }
}

bool same_bits(const Image& a, const Image& b) {
    return a.sizes() == b.sizes() && (a.size() == 0 || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

std::string read(const std::string& path) {
    std::ifstream f(path);
    std::ostringstream s;
    s << f.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("typed problems written as text describe the same plans", "[frontend][typed]") {
    const fe::Bindings d = data();
    const Image &b = d.inputs.at("b"), &k = d.inputs.at("k"), &w = d.inputs.at("w"), &g = d.inputs.at("g"),
                &wg = d.inputs.at("wg"), &counts = d.inputs.at("counts");
    auto x = pg::variable(W, H);
    // every text next to the typed expression it spells (tests/equivalence_problems.hpp's names)
    auto same = [&](const char* name, const std::string& text, const auto& typed) {
        const fe::LoadedProblem loaded = fe::parse_text("x = variable(20, 16)\n" + text, d);
        for (pg::Algorithm a : all_algorithms) {
            INFO(name << ": " << text << ", " << pg::name(a));
            CHECK(plan_or_error([&] { return rt::describe(loaded.problem, a); }) ==
                  plan_or_error([&] { return pg::describe(typed, a); }));
        }
    };
    same("tv_denoise", "sum_squares(x - b) + 0.1 * group_norm1(grad(x))", sum_squares(x - b) + 0.1f * group_norm1(grad(x)));
    same("tv_deconv_nonneg", "sum_squares(conv(k, x) - b) + 0.005 * group_norm1(grad(x)) + nonneg(x)",
         sum_squares(conv(k, x) - b) + 0.005f * group_norm1(grad(x)) + nonneg(x));
    same("poisson_tv", "poisson_norm(conv(k, x), counts) + 0.02 * group_norm1(grad(x))",
         poisson_norm(conv(k, x), counts) + 0.02f * group_norm1(grad(x)));
    same("anisotropic", "sum_squares(x - b) + 0.1 * norm1(grad(x))", sum_squares(x - b) + 0.1f * norm1(grad(x)));
    same("masked_conv", "sum_squares(mul_elemwise(b, conv(k, x)) - b) + nonneg(x)",
         sum_squares(mul_elemwise(b, conv(k, x)) - b) + nonneg(x));
    same("absorbed_weights", "sum_squares(mul_elemwise(b, x) - b) + norm1(x) + nonneg(2 * x) + norm1(mul_elemwise(wg, grad(x)))",
         sum_squares(mul_elemwise(b, x) - b) + norm1(x) + nonneg(2.0f * x) + norm1(mul_elemwise(wg, grad(x))));
    same("periodic_deconv", "sum_squares(conv(k, x) - b) + 0.1 * group_norm1(grad(x, \"periodic\"))",
         sum_squares(conv(k, x) - b) + 0.1f * group_norm1(grad(x, pg::periodic)));
    same("tv_only", "group_norm1(grad(x))", group_norm1(grad(x)));  // ADMM / HQS: the same refusal
    same("merged_quadratics",
         "sum_squares(x - b) + 0.5 * sum_squares(3 * x + w) + sum_squares(grad(x)) + 0.2 * sum_squares(grad(x) - g)"
         " + 0.1 * norm1(x) + sum_squares(conv(k, x)) + sum_squares(conv(k, x) - b)",
         sum_squares(x - b) + 0.5f * sum_squares(3.0f * x + w) + sum_squares(grad(x)) + 0.2f * sum_squares(grad(x) - g) +
             0.1f * norm1(x) + sum_squares(conv(k, x)) + sum_squares(conv(k, x) - b));
    same("scaled_offset_weights", "3 * norm1(2 * (mul_elemwise(w, x) - b)) + sum_squares(x) + group_norm1(grad(x) - g)",
         3.0f * norm1(2.0f * (mul_elemwise(w, x) - b)) + sum_squares(x) + group_norm1(grad(x) - g));
    same("penalties", "huber(x - b, 0.3) + box(x, 0, 1) + 0.01 * sum_entries(x) + least_squares(conv(k, x) - b)",
         huber(x - b, 0.3f) + box(x, 0.0f, 1.0f) + 0.01f * sum_entries(x) + least_squares(conv(k, x) - b));
    same("weighted_penalties",
         "weighted_sum_squares(w, x - b) + 0.1 * weighted_norm1(wg, grad(x)) + weighted_nonneg(w, x)"
         " + 0.1 * weighted_group_norm1(w, grad(x))",
         weighted_sum_squares(w, x - b) + 0.1f * weighted_norm1(wg, grad(x)) + weighted_nonneg(w, x) +
             0.1f * weighted_group_norm1(w, grad(x)));
    same("offsets_inside", "sum_squares(conv(k, x - b) + w) + 0.1 * group_norm1(grad(b - x)) + sum_squares(b + x - w)",
         sum_squares(conv(k, x - b) + w) + 0.1f * group_norm1(grad(b - x)) + sum_squares(b + x - w));
}

TEST_CASE("the example node graph and its text solve to the typed problem's iterates, bitwise", "[frontend][typed]") {
    // One structure (one set of JIT kernels, shared by all three: the same signature), Pock-Chambolle.
    fe::Bindings d = data();
    d.inputs["kernel"] = d.inputs.at("k");
    d.inputs["blurred"] = d.inputs.at("b");
    const Image &b = d.inputs.at("b"), &k = d.inputs.at("k");
    auto x = pg::variable(W, H);
    const auto typed = sum_squares(conv(k, x) - b) + 0.002f * group_norm1(grad(x)) + nonneg(x);
    const fe::LoadedProblem graph = fe::parse_json(read(PROXGEN_SOURCE_DIR "/examples/node_graph/deblur.json"), d);
    const fe::LoadedProblem text =
        fe::parse_text("sum_squares(conv(k, x) - b) + 0.002 * group_norm1(grad(x)) + nonneg(x)", d);
    for (pg::Algorithm a : all_algorithms) {
        INFO(pg::name(a));
        CHECK(rt::describe(graph.problem, a) == pg::describe(typed, a));
        CHECK(rt::describe(text.problem, a) == pg::describe(typed, a));
    }
    pg::Options opt = pg::test::fixed_iterations(pg::Algorithm::pock_chambolle, 8);
    opt.check_every = 4;
    const pg::Result from_typed = pg::solve(typed, opt);
    const pg::Result from_graph = rt::solve(graph.problem, opt), from_text = rt::solve(text.problem, opt);
    CHECK(from_graph.iterations == from_typed.iterations);
    CHECK(same_bits(from_graph["x"], from_typed[x]));
    CHECK(same_bits(from_text["x"], from_typed[x]));
    CHECK(pg::objective(typed, from_typed) == rt::objective(graph.problem, from_graph));
}
