// Spectral x-updates (src/solve/spectral.*): for expressions diagonal in the DFT or the DCT, the
// GramSolver's x satisfies (c·I + Σ_j w_j K_jᵀK_j) x = rhs, checked with the exact (Halide) K and
// Kᵀ of lower::apply_linear / apply_adjoint, at odd, even, 1×N, N×1 and multi-channel sizes; the
// basis classification; and the singular-Gram error.
#include <algorithm>
#include <cstdlib>
#include <tuple>

#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>
#include <proxgen/typed/to_ir.hpp>

#include "../src/jit/kernel.hpp"
#include "../src/solve/spectral.hpp"
#include "proxgen/catalogue/all.hpp"
#include "test_support.hpp"

namespace pg = proxgen;
namespace sp = proxgen::spectral;
using pg::test::norm;
using pg::test::random_image;
using sp::Basis;

namespace {

struct Weighted {
    pg::ir::Node expr;
    double weight;
};

template <class E>
Weighted term(const E& e, double w) {
    return {pg::typed::to_ir(e), w};
}


/// Solves with identity·I + Σ w K_jᵀK_j and checks the residual with the exact operators.
void check_solve(Basis b, const std::vector<int>& shape, const std::vector<Weighted>& terms, double identity,
                 unsigned seed) {
    sp::GramSolver s(b, shape);
    std::string text = fmt::format("{} on {}: {}·I", sp::name(b), pg::shape_string(shape), identity);
    for (const auto& t : terms) {
        REQUIRE(sp::diagonal_in(t.expr, b));
        s.add_term(t.expr, t.weight);
        text += fmt::format(" + {}·|{}|²", t.weight, pg::ir::to_string(t.expr));
    }
    if (identity != 0) s.add_identity(identity);
    const pg::Image rhs = random_image(shape, seed);
    pg::Image x;
    s.solve(rhs, x);
    REQUIRE(x.sizes() == shape);
    pg::Image ax(shape);
    for (std::size_t i = 0; i < ax.size(); ++i) ax.data()[i] = float(identity * x.data()[i]);
    for (const auto& t : terms) {
        const pg::Image ktkx = pg::lower::apply_adjoint(t.expr, pg::lower::apply_linear(t.expr, x));
        for (std::size_t i = 0; i < ax.size(); ++i) ax.data()[i] += float(t.weight * ktkx.data()[i]);
    }
    pg::Image r(shape);
    for (std::size_t i = 0; i < r.size(); ++i) r.data()[i] = ax.data()[i] - rhs.data()[i];
    INFO(text << "  (min eigenvalue " << s.min_eigenvalue() << ", max " << s.max_eigenvalue() << ")");
    CHECK(norm(r) <= 1e-4 * norm(rhs));
}

pg::Image kernel(int kw, int kh, const std::vector<int>& shape, unsigned seed) {
    return random_image({std::min(kw, shape[0]), std::min(kh, shape[1])}, seed, 0.0f, 1.0f);
}

/// Calls f(x) with a variable of the given 2-D or 3-D shape.
template <class F>
void with_variable(const std::vector<int>& s, F&& f) {
    if (s.size() == 2) f(pg::variable(s[0], s[1]));
    else f(pg::variable(s[0], s[1], s[2]));
}

/// The fft cases on one shape: scale, conv with odd, even and 9×9 kernels, periodic grad, sums.
/// `full` = false keeps the 7 that differ most (each check JIT-compiles K and Kᵀ, which is slow).
void fft_cases(const std::vector<int>& s, unsigned seed, bool full) {
    with_variable(s, [&](auto x) {
        const auto k3 = kernel(3, 3, s, seed), k4 = kernel(4, 2, s, seed + 1), k9 = kernel(9, 9, s, seed + 2);
        const auto b = random_image(s, seed + 3);
        check_solve(Basis::fft, s, {term(x, 1.3)}, 0, ++seed);
        check_solve(Basis::fft, s, {term(pg::conv(k3, x), 1.0)}, 0.5, ++seed);
        check_solve(Basis::fft, s, {term(pg::conv(k4, x), 2.0)}, 0.5, ++seed);
        check_solve(Basis::fft, s, {term(pg::grad(x, pg::periodic), 0.8)}, 0.3, ++seed);
        // deconvolution + TV-like quadratic: the conv fixes the mean, no identity needed
        check_solve(Basis::fft, s, {term(pg::conv(k3, x), 1.0), term(pg::grad(x, pg::periodic), 0.3)}, 0, ++seed);
        // sums inside one expression: transfer amplitudes add, not |.|²
        check_solve(Basis::fft, s, {term(pg::conv(k3, x) + 0.5f * x, 1.0), term(pg::grad(x, pg::periodic), 0.5)}, 0,
                    ++seed);
        check_solve(Basis::fft, s, {term(pg::grad(x, pg::periodic) - pg::grad(pg::conv(k3, x), pg::periodic), 1.0)},
                    0.4, ++seed);
        if (!full) return;
        check_solve(Basis::fft, s, {term(2.0f * x, 0.7)}, 0, ++seed);
        check_solve(Basis::fft, s, {term(pg::conv(k9, x), 1.0)}, 0.5, ++seed);
        check_solve(Basis::fft, s, {term(pg::grad(pg::conv(k4, x), pg::periodic), 1.0)}, 0.2, ++seed);
        check_solve(Basis::fft, s, {term(pg::conv(k9, x) - b, 1.0)}, 0.1, ++seed);  // offset: no linear part
    });
}

/// Every dct case on one shape: scale, Neumann grad, sums inside and around grad, offsets.
void dct_cases(const std::vector<int>& s, unsigned seed) {
    with_variable(s, [&](auto x) {
        const auto b = random_image(s, seed + 1);
        check_solve(Basis::dct, s, {term(x, 1.3)}, 0, ++seed);
        check_solve(Basis::dct, s, {term(2.0f * x, 0.7)}, 0, ++seed);
        check_solve(Basis::dct, s, {term(pg::grad(x), 1.0)}, 0.25, ++seed);
        check_solve(Basis::dct, s, {term(0.5f * x, 1.0), term(pg::grad(x), 2.0)}, 0, ++seed);
        check_solve(Basis::dct, s, {term(pg::grad(0.5f * x + x), 1.0), term(x - b, 0.5)}, 0, ++seed);
        check_solve(Basis::dct, s, {term(pg::grad(x) + pg::grad(-3.0f * x), 0.7)}, 0.1, ++seed);
        check_solve(Basis::dct, s, {term(2.0f * pg::grad(x - b), 1.0)}, 1.0, ++seed);
    });
}

}  // namespace

