// haar(e, levels), the orthonormal multi-level Haar wavelet transform: its forward against a
// scalar float64 transform, orthonormality (WᵀW = I, ‖Wx‖ = ‖x‖, the exact adjoint), the plan it
// gives (an elementwise ADMM x-update), and the sparsity-prior denoiser it makes — whose exact
// answer is known: argmin ‖x − b‖² + λ‖W x‖₁ = Wᵀ soft(W b, λ/2) — reached by every algorithm and
// front end.
#include <catch2/catch.hpp>

#include <cstring>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/lower/evaluate.hpp>

#include "adjoint_check.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
using pg::test::dot;
using pg::test::norm;
using pg::test::random_image;

namespace {

/// The transform computed the plain way, in float64: level l replaces the top-left
/// (W/2^(l−1)) × (H/2^(l−1)) block by (a + sx b + sy c + sx sy d)/2 in the subband of signs
/// (sx, sy), (a, b; c, d) the 2 × 2 block the subband pixel stands for.
std::vector<double> haar_reference(const pg::Image& img, int levels) {
    const int W = img.width(), H = img.height(), C = img.channels();
    std::vector<double> v(img.data(), img.data() + img.size());
    for (int l = 1; l <= levels; ++l) {
        const int w = W >> (l - 1), h = H >> (l - 1);
        std::vector<double> next = v;
        for (int c = 0; c < C; ++c)
            for (int y = 0; y < h / 2; ++y)
                for (int x = 0; x < w / 2; ++x) {
                    auto at = [&](int i, int j) { return v[std::size_t(c) * W * H + std::size_t(j) * W + i]; };
                    const double a = at(2 * x, 2 * y), b = at(2 * x + 1, 2 * y), cc = at(2 * x, 2 * y + 1),
                                 d = at(2 * x + 1, 2 * y + 1);
                    auto put = [&](int i, int j, double value) { next[std::size_t(c) * W * H + std::size_t(j) * W + i] = value; };
                    put(x, y, 0.5 * (a + b + cc + d));
                    put(x + w / 2, y, 0.5 * (a - b + cc - d));
                    put(x, y + h / 2, 0.5 * (a + b - cc - d));
                    put(x + w / 2, y + h / 2, 0.5 * (a - b - cc + d));
                }
        v = std::move(next);
    }
    return v;
}

/// Wᵀ soft(W b, t) by the reference transform: the exact minimiser of ‖x − b‖² + 2t ‖W x‖₁.
pg::Image soft_threshold_in_wavelets(const pg::Image& b, int levels, double t, const pg::ir::Node& haar_x) {
    const std::vector<double> wb = haar_reference(b, levels);
    pg::Image shrunk(b.sizes());
    for (std::size_t i = 0; i < wb.size(); ++i) {
        const double s = wb[i];
        shrunk.data()[i] = float(std::copysign(std::max(std::abs(s) - t, 0.0), s));
    }
    return pg::lower::apply_adjoint(haar_x, shrunk);
}

}  // namespace

TEST_CASE("haar: the forward is the multi-level Haar transform, orthonormal, with the exact adjoint", "[haar]") {
    for (auto [w, h, c, levels] : {std::tuple{16, 8, 1, 3}, {24, 40, 3, 2}, {2, 2, 1, 1}, {64, 32, 1, 5}}) {
        INFO(w << "x" << h << "x" << c << ", " << levels << " levels");
        const std::vector<int> shape = c == 1 ? std::vector<int>{w, h} : std::vector<int>{w, h, c};
        const pg::Image x = random_image(shape, unsigned(w + levels));
        const pg::ir::Node n = c == 1 ? pg::typed::to_ir(pg::haar(pg::variable(w, h), levels))
                                      : pg::typed::to_ir(pg::haar(pg::variable(w, h, c), levels));
        const pg::Image wx = pg::lower::apply_linear(n, x);
        const std::vector<double> ref = haar_reference(x, levels);
        for (std::size_t i = 0; i < wx.size(); ++i) REQUIRE(wx.data()[i] == Approx(ref[i]).margin(1e-5));
        CHECK(norm(wx) == Approx(norm(x)).epsilon(1e-5));                       // an isometry
        const pg::Image back = pg::lower::apply_adjoint(n, wx);                 // WᵀW = I
        for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(back.data()[i] == Approx(x.data()[i]).margin(1e-5));
        CHECK(pg::plan::norm_bound(n) == 1.0);
    }
    for (auto [w, h] : {std::pair{16, 8}, {32, 32}}) {
        auto x = pg::variable(w, h);
        pg::test::check_adjoint(pg::haar(x, 2), {w, h}, 7, {.nonzero = true, .norm_bound = true});
        pg::test::check_adjoint(pg::haar(pg::grad(x), 1), {w, h}, 8, {.nonzero = true, .norm_bound = true});
    }
    // a constant image keeps only the coarsest average: 2^levels times the value
    pg::Image ones({16, 16});
    for (std::size_t i = 0; i < ones.size(); ++i) ones.data()[i] = 1.0f;
    const pg::Image coarse = pg::lower::apply_linear(pg::typed::to_ir(pg::haar(pg::variable(16, 16), 3)), ones);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) CHECK(coarse(x, y) == Approx(x < 2 && y < 2 ? 8.0 : 0.0).margin(1e-6));
}

