// Which data slots of a generated solver are the user's named data as written (aot::data_sources):
// read off the planning map's derivative and checked against the slot's value, through the rewrite
// rules (offsets negated and scaled, weights and parameters absorbed, quadratics merged).
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <proxgen/proxgen.hpp>
#include <proxgen/aot/generator.hpp>
#include <proxgen/runtime.hpp>

#include "aot/data_sources.hpp"
#include "plan/slot_jacobian.hpp"
#include "runtime/nodes.hpp"

namespace pg = proxgen;
namespace rt = pg::rt;

namespace {

pg::Image ramp(int w, int h, float scale) {
    pg::Image img({w, h});
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = scale * float(int(i % 7) - 3) + 0.25f;
    return img;
}

/// The sources of every slot of the generated plan that has one, as "name*factor" texts by slot kind.
std::vector<std::string> described(const pg::aot::DataSources& s) {
    std::vector<std::string> out;
    for (const auto* list : {&s.images, &s.scalars})
        for (const auto& slot : *list) {
            std::string t;
            for (const auto& src : slot) t += (t.empty() ? "" : "+") + fmt::format("{}*{:g}", src.name, src.factor);
            if (!t.empty()) out.push_back((list == &s.images ? "image " : "scalar ") + t);
        }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

TEST_CASE("data sources: the README deconvolution names b (offset -b), k and lambda") {
    const rt::Expr x = rt::variable("x", {16, 16});
    const rt::Data k = rt::input("k", ramp(3, 3, 0.1f)), b = rt::input("b", ramp(16, 16, 1.0f));
    const rt::Scalar lambda = rt::parameter("lambda", 0.002);
    const rt::Problem prob = rt::sum_squares(rt::conv(k, x) - b) + lambda * rt::group_norm1(rt::grad(x)) + rt::nonneg(x);
    for (const pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm}) {
        const pg::aot::DataSources s = pg::aot::data_sources(prob, a);
        CHECK(described(s) == std::vector<std::string>{"image b*-1", "image k*1", "scalar lambda*1"});
    }
}

TEST_CASE("data sources: scaled offsets, merged quadratics and absorbed weights keep their factors") {
    const rt::Expr x = rt::variable("x", {8, 8});
    const rt::Data b = rt::input("b", ramp(8, 8, 1.0f)), d = rt::input("d", ramp(8, 8, -0.5f));
    const rt::Data m = rt::input("m", ramp(8, 8, 0.0f));  // 0.25 everywhere: a mask-like weight
    const rt::Scalar mu = rt::parameter("mu", 0.3);
    // two quadratics on x merge into one term whose offset is -(b + d)/2; 2 (x − b) scales it by 2
    const rt::Problem merged = rt::sum_squares(x - b) + rt::sum_squares(x - d) + mu * rt::norm1(rt::grad(x));
    CHECK(described(pg::aot::data_sources(merged, pg::Algorithm::pock_chambolle)) ==
          std::vector<std::string>{"image b*-0.5+d*-0.5", "scalar mu*1"});
    const rt::Problem weighted = rt::sum_squares(rt::mul_elemwise(m, x) - b) + 0.5 * (mu * rt::norm1(rt::grad(x)));
    CHECK(described(pg::aot::data_sources(weighted, pg::Algorithm::ladmm)) ==
          std::vector<std::string>{"image b*-1", "image m*1", "scalar mu*0.5"});
}

TEST_CASE("data sources: a slot the named data do not make alone keeps its derived field") {
    const rt::Expr x = rt::variable("x", {8, 8});
    const rt::Data b = rt::input("b", ramp(8, 8, 1.0f));
    // the offset −b − c mixes b with an unnamed image: not b times a constant
    const pg::Image c = ramp(8, 8, 2.0f);
    const rt::Problem prob = rt::sum_squares(x - b - c) + 0.1 * rt::norm1(rt::grad(x));
    CHECK(described(pg::aot::data_sources(prob, pg::Algorithm::pock_chambolle)).empty());
}

// ---- typed problems name their data with pg::input and pg::parameter ------------------------------

namespace {
/// A typed problem's terms as written, as the run-time problem the generator makes of them.
template <class P>
rt::Problem as_named(const P& problem) {
    const auto n = pg::detail::normalized(problem);
    return rt::detail::problem_of_terms(pg::typed::to_draft(n), pg::aot::named_weights(n));
}
}  // namespace

TEST_CASE("data sources: a typed problem's pg::input and pg::parameter are the named data of the run-time one") {
    const pg::Image k = ramp(3, 3, 0.1f), b = ramp(16, 16, 1.0f);
    auto x = pg::variable(16, 16);
    const auto typed = pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b)) +
                       pg::parameter("lambda", 0.002) * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const rt::Problem named = as_named(typed);
    CHECK(named.inputs() == std::vector<std::string>{"b", "k"});
    CHECK(named.parameters() == std::vector<std::string>{"lambda"});
    CHECK(named.input("b").data() == b.data());  // the user's image, not a copy
    for (const pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm}) {
        CHECK(described(pg::aot::data_sources(named, a)) ==
              std::vector<std::string>{"image b*-1", "image k*1", "scalar lambda*1"});
        // the same plan as the typed front end's, weights included
        const pg::ir::Problem from_typed = pg::detail::plan_for(pg::detail::normalized(typed), a);
        const pg::ir::Problem from_named = rt::plan(named, a);
        CHECK(pg::ir::signature(from_typed) == pg::ir::signature(from_named));
        for (std::size_t i = 0; i < from_typed.psi.size(); ++i) CHECK(from_typed.psi[i].weight == from_named.psi[i].weight);
        for (std::size_t i = 0; i < from_typed.omega.size(); ++i)
            CHECK(from_typed.omega[i].weight == from_named.omega[i].weight);
    }
}