// One test case per shape group, so that ctest -j runs them in parallel (each check JIT-compiles
// K and Kᵀ, which dominates the run time).
TEST_CASE("fft x-update on 32x24 and 17x9", "[spectral]") {
    fft_cases({32, 24}, 100, true);
    fft_cases({17, 9}, 200, true);
}
TEST_CASE("fft x-update on 1x16 and 16x1", "[spectral]") {
    fft_cases({1, 16}, 300, false);
    fft_cases({16, 1}, 400, false);
}
TEST_CASE("fft x-update on a 3-channel 17x9 variable", "[spectral]") { fft_cases({17, 9, 3}, 500, false); }
TEST_CASE("dct x-update on 32x24 and 17x9", "[spectral]") {
    dct_cases({32, 24}, 600);
    dct_cases({17, 9}, 700);
}
TEST_CASE("dct x-update on 1x16 and 16x1", "[spectral]") {
    dct_cases({1, 16}, 800);
    dct_cases({16, 1}, 900);
}
TEST_CASE("dct x-update on a 3-channel 17x9 variable", "[spectral]") { dct_cases({17, 9, 3}, 1000); }

TEST_CASE("planes of even width up to 128² go through the half-width complex DFT: the solution r2c gives", "[spectral]") {
    // (GramSolver reads PROXGEN_FFTW_R2C when it plans its transforms)
    for (Basis basis : {Basis::fft, Basis::dct})
        for (const std::vector<int>& shape : {std::vector<int>{64, 48, 2}, std::vector<int>{4, 6}, std::vector<int>{128, 128}}) {
            INFO(sp::name(basis) << " on " << pg::shape_string(shape));
            auto solution = [&] {
                auto x = pg::variable(shape[0], shape[1]);
                sp::GramSolver s(basis, shape);
                const auto g = basis == Basis::fft ? pg::typed::to_ir(pg::grad(x, pg::periodic)) : pg::typed::to_ir(pg::grad(x));
                if (shape.size() == 2) s.add_term(g, 1.5);
                s.add_identity(0.25);
                pg::Image out;
                s.solve(random_image(shape, 11), out);
                return out;
            };
            const pg::Image half = solution();
            ::setenv("PROXGEN_FFTW_R2C", "1", 1);
            const pg::Image r2c = solution();
            ::unsetenv("PROXGEN_FFTW_R2C");
            double diff = 0, ref = 0;
            for (std::size_t i = 0; i < half.size(); ++i) {
                diff = std::max(diff, double(std::abs(half.data()[i] - r2c.data()[i])));
                ref = std::max(ref, double(std::abs(r2c.data()[i])));
            }
            CHECK(diff <= 1e-6 * ref);
        }
}

