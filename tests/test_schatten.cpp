// schatten(e, p), the Schatten-p norm of per-pixel matrices: its prox against the subgradient of
// the norm (G = (M − Z)/τ ∈ ∂‖Z‖_p ⇔ ‖G‖ in the dual norm ≤ 1 and ⟨G, Z⟩ = ‖Z‖_p, the duals of
// Schatten 1, 2, ∞ being ∞, 2, 1), its value, its equivalences (a grey image's nuclear norm of
// grad is the isotropic TV; Schatten-2 is the Frobenius norm, group_norm1 over both axes), and the
// vectorial TV of a colour image reached by every algorithm and front end.
#include <catch2/catch.hpp>

#include <proxgen/frontend/problem_file.hpp>
#include <proxgen/lower/evaluate.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;
using pg::test::random_image;

namespace {

/// A pixel's m × 2 matrix M(c, j) of a W × H × m × 2 image.
struct Matrix {
    std::vector<double> v;  // m rows × 2 columns, row-major
    int m = 0;
    double at(int c, int j) const { return v[std::size_t(c) * 2 + j]; }
};

Matrix pixel(const pg::Image& img, int x, int y) {
    Matrix M;
    M.m = img.extent(2);
    for (int c = 0; c < M.m; ++c)
        for (int j = 0; j < 2; ++j) M.v.push_back(img.buffer()(x, y, c, j));
    return M;
}

/// Singular values (s1 ≥ s2) of an m × 2 matrix, in float64.
std::pair<double, double> singular_values(const Matrix& M) {
    double a = 0, b = 0, d = 0;
    for (int c = 0; c < M.m; ++c) {
        a += M.at(c, 0) * M.at(c, 0);
        b += M.at(c, 0) * M.at(c, 1);
        d += M.at(c, 1) * M.at(c, 1);
    }
    const double mean = 0.5 * (a + d), r = std::sqrt(0.25 * (a - d) * (a - d) + b * b);
    return {std::sqrt(std::max(mean + r, 0.0)), std::sqrt(std::max(mean - r, 0.0))};
}

/// The Schatten p-norm (p = 0 for ∞).
double schatten_norm(const Matrix& M, int p) {
    const auto [s1, s2] = singular_values(M);
    return p == 1 ? s1 + s2 : p == 2 ? std::hypot(s1, s2) : s1;
}

}  // namespace

TEST_CASE("schatten prox: (M − Z)/τ is a subgradient of the Schatten p-norm at Z", "[schatten][prox]") {
    const int W = 7, H = 5, m = 3;
    const pg::Image v = random_image({W, H, m, 2}, 3, -2.0f, 2.0f);
    const auto& card = pg::catalogue::card<pg::catalogue::penalties::schatten>();
    for (int p : {1, 2, 0}) {
        for (auto [alpha, rho] : {std::pair{0.7f, 1.0f}, {2.5f, 0.5f}, {0.05f, 1.0f}}) {
            INFO("p " << (p ? std::to_string(p) : "inf") << ", alpha " << alpha << ", rho " << rho);
            pg::lower::ProxData data;
            data.ints = {p, 2};
            const pg::Image z = pg::lower::apply_prox(card, alpha, rho, v, data);
            const double tau = alpha / rho;
            const int dual = p == 1 ? 0 : p == 2 ? 2 : 1;
            for (int y = 0; y < H; ++y)
                for (int x = 0; x < W; ++x) {
                    const Matrix M = pixel(v, x, y), Z = pixel(z, x, y);
                    Matrix G = M;
                    double inner = 0;
                    for (std::size_t i = 0; i < G.v.size(); ++i) {
                        G.v[i] = (M.v[i] - Z.v[i]) / tau;
                        inner += G.v[i] * Z.v[i];
                    }
                    CHECK(schatten_norm(G, dual) <= 1 + 1e-4);
                    CHECK(inner == Approx(schatten_norm(Z, p)).margin(1e-4 * (1 + schatten_norm(M, p))));
                }
        }
    }
}

TEST_CASE("schatten: one singular value (a row or a column per pixel) is the group norm, for every p", "[schatten]") {
    auto x = pg::variable(12, 9);
    const pg::Image b = random_image({12, 9}, 5);
    for (double p : {1.0, 2.0, double(INFINITY)}) {
        INFO("p " << p);
        const auto tv = pg::sum_squares(x - b) + 0.3f * pg::group_norm1(pg::grad(x));
        const auto sch = pg::sum_squares(x - b) + 0.3f * pg::schatten(pg::grad(x), p);
        pg::Options opt;
        opt.max_iters = 25;
        opt.eps_abs = opt.eps_rel = 0;
        const pg::Result a = pg::solve(tv, opt), c = pg::solve(sch, opt);
        for (std::size_t i = 0; i < a.x.size(); ++i) REQUIRE(c.x.data()[i] == Approx(a.x.data()[i]).margin(1e-4));
        CHECK(pg::objective(sch, c) == Approx(pg::objective(tv, c)).epsilon(1e-6));
    }
}