TEST_CASE("data sources: pg::parameter weighs a problem's every term and scales like a number") {
    const pg::Image b = ramp(8, 8, 1.0f);
    auto x = pg::variable(8, 8);
    const auto typed = 0.5 * (pg::parameter("mu", 0.3) * (pg::sum_squares(x - pg::input("b", b)) + pg::norm1(pg::grad(x))));
    const auto plain = 0.5 * (0.3 * (pg::sum_squares(x - b) + pg::norm1(pg::grad(x))));
    // solving ignores the names: the same iterates as the unnamed problem
    pg::Options opt;
    opt.max_iters = 20;
    const pg::Result with_names = pg::solve(typed, opt), without = pg::solve(plain, opt);
    CHECK(std::equal(with_names.x.data(), with_names.x.data() + with_names.x.size(), without.x.data()));
    const rt::Problem named = as_named(typed);
    CHECK(named.parameters() == std::vector<std::string>{"mu"});
    const std::vector<std::string> sources = described(pg::aot::data_sources(named, pg::Algorithm::pock_chambolle));
    CHECK(std::find(sources.begin(), sources.end(), "scalar mu*0.5") != sources.end());
}

TEST_CASE("data sources: bad names in a typed problem are errors naming them") {
    const pg::Image b = ramp(8, 8, 1.0f);
    auto x = pg::variable(8, 8);
    CHECK_THROWS_WITH(pg::input("", b), Catch::Contains("the name is empty"));
    CHECK_THROWS_WITH(pg::input("b", pg::Image()), Catch::Contains("input 'b': the image is empty"));
    CHECK_THROWS_WITH(pg::parameter("", 1.0), Catch::Contains("the name is empty"));
    // one name for two images, an input named like the variable, a named weight of 0
    const pg::Image other = ramp(8, 8, 2.0f);
    CHECK_THROWS_WITH(as_named(pg::sum_squares(x - pg::input("b", b)) + pg::norm1(x - pg::input("b", other))),
                      Catch::Contains("input 'b' names two different images"));
    CHECK_THROWS_WITH(as_named(pg::sum_squares(x - pg::input("x", b))), Catch::Contains("'x'"));
    CHECK_THROWS_WITH(as_named(pg::parameter("mu", 0.0) * pg::sum_squares(x - b)), Catch::Contains("parameter 'mu' is 0"));
}