TEST_CASE("spectral solve: strided images, in place, repeated solves", "[spectral]") {
    for (Basis basis : {Basis::fft, Basis::dct}) {
        auto x = pg::variable(32, 24);
        sp::GramSolver s(basis, {32, 24});
        const auto g = basis == Basis::fft ? pg::typed::to_ir(pg::grad(x, pg::periodic)) : pg::typed::to_ir(pg::grad(x));
        s.add_term(g, 1.0);
        s.add_identity(0.5);
        const pg::Image rhs = random_image({32, 24}, 7);
        pg::Image x1;
        s.solve(rhs, x1);
        // a crop of a larger buffer: y stride 40, not dense, and not FFTW-aligned at its start
        pg::Image::Buffer big(40, 30), big_out(40, 30);
        big.fill(0.0f);
        auto view = [](pg::Image::Buffer& buf) {
            auto v = buf.cropped(0, 3, 32).cropped(1, 2, 24);
            v.set_min(0, 0);
            return v;
        };
        pg::Image rhs_strided(view(big));
        rhs_strided.buffer().copy_from(rhs.buffer());
        pg::Image x_strided(view(big_out));
        s.solve(rhs_strided, x_strided);
        pg::Image in_place = rhs.copy();
        s.solve(in_place, in_place);
        pg::Image again;
        s.solve(rhs, again);
        for (int j = 0; j < 24; ++j)
            for (int i = 0; i < 32; ++i) {
                CHECK(x_strided(i, j) == x1(i, j));
                CHECK(in_place(i, j) == x1(i, j));
                CHECK(again(i, j) == x1(i, j));
            }
        CHECK(s.min_eigenvalue() == Approx(0.5));
        CHECK(s.max_eigenvalue() <= 8.5 + 1e-9);
    }
}

TEST_CASE("large transforms: in pieces on the thread pool give one solution, and a transform keeps its plan while "
          "a background thread measures it",
          "[spectral]") {
    // from 128² samples the reordering and the division run in pieces on the kernels' threads; from
    // 256² a background thread measures the plans without wisdom for them, for later processes:
    // this one's solves keep the plan they started with, so they round alike before and after
    for (const std::vector<int>& shape : {std::vector<int>{256, 256}, std::vector<int>{192, 128, 3}})
        for (Basis basis : {Basis::fft, Basis::dct}) {
            INFO(sp::name(basis) << " on " << pg::shape_string(shape));
            auto solver = [&] {
                sp::GramSolver s(basis, shape);
                const pg::ir::Node v = pg::catalogue::ops::variable::make(0, "x", shape);
                s.add_term(pg::catalogue::ops::grad::make(v, {0, 1}, basis == Basis::fft), 1.0);
                s.add_identity(0.5);
                return s;
            };
            const pg::Image rhs = random_image(shape, 11);
            pg::Image serial, first, after_measuring, new_solver;
            {
                pg::jit::SerialKernels one_thread;  // whole loops, a one-thread plan
                solver().solve(rhs, serial);
            }
            sp::GramSolver s = solver();
            s.solve(rhs, first);
            sp::wait_for_measured_plans();
            s.solve(rhs, after_measuring);
            solver().solve(rhs, new_solver);
            CHECK(pg::test::relative_difference(first, serial) <= 1e-6);
            CHECK(pg::test::relative_difference(after_measuring, first) == 0.0);
            CHECK(pg::test::relative_difference(new_solver, first) == 0.0);
        }
}

