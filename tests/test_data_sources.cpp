// Which data slots of a generated solver are the user's named data as written (aot::data_sources):
// read off the planning map's derivative and checked against the slot's value, through the rewrite
// rules (offsets negated and scaled, weights and parameters absorbed, quadratics merged).
#include <algorithm>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <proxgen/proxgen.hpp>
#include <proxgen/runtime.hpp>

#include "aot/data_sources.hpp"
#include "plan/slot_jacobian.hpp"

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