TEST_CASE("schatten: value, refusals, and the vectorial TV of a colour image from every algorithm and front end",
          "[schatten]") {
    const int W = 16, H = 12;
    auto x = pg::variable(W, H, 3);
    // a colour image whose channels share edges, plus noise
    pg::Image clean({W, H, 3}), b({W, H, 3});
    const pg::Image noise = random_image({W, H, 3}, 9, -0.1f, 0.1f);
    for (int c = 0; c < 3; ++c)
        for (int yy = 0; yy < H; ++yy)
            for (int xx = 0; xx < W; ++xx) {
                clean(xx, yy, c) = (xx > 6) == (yy > 5) ? 0.2f + 0.3f * c : 0.8f - 0.2f * c;
                b(xx, yy, c) = clean(xx, yy, c) + noise(xx, yy, c);
            }
    // the value: Σ over pixels of each Jacobian's nuclear norm
    const auto vtv = pg::schatten(pg::grad(x), 1);
    const pg::Image g = pg::lower::apply_linear(pg::typed::to_ir(pg::grad(x)), b);
    double expected = 0;
    for (int yy = 0; yy < H; ++yy)
        for (int xx = 0; xx < W; ++xx) expected += schatten_norm(pixel(g, xx, yy), 1);
    CHECK(pg::objective(pg::sum_squares(x - b) + vtv, b) == Approx(expected).epsilon(1e-5));

    CHECK_THROWS_WITH(pg::schatten(pg::grad(x), 3.0), Catch::Contains("p must be 1, 2 or inf"));
    CHECK_THROWS_WITH(pg::schatten(pg::grad(x, pg::on_axes<0, 1, 2>), 1.0), Catch::Contains("1 or 2"));
    CHECK_THROWS_WITH(pg::schatten(pg::variable(W, H), 1.0), Catch::Contains("a matrix per pixel"));

    const auto prob = pg::sum_squares(x - b) + 0.15f * pg::schatten(pg::grad(x), 1);
    // Schatten-2 is the Frobenius norm: group_norm1 over the channels and directions together
    const auto frob = pg::sum_squares(x - b) + 0.15f * pg::schatten(pg::grad(x), 2);
    const auto merged = pg::sum_squares(x - b) + 0.15f * pg::group_norm1(pg::merge_last_axes(pg::grad(x)));
    pg::Options ref;
    ref.max_iters = 4000;
    ref.eps_abs = ref.eps_rel = 1e-8;
    const pg::Result fr = pg::solve(frob, ref), mr = pg::solve(merged, ref);
    CHECK(pg::objective(frob, fr) == Approx(pg::objective(merged, mr)).epsilon(1e-5));
    const double f_star = pg::objective(prob, pg::solve(prob, ref));

    pg::frontend::Bindings data;
    data.inputs["b"] = b;
    const rt::Problem text = pg::frontend::parse_text(
        "x = variable(16, 12, 3)\nsum_squares(x - b) + 0.15 * schatten(grad(x), 1)\n", data).problem;
    const rt::Expr xr = rt::variable("x", {W, H, 3});
    const rt::Problem by_name = rt::sum_squares(xr - rt::input("b", b)) +
                                0.15 * std::get<rt::Problem>(rt::call("schatten", {rt::grad(xr), 1.0}));
    for (pg::Algorithm a : {pg::Algorithm::admm, pg::Algorithm::ladmm, pg::Algorithm::pock_chambolle, pg::Algorithm::hqs}) {
        INFO(pg::name(a));
        pg::Options opt;
        opt.algorithm = a;
        opt.max_iters = 3000;
        opt.eps_abs = opt.eps_rel = 1e-7;
        const pg::Result r = pg::solve(prob, opt);
        CHECK(pg::objective(prob, r) - f_star <= (a == pg::Algorithm::hqs ? 1e-3 : 1e-4) * std::abs(f_star));
        opt.max_iters = 20;
        opt.eps_abs = opt.eps_rel = 0;
        const pg::Result t = pg::solve(prob, opt), f = rt::solve(text, opt), n = rt::solve(by_name, opt);
        CHECK(std::memcmp(t.x.data(), f.x.data(), t.x.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(t.x.data(), n.x.data(), t.x.size() * sizeof(float)) == 0);
    }
    // the spectral norm by name, as problem files write it
    const rt::Problem spectral = pg::frontend::parse_text(
        "x = variable(16, 12, 3)\nsum_squares(x - b) + 0.15 * schatten(grad(x), \"inf\")\n", data).problem;
    CHECK_THAT(spectral.to_string(), Catch::Contains("inf"));
}