TEST_CASE("basis_of and common_basis", "[spectral]") {
    auto x = pg::variable(16, 12);
    const pg::Image k = random_image({3, 3}, 1), w = random_image({16, 12}, 2), b = random_image({16, 12}, 3);
    using pg::typed::to_ir;
    const auto id = to_ir(2.0f * x - b), cv = to_ir(pg::conv(k, x)), gp = to_ir(pg::grad(x, pg::periodic)),
               gn = to_ir(pg::grad(x)), mul = to_ir(pg::mul_elemwise(w, x));
    CHECK(sp::basis_of(id) == Basis::fft);  // diagonal in both; basis_of prefers fft
    CHECK(sp::basis_of(cv) == Basis::fft);
    CHECK(sp::basis_of(gp) == Basis::fft);
    CHECK(sp::basis_of(gn) == Basis::dct);
    CHECK(sp::basis_of(to_ir(pg::grad(pg::conv(k, x), pg::periodic) + pg::grad(x, pg::periodic))) == Basis::fft);
    CHECK(sp::basis_of(to_ir(pg::conv(k, pg::grad(x, pg::periodic)))) == Basis::fft);
    CHECK(sp::basis_of(to_ir(pg::grad(pg::grad(x, pg::periodic), pg::periodic))) == Basis::fft);
    CHECK(sp::basis_of(to_ir(pg::grad(0.5f * x + x) - pg::grad(x))) == Basis::dct);
    CHECK(sp::basis_of(mul) == Basis::none);
    CHECK(sp::basis_of(to_ir(pg::subsample(x, 2, 2))) == Basis::none);
    CHECK(sp::basis_of(to_ir(pg::conv(k, x) + pg::mul_elemwise(w, x))) == Basis::none);
    CHECK(sp::basis_of(to_ir(pg::grad(pg::conv(k, x)))) == Basis::none);  // conv with Neumann grad
    CHECK(sp::basis_of(to_ir(pg::grad(x) + pg::grad(x, pg::periodic))) == Basis::none);
    CHECK(sp::basis_of(to_ir(pg::grad(pg::grad(x)))) == Basis::none);  // D maps cosines to sines
    CHECK(sp::diagonal_in(id, Basis::dct));
    CHECK_FALSE(sp::diagonal_in(cv, Basis::dct));
    CHECK_FALSE(sp::diagonal_in(gn, Basis::fft));
    CHECK_FALSE(sp::diagonal_in(id, Basis::none));

    CHECK(sp::common_basis({&id}) == Basis::dct);
    CHECK(sp::common_basis({&id, &gn}) == Basis::dct);
    CHECK(sp::common_basis({&id, &cv}) == Basis::fft);
    CHECK(sp::common_basis({&cv, &gp, &id}) == Basis::fft);
    CHECK(sp::common_basis({&cv, &gn}) == Basis::none);
    CHECK(sp::common_basis({&gp, &gn}) == Basis::none);
    CHECK(sp::common_basis({&id, &mul}) == Basis::none);
    CHECK(sp::common_basis({}) == Basis::dct);
}

TEST_CASE("GramSolver rejects wrong bases and shapes", "[spectral]") {
    auto x = pg::variable(16, 12);
    sp::GramSolver f(Basis::fft, {16, 12}), d(Basis::dct, {16, 12});
    CHECK_THROWS_AS(f.add_term(pg::typed::to_ir(pg::grad(x)), 1.0), pg::Error);
    CHECK_THROWS_AS(d.add_term(pg::typed::to_ir(pg::grad(x, pg::periodic)), 1.0), pg::Error);
    CHECK_THROWS_AS(d.add_term(pg::typed::to_ir(pg::conv(random_image({3, 3}, 1), x)), 1.0), pg::Error);
    CHECK_THROWS_AS(f.add_term(pg::typed::to_ir(pg::variable(12, 16)), 1.0), pg::Error);
    CHECK_THROWS_AS(sp::GramSolver(Basis::none, {16, 12}), pg::Error);
    f.add_identity(1.0);
    pg::Image out;
    CHECK_THROWS_AS(f.solve(pg::Image({12, 16}), out), pg::Error);
}