TEST_CASE("haar: sizes not divisible by 2^levels are refused with a sentence", "[haar]") {
    CHECK_THROWS_WITH(pg::haar(pg::variable(12, 8), 3), Catch::Contains("3 levels need a width and height divisible by 2^3 = 8"));
    CHECK_THROWS_WITH(pg::haar(pg::variable(16, 8), 0), Catch::Contains("levels must be between 1 and 16"));
    const rt::Expr x = rt::variable("x", {10, 10});
    CHECK_THROWS_WITH(rt::call("haar", {x, 2.0}), Catch::Contains("divisible by 2^2 = 4"));
    CHECK_THROWS_WITH(rt::call("haar", {x, 1.5}), Catch::Contains("'levels' must be an integer"));
}

TEST_CASE("haar: norm1(haar(x)) keeps ADMM's x-update elementwise, and every algorithm and front end reaches "
          "Wᵀ soft(W b)", "[haar]") {
    const int W = 32, H = 24, levels = 3;
    const float lambda = 0.3f;
    const pg::Image b = random_image({W, H}, 11);
    auto x = pg::variable(W, H);
    const auto typed = pg::sum_squares(x - b) + lambda * pg::norm1(pg::haar(x, levels));
    CHECK_THAT(pg::describe(typed, pg::Algorithm::admm), Catch::Contains("elementwise solve"));
    const pg::Image exact = soft_threshold_in_wavelets(b, levels, lambda / 2, pg::typed::to_ir(pg::haar(x, levels)));
    const double f_exact = pg::objective(typed, exact);

    // the same problem at run time, by name and as a problem file
    const rt::Expr xr = rt::variable("x", {W, H});
    const rt::Problem by_name = rt::sum_squares(xr - rt::input("b", b)) +
                                lambda * std::get<rt::Problem>(rt::call("norm1", {std::get<rt::Expr>(rt::call("haar", {xr, double(levels)}))}));
    pg::frontend::Bindings data;
    data.inputs["b"] = b;
    const rt::Problem from_text =
        pg::frontend::parse_text("x = variable(32, 24)\nsum_squares(x - b) + 0.3 * norm1(haar(x, 3))\n", data).problem;
    const rt::Problem from_json = pg::frontend::parse_json(R"({
        "nodes": [
            {"id": "x", "op": "variable", "shape": [32, 24]},
            {"id": "b", "op": "input"},
            {"id": "residual", "op": "subtract", "inputs": {"a": "x", "b": "b"}},
            {"id": "wavelets", "op": "haar", "inputs": {"e": "x"}, "params": {"levels": 3}},
            {"id": "data", "op": "sum_squares", "inputs": {"e": "residual"}},
            {"id": "sparse", "op": "norm1", "inputs": {"e": "wavelets"}, "weight": 0.3}
        ],
        "objective": ["data", "sparse"]})", data).problem;
    for (pg::Algorithm a : {pg::Algorithm::admm, pg::Algorithm::ladmm, pg::Algorithm::pock_chambolle, pg::Algorithm::hqs}) {
        INFO(pg::name(a));
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 3000;
        opt.eps_abs = opt.eps_rel = 1e-7;
        const pg::Result r = pg::solve(typed, opt);
        // HQS's continuation stops at a finite penalty: an approximate minimiser, as everywhere
        const bool hqs = a == pg::Algorithm::hqs;
        CHECK(pg::objective(typed, r) - f_exact <= (hqs ? 1e-3 : 1e-4) * std::abs(f_exact));
        double err = 0;
        for (std::size_t i = 0; i < exact.size(); ++i) err = std::max(err, double(std::abs(r.x.data()[i] - exact.data()[i])));
        CHECK(err < (hqs ? 2e-2 : 2e-3));
        // run-time problems plan and iterate bitwise as the typed one
        opt.max_iters = 30;
        opt.eps_abs = opt.eps_rel = 0;
        const pg::Result t = pg::solve(typed, opt), n = rt::solve(by_name, opt), f = rt::solve(from_text, opt),
                         j = rt::solve(from_json, opt);
        CHECK(std::memcmp(t.x.data(), n.x.data(), t.x.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(t.x.data(), f.x.data(), t.x.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(t.x.data(), j.x.data(), t.x.size() * sizeof(float)) == 0);
    }
}