TEST_CASE("blocks of one W x H in one solver equal a solver per block", "[spectral]") {
    // x (17×9) and y (17×9×2) stacked one after another, each with its own operator: one
    // many-transform solve over the three channels against a solver per block.
    auto x = pg::variable(17, 9);
    auto y = pg::variable(17, 9, 2);
    const pg::Image k3 = random_image({3, 3}, 21, 0.0f, 1.0f);
    for (Basis basis : {Basis::fft, Basis::dct}) {
        const pg::ir::Node gx = basis == Basis::fft ? pg::typed::to_ir(pg::conv(k3, x)) : pg::typed::to_ir(2.0f * x);
        const pg::ir::Node gy = basis == Basis::fft ? pg::typed::to_ir(pg::grad(y, pg::periodic))
                                                    : pg::typed::to_ir(pg::grad(y));
        sp::GramSolver both(basis, std::vector<std::vector<int>>{{17, 9}, {17, 9, 2}});
        CHECK(both.variable_shape() == std::vector<int>{17, 9, 3});
        both.add_term(gx, 1.5, 0);
        both.add_term(gy, 0.7, 1);
        both.add_identity(0.25);
        sp::GramSolver alone_x(basis, {17, 9}), alone_y(basis, {17, 9, 2});
        alone_x.add_term(gx, 1.5);
        alone_x.add_identity(0.25);
        alone_y.add_term(gy, 0.7);
        alone_y.add_identity(0.25);
        const pg::Image rhs = random_image({17, 9, 3}, 22);
        pg::Image rx({17, 9}), ry({17, 9, 2});
        std::copy(rhs.data(), rhs.data() + rx.size(), rx.data());
        std::copy(rhs.data() + rx.size(), rhs.data() + rhs.size(), ry.data());
        pg::Image out, ox, oy;
        both.solve(rhs, out);
        alone_x.solve(rx, ox);
        alone_y.solve(ry, oy);
        INFO(sp::name(basis));
        double worst = 0;
        for (std::size_t i = 0; i < ox.size(); ++i) worst = std::max(worst, double(std::abs(out.data()[i] - ox.data()[i])));
        for (std::size_t i = 0; i < oy.size(); ++i)
            worst = std::max(worst, double(std::abs(out.data()[ox.size() + i] - oy.data()[i])));
        CHECK(worst <= 1e-5 * (norm(ox) + norm(oy)) / std::sqrt(double(out.size())));
        // each block keeps its own operator: the blocks' solutions differ from each other's solver
        pg::Image wrong;
        alone_x.solve(pg::Image(pg::Image::Buffer(ry.data(), {17, 9})), wrong);
        double differ = 0;
        for (std::size_t i = 0; i < wrong.size(); ++i)
            differ = std::max(differ, double(std::abs(wrong.data()[i] - out.data()[ox.size() + i])));
        CHECK(differ > 1e-2);
    }
    // a block's term on another block's shape, a block that does not exist, blocks of other W×H
    sp::GramSolver both(Basis::fft, std::vector<std::vector<int>>{{17, 9}, {17, 9, 2}});
    CHECK_THROWS_WITH(both.add_term(pg::typed::to_ir(x), 1.0, 1), Catch::Contains("17x9x2"));
    CHECK_THROWS_AS(both.add_term(pg::typed::to_ir(x), 1.0, 2), pg::Error);
    CHECK_THROWS_WITH(sp::GramSolver(Basis::fft, std::vector<std::vector<int>>{{17, 9}, {9, 17}}),
                      Catch::Contains("first two extents"));
}

TEST_CASE("a singular Gram is an error, not a division by zero", "[spectral]") {
    auto x = pg::variable(16, 12);
    const pg::Image rhs = random_image({16, 12}, 4);
    pg::Image out;
    for (auto [basis, g] : {std::pair{Basis::dct, pg::typed::to_ir(pg::grad(x))},
                            std::pair{Basis::fft, pg::typed::to_ir(pg::grad(x, pg::periodic))}}) {
        sp::GramSolver s(basis, {16, 12});
        s.add_term(g, 1.0);
        CHECK(s.min_eigenvalue() == Approx(0.0).margin(1e-12));
        CHECK_THROWS_WITH(s.solve(rhs, out), Catch::Contains("singular") && Catch::Contains("constant/mean"));
        CHECK_THROWS_AS(s.finalize(), pg::Error);
        s.add_identity(1e-3);  // fixing the mean makes it solvable
        CHECK_NOTHROW(s.solve(rhs, out));
    }
    // a kernel whose DFT vanishes at the Nyquist frequency, and no term at all
    pg::Image box({2, 1});
    box(0, 0) = box(1, 0) = 0.5f;
    sp::GramSolver s(Basis::fft, {16, 12});
    s.add_term(pg::typed::to_ir(pg::conv(box, x)), 1.0);
    CHECK_THROWS_WITH(s.solve(rhs, out), Catch::Contains("singular"));
    sp::GramSolver empty(Basis::dct, {16, 12});
    CHECK_THROWS_AS(empty.solve(rhs, out), pg::Error);
}

TEST_CASE("finalize_sum: the inverse of identity + a weighted sum of unit Grams, to the bit, without a table",
          "[spectral]") {
    // ADMM's balancing and HQS's continuation recombine unit Grams at every change of rho: the sum
    // is never stored (a W·H table of doubles per block), the solution is the stored sum's.
    auto x = pg::variable(20, 14);
    auto y = pg::variable(20, 14, 2);
    const pg::Image k3 = random_image({3, 3}, 31, 0.0f, 1.0f);
    const pg::Image rhs = random_image({20, 14, 3}, 32);
    for (Basis basis : {Basis::fft, Basis::dct}) {
        INFO(sp::name(basis));
        const std::vector<std::vector<int>> blocks{{20, 14}, {20, 14, 2}};
        const pg::ir::Node omega_x = basis == Basis::fft ? pg::typed::to_ir(pg::conv(k3, x)) : pg::typed::to_ir(2.0f * x);
        const pg::ir::Node psi_x = basis == Basis::fft ? pg::typed::to_ir(pg::grad(x, pg::periodic)) : pg::typed::to_ir(pg::grad(x));
        const pg::ir::Node psi_y = basis == Basis::fft ? pg::typed::to_ir(pg::grad(y, pg::periodic)) : pg::typed::to_ir(pg::grad(y));
        sp::GramSolver omega(basis, blocks), psi(basis, blocks), no_terms(basis, blocks);
        omega.add_term(omega_x, 1.5, 0);
        psi.add_term(psi_x, 1.0, 0);
        psi.add_term(psi_y, 1.0, 1);
        for (const auto& [identity, w_omega, w_psi] : {std::tuple{0.25, 1.0, 0.7}, std::tuple{1.0, 0.3, 3.1}}) {
            sp::GramSolver stored(basis, blocks), summed(basis, blocks);
            stored.clear();
            stored.add_identity(identity);
            stored.add_scaled(omega, w_omega);
            stored.add_scaled(psi, w_psi);
            stored.add_scaled(no_terms, 2.0);  // a unit without a table adds nothing
            summed.finalize_sum(identity, {{&omega, w_omega}, {&psi, w_psi}, {&no_terms, 2.0}});
            pg::Image a, b;
            stored.solve(rhs, a);
            summed.solve(rhs, b);
            REQUIRE(a.size() == b.size());
            CHECK(std::equal(a.data(), a.data() + a.size(), b.data()));
            CHECK(summed.min_eigenvalue() == stored.min_eigenvalue());
            CHECK(summed.max_eigenvalue() == stored.max_eigenvalue());
        }
        // singular sums throw as finalize does; a unit of other blocks is refused
        sp::GramSolver singular(basis, blocks);
        CHECK_THROWS_WITH(singular.finalize_sum(0.0, {{&psi, 1.0}}), Catch::Contains("singular"));
        sp::GramSolver other(basis, {20, 14});
        CHECK_THROWS_WITH(other.finalize_sum(1.0, {{&psi, 1.0}}), Catch::Contains("cannot add"));
    }
}

// ---- ‖K‖ estimated on the data (operators without a bound, or with a loose one) ---------------

#include "../src/solve/engine.hpp"

TEST_CASE("the norm estimate is within 1% of ||K|| from above, and solves use it", "[norm]") {
    const int n = 32;
    const pg::Image b = pg::test::random_image({n, n}, 11, 0, 1);
    auto x = pg::variable(n, n);
    pg::Image box({3, 3});
    for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) box(i, j) = 1.0f / 9;
    auto prob = pg::sum_squares(x - b) + 0.1f * pg::group_norm1(pg::grad(x)) + pg::norm1(pg::conv(box, x));
    pg::ir::Problem p = pg::detail::plan_for<pg::Algorithm::pock_chambolle>(pg::detail::normalized(prob));
    REQUIRE(p.psi.size() == 2);
    // Neumann grad on n×n: ‖∇‖² = 8 sin²(π(n−1)/(2n)); the box filter's largest DFT gain is 1 (DC)
    const double grad_norm = std::sqrt(8.0) * std::sin(M_PI * (n - 1) / (2.0 * n));
    const double est_grad = pg::detail::power_iteration_norm(p, p.psi[0]);
    const double est_box = pg::detail::power_iteration_norm(p, p.psi[1]);
    // never below (up to float32 rounding of the Gram pipelines), at most 1 % above
    CHECK(est_grad >= grad_norm * (1 - 1e-6));
    CHECK(est_grad <= grad_norm * 1.01);
    CHECK(est_box >= 1 - 1e-6);
    CHECK(est_box <= 1.01);

    // a term whose bound is unknown gets one, and describe says the plan's value
    for (auto& t : p.psi) t.norm_bound = INFINITY;
    const pg::ir::Problem q = pg::detail::with_norm_bounds(p);
    CHECK(q.psi[0].norm_bound == Approx(est_grad));
    CHECK(q.psi[1].norm_bound == Approx(est_box));
    pg::Options opt;
    opt.max_iters = 200;
    opt.eps_abs = opt.eps_rel = 0;
    const pg::Result with_estimate = pg::detail::solve_ir(p, opt, nullptr);
    CHECK(pg::objective(prob, with_estimate.x) < pg::objective(prob, b));
    CHECK_THAT(pg::detail::describe_ir(p), Catch::Matchers::Contains("estimated on the data"));
}

namespace {

/// A normalized 5×5 Gaussian (σ = 1): single-signed, so ‖k ⊛ ·‖ = ‖k‖₁ = 1 (its DFT gain at 0).
pg::Image gaussian5() {
    pg::Image k({5, 5});
    double s = 0;
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) s += k(i, j) = float(std::exp(-((i - 2) * (i - 2) + (j - 2) * (j - 2)) / 2.0));
    for (int j = 0; j < 5; ++j)
        for (int i = 0; i < 5; ++i) k(i, j) = float(k(i, j) / s);
    return k;
}

/// |k̂(p, q)|² of the n×n circular convolution with k.
double dft_gain2(const pg::Image& k, int n, int p, int q) {
    double re = 0, im = 0;
    for (int b = 0; b < k.height(); ++b)
        for (int a = 0; a < k.width(); ++a) {
            const double phase = -2 * M_PI * (double(p) * a + double(q) * b) / n;
            re += k(a, b) * std::cos(phase);
            im += k(a, b) * std::sin(phase);
        }
    return re * re + im * im;
}

/// The four bilinear weights of an n×n image, summing to one at every pixel (four images: pg::Image
/// copies share pixels).
std::vector<pg::Image> bilinear_weights(int n) {
    std::vector<pg::Image> w;
    for (int i = 0; i < 4; ++i) w.emplace_back(std::vector<int>{n, n});
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const float u = float(i) / (n - 1), v = float(j) / (n - 1);
            w[0](i, j) = (1 - u) * (1 - v), w[1](i, j) = u * (1 - v), w[2](i, j) = (1 - u) * v, w[3](i, j) = u * v;
        }
    return w;
}

}  // namespace

TEST_CASE("norms of sums and stacks are estimated within 1% of the true norm and never below it, exact bounds stay", "[norm]") {
    const int n = 32;
    auto x = pg::variable(n, n);
    const pg::Image k = gaussian5();
    // four weighted copies of one convolution, weights summing to one (bilinear in x and y): the
    // operator is k ⊛ x, norm 1, where the bound Σ max|w_i|·‖k‖₁ is 4
    const std::vector<pg::Image> w = bilinear_weights(n);
    auto blur = pg::mul_elemwise(w[0], pg::conv(k, x)) + pg::mul_elemwise(w[1], pg::conv(k, x)) +
                pg::mul_elemwise(w[2], pg::conv(k, x)) + pg::mul_elemwise(w[3], pg::conv(k, x));
    auto prob = pg::norm1(blur) + 0.1f * pg::group_norm1(pg::grad(x, pg::periodic));
    const pg::ir::Problem p = pg::detail::plan_for<pg::Algorithm::pock_chambolle>(pg::detail::normalized(prob));
    REQUIRE(p.psi.size() == 2);
    const pg::detail::NormEstimates e = pg::detail::estimate_norms(p);
    CHECK(p.psi[0].norm_bound == Approx(4.0).epsilon(1e-5));
    CHECK(e.estimated[0]);
    CHECK(e.problem.psi[0].norm_bound >= 1 - 1e-5);
    CHECK(e.problem.psi[0].norm_bound <= 1.01);
    // periodic grad on an even size: √8 is exact and stays
    CHECK_FALSE(e.estimated[1]);
    CHECK(e.problem.psi[1].norm_bound == Approx(std::sqrt(8.0)));
    // the stack [k ⊛ ·; ∇] is diagonal in the DFT: ‖·‖² = max over frequencies of |k̂|² + |∇̂|²
    double top = 0;
    for (int q = 0; q < n; ++q)
        for (int pp = 0; pp < n; ++pp) {
            const double g = 4 * std::pow(std::sin(M_PI * pp / n), 2) + 4 * std::pow(std::sin(M_PI * q / n), 2);
            top = std::max(top, dft_gain2(k, n, pp, q) + g);
        }
    const double truth = std::sqrt(top);
    INFO("stacked: estimate " << e.stacked << ", true " << truth << ", sqrt(sum of bounds^2) " << std::sqrt(16.0 + 8.0));
    CHECK(e.stacked_estimated);
    CHECK(e.stacked >= truth * (1 - 1e-6));
    CHECK(e.stacked <= truth * 1.01);
    CHECK(pg::detail::with_norm_bounds(p).psi_norm == e.stacked);

    // TV denoising: the one Ψ operator's bound is exact, nothing is estimated
    auto tv = pg::sum_squares(x - w[0]) + 0.1f * pg::group_norm1(pg::grad(x));
    const pg::ir::Problem ptv = pg::detail::plan_for<pg::Algorithm::pock_chambolle>(pg::detail::normalized(tv));
    const pg::detail::NormEstimates etv = pg::detail::estimate_norms(ptv);
    CHECK_FALSE(etv.stacked_estimated);
    for (bool b : etv.estimated) CHECK_FALSE(b);
}

TEST_CASE("norm estimates made two at a time equal those made one after another on one thread", "[norm]") {
    // from 128² the terms' estimates run side by side (a second thread); each must be the estimate
    // the one-thread pass makes, bit for bit, so that the steps do not depend on the machine
    const int n = 160;
    auto x = pg::variable(n, n);
    // two masked blurs in one data term: its bound, the sum of theirs, is loose
    auto masked_blurs = [&](unsigned i) {
        const pg::Image k = random_image({5, 5}, 10 + i, 0, 0.08f), m = random_image({n, n}, 20 + i, 0, 1);
        const pg::Image h = random_image({3, 3}, 40 + i, 0, 0.2f), l = random_image({n, n}, 50 + i, 0, 1);
        return pg::sum_squares(pg::mul_elemwise(m, pg::conv(k, x, pg::zero_boundary)) +
                               pg::mul_elemwise(l, pg::conv(h, x, pg::zero_boundary)) - random_image({n, n}, 30 + i, 0, 1));
    };
    auto prob = masked_blurs(0) + masked_blurs(1) + masked_blurs(2) + 0.1f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const pg::ir::Problem p = pg::detail::plan_for<pg::Algorithm::pock_chambolle>(pg::detail::normalized(prob));
    for (const bool per_card : {false, true}) {
        INFO("per card: " << per_card);
        pg::detail::forget_norm_estimates();
        const pg::detail::NormEstimates side = pg::detail::estimate_norms(p, per_card);
        pg::detail::forget_norm_estimates();
        pg::detail::NormEstimates one;
        {
            pg::jit::SerialKernels one_thread;
            one = pg::detail::estimate_norms(p, per_card);
        }
        int tightened = 0;  // the three data terms' bounds are loose: each is estimated
        for (auto terms : {&pg::ir::Problem::psi, &pg::ir::Problem::omega})
            for (std::size_t i = 0; i < (p.*terms).size(); ++i) {
                CHECK((side.problem.*terms)[i].norm_bound == (one.problem.*terms)[i].norm_bound);
                tightened += (side.problem.*terms)[i].norm_bound < (p.*terms)[i].norm_bound ? 1 : 0;
            }
        CHECK(tightened == 3);
        CHECK(side.stacked == one.stacked);
        CHECK(side.stacked_estimated);
    }
}

TEST_CASE("an absorbed term's loose norm bound is estimated too: it sets the curvature scale behind rho0", "[norm]") {
    const int n = 32;
    auto x = pg::variable(n, n);
    const pg::Image k = gaussian5();
    const std::vector<pg::Image> w = bilinear_weights(n);  // the sum below is k ⊛ x: norm 1, bound 4
    auto blur = pg::mul_elemwise(w[0], pg::conv(k, x)) + pg::mul_elemwise(w[1], pg::conv(k, x)) +
                pg::mul_elemwise(w[2], pg::conv(k, x)) + pg::mul_elemwise(w[3], pg::conv(k, x));
    auto prob = pg::sum_squares(blur - w[1]) + 0.1f * pg::group_norm1(pg::grad(x)) + pg::nonneg(x);
    const pg::ir::Problem p = pg::detail::plan_for<pg::Algorithm::admm>(pg::detail::normalized(prob));
    REQUIRE(p.omega.size() == 1);
    CHECK(p.omega[0].norm_bound == Approx(4.0).epsilon(1e-5));
    CHECK(pg::detail::curvature_scale(p) == Approx(2 * 16.0).epsilon(1e-5));  // 2·α·‖A‖² with the bound
    const pg::detail::NormEstimates e = pg::detail::estimate_norms(p);
    CHECK(e.problem.omega[0].norm_bound >= 1 - 1e-5);
    CHECK(e.problem.omega[0].norm_bound <= 1.01);
    // ρ₀ = ω/‖K‖² follows: ω is 2·‖A‖² of the true norm, not of the bound (16× smaller here)
    CHECK(pg::detail::curvature_scale(pg::detail::with_norm_bounds(p)) <= 2 * 1.01 * 1.01);
    // the solve reaches the optimum PC reaches with the same estimates
    pg::Options opt;
    opt.max_iters = 3000;
    opt.eps_abs = opt.eps_rel = 1e-6;
    opt.algorithm = pg::Algorithm::admm;
    const double admm = pg::objective(prob, pg::solve(prob, opt).x);
    opt.algorithm = pg::Algorithm::pock_chambolle;
    const double pc = pg::objective(prob, pg::solve(prob, opt).x);
    CHECK(admm == Approx(pc).epsilon(1e-4));
}
