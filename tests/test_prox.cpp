// Every prox satisfies its optimality condition on random inputs, in the generalised form the
// planner produces:  z = argmin α f(a ⊙ z + c) + ρ/2 ‖z − v‖²  ⇔  ρ(v − z) ∈ α a ⊙ ∂f(a ⊙ z + c),
// including exact zeros and tiny values (no NaN from 0/0), a = 0 (then z = v) and negative a; and
// every penalty's value (the objective's summands) against its float64 formula.
#include <cmath>

#include <catch2/catch.hpp>

#include <proxgen/catalogue/all.hpp>
#include <proxgen/lower/evaluate.hpp>

#include "reference_problems.hpp"
#include "test_support.hpp"

namespace pg = proxgen;
/// The penalty cards under test, by name.
namespace Penalty {
namespace cards = pg::catalogue::penalties;
const pg::ir::PenaltyKind* const sum_squares = &pg::catalogue::card<cards::sum_squares>();
const pg::ir::PenaltyKind* const norm1 = &pg::catalogue::card<cards::norm1>();
const pg::ir::PenaltyKind* const group_norm1 = &pg::catalogue::card<cards::group_norm1>();
const pg::ir::PenaltyKind* const nonneg = &pg::catalogue::card<cards::nonneg>();
const pg::ir::PenaltyKind* const sum_entries = &pg::catalogue::card<cards::sum_entries>();
const pg::ir::PenaltyKind* const poisson = &pg::catalogue::card<cards::poisson_norm>();
const pg::ir::PenaltyKind* const masked_nonneg = &pg::catalogue::card<cards::masked_nonneg>();
const pg::ir::PenaltyKind* const box = &pg::catalogue::card<cards::box>();
const pg::ir::PenaltyKind* const huber = &pg::catalogue::card<cards::huber>();
const pg::ir::PenaltyKind* const patch_nlm = &pg::catalogue::card<cards::patch_nlm>();
}  // namespace Penalty
using pg::test::random_image;

namespace {

/// Random values with some exact zeros and tiny magnitudes mixed in.
pg::Image nasty_input(const std::vector<int>& shape, unsigned seed) {
    pg::Image v = random_image(shape, seed, -2.0f, 2.0f);
    for (std::size_t i = 0; i < v.size(); i += 7) v.data()[i] = 0.0f;
    for (std::size_t i = 3; i < v.size(); i += 11) v.data()[i] = 1e-30f;
    return v;
}

/// Elementwise scales with zeros and negative entries.
pg::Image scales(const std::vector<int>& shape, unsigned seed) {
    pg::Image a = random_image(shape, seed, -2.0f, 2.0f);
    for (std::size_t i = 0; i < a.size(); i += 5) a.data()[i] = 0.0f;
    return a;
}

struct Case {
    float alpha, rho;
    bool offset, scaled;
};
const Case cases[] = {{0.5f, 1.0f, false, false}, {0.1f, 3.0f, true, false}, {2.0f, 0.25f, false, true},
                      {0.0f, 1.0f, true, true},   {1.0f, 1e-3f, false, false}, {0.7f, 2.0f, true, true}};

bool all_finite(const pg::Image& a) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!std::isfinite(a.data()[i])) return false;
    return true;
}

/// Runs the prox of f for every case and calls check(g, a, t, i) per element, where
/// g = ρ(v − z)/α is the (scaled) subgradient the prox produced and t = a z + c.
template <class Check>
void for_each_case(const pg::ir::PenaltyKind* f, const std::vector<int>& shape, Check check, const pg::Image& counts = pg::Image()) {
    unsigned seed = 1;
    for (const auto& cs : cases) {
        INFO("alpha " << cs.alpha << " rho " << cs.rho << " offset " << cs.offset << " scaled " << cs.scaled);
        const pg::Image v = nasty_input(shape, seed++);
        pg::lower::ProxData d;
        if (cs.offset) d.c = random_image(shape, seed++);
        if (cs.scaled) d.a = scales(shape, seed++);
        d.counts = counts;
        const pg::Image z = pg::lower::apply_prox(*f, cs.alpha, cs.rho, v, d);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) {
            const double a = d.a.empty() ? 1.0 : d.a.data()[i];
            const double t = a * z.data()[i] + (d.c.empty() ? 0.0 : d.c.data()[i]);
            const double r = cs.rho * (double(v.data()[i]) - z.data()[i]);
            if (a == 0.0) {
                CHECK(z.data()[i] == v.data()[i]);  // f does not see z: the identity
                continue;
            }
            // z = (t − c)/a loses float32 digits of c when |a| is tiny: only the exact a = 0 case
            // above is checked there
            if (std::abs(a) < 0.05) continue;
            check(r, cs.alpha * a, t, i);
        }
    }
}

const double tol = 1e-4;

}  // namespace

TEST_CASE("sum_squares prox: ρ(v − z) = 2αa t", "[prox]") {
    for_each_case(Penalty::sum_squares, {13, 7}, [](double r, double aa, double t, std::size_t) {
        CHECK(std::abs(r - 2 * aa * t) <= tol * (1 + std::abs(r) + std::abs(2 * aa * t)));
    });
}

TEST_CASE("norm1 prox: soft threshold optimality", "[prox]") {
    for_each_case(Penalty::norm1, {9, 11}, [](double r, double aa, double t, std::size_t) {
        if (std::abs(t) > 1e-5) CHECK(std::abs(r - aa * (t > 0 ? 1 : -1)) <= tol * (1 + std::abs(aa)));
        else CHECK(std::abs(r) <= std::abs(aa) * (1 + 1e-5) + 1e-5);
    });
}

TEST_CASE("nonneg prox: projection onto a z + c >= 0", "[prox]") {
    for_each_case(Penalty::nonneg, {10, 10}, [](double r, double aa, double t, std::size_t) {
        CHECK(t >= -1e-5);
        if (t > 1e-5) CHECK(std::abs(r) <= 1e-5);
        else CHECK(r * aa <= 1e-5);  // normal cone of {t >= 0}: r ∈ a · (−∞, 0]
    });
}

TEST_CASE("sum_entries prox: a shift by α a / ρ", "[prox]") {
    for_each_case(Penalty::sum_entries, {6, 5}, [](double r, double aa, double, std::size_t) {
        CHECK(std::abs(r - aa) <= tol * (1 + std::abs(aa)));
    });
}

TEST_CASE("poisson prox: ρ(v − z) = αa (1 − b/t) with t >= 0", "[prox]") {
    pg::Image counts = random_image({12, 8}, 99, 0.0f, 20.0f);
    for (std::size_t i = 0; i < counts.size(); ++i) counts.data()[i] = std::round(counts.data()[i]);
    for (std::size_t i = 0; i < counts.size(); i += 4) counts.data()[i] = 0.0f;  // zero counts: t may be 0
    for_each_case(
        Penalty::poisson, {12, 8},
        [&](double r, double aa, double t, std::size_t i) {
            const double b = counts.data()[i];
            CHECK(t >= -1e-5);
            // r = αa(1 − b/t), multiplied by t so that tiny t (u ≪ 0) does not blow up the check
            if (t > 0) CHECK(std::abs(r * t - aa * (t - b)) <= 1e-3 * (std::abs(r * t) + std::abs(aa) * (t + b)) + 1e-5 * (1 + t));
            else CHECK((b == 0.0 || aa == 0.0));  // the boundary is only optimal without counts
        },
        counts);
}

TEST_CASE("group_norm1 prox: block soft threshold with group weights and a scalar scale", "[prox]") {
    for (int groups : {1, 2, 3}) {
        for (bool weighted : {false, true}) {
            for (float beta : {1.0f, -1.5f}) {
                const pg::Image v = nasty_input({8, 5, groups}, 5);
                pg::lower::ProxData d;
                d.c = random_image({8, 5, groups}, 6);
                d.a = pg::Image({8, 5, groups});
                for (std::size_t i = 0; i < d.a.size(); ++i) d.a.data()[i] = beta;
                if (weighted) d.group_weight = random_image({8, 5}, 7, 0.0f, 2.0f);
                const float alpha = 0.3f, rho = 2.0f;
                const pg::Image z = pg::lower::apply_prox(*Penalty::group_norm1, alpha, rho, v, d);
                REQUIRE(all_finite(z));
                const std::size_t stride = 8 * 5;
                for (std::size_t p = 0; p < stride; ++p) {
                    const double w = weighted ? d.group_weight.data()[p] : 1.0, aw = alpha * w * std::abs(beta);
                    double n2 = 0, g2 = 0;
                    std::vector<double> t(groups), g(groups);
                    for (int k = 0; k < groups; ++k) {
                        const std::size_t i = p + k * stride;
                        t[k] = beta * z.data()[i] + d.c.data()[i];
                        g[k] = rho * (double(v.data()[i]) - z.data()[i]) * (beta > 0 ? 1 : -1);
                        n2 += t[k] * t[k];
                        g2 += g[k] * g[k];
                    }
                    const double n = std::sqrt(n2);
                    if (n > 1e-5)
                        for (int k = 0; k < groups; ++k) CHECK(std::abs(g[k] - aw * t[k] / n) <= tol * (1 + aw));
                    else
                        CHECK(std::sqrt(g2) <= aw * (1 + 1e-5) + 1e-5);
                }
            }
        }
    }
}

TEST_CASE("prox at zero threshold is the identity and stays finite at v = 0", "[prox]") {
    const pg::Image zero({6, 4, 2});
    for (auto f : {Penalty::sum_squares, Penalty::norm1, Penalty::group_norm1, Penalty::nonneg, Penalty::sum_entries,
                   Penalty::box, Penalty::huber}) {
        const pg::Image z = pg::lower::apply_prox(*f, 0.0f, 1.0f, zero);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) CHECK(z.data()[i] == 0.0f);
    }
}

TEST_CASE("masked_nonneg prox: projection where the mask is set, identity elsewhere", "[prox]") {
    pg::Image mask = random_image({9, 7}, 98, 0.0f, 1.0f);
    for (std::size_t i = 0; i < mask.size(); ++i) mask.data()[i] = mask.data()[i] > 0.4f ? 1.0f : 0.0f;
    for_each_case(
        Penalty::masked_nonneg, {9, 7},
        [&](double r, double aa, double t, std::size_t i) {
            if (mask.data()[i] == 0.0f) {
                CHECK(std::abs(r) <= 1e-5);  // unconstrained: z = v
                return;
            }
            CHECK(t >= -1e-5);
            if (t > 1e-5) CHECK(std::abs(r) <= 1e-5);
            else CHECK(r * aa <= 1e-5);
        },
        mask);
}

TEST_CASE("box prox: projection onto 0 <= a z + c <= 1", "[prox]") {
    for_each_case(Penalty::box, {8, 9}, [](double r, double aa, double t, std::size_t) {
        CHECK(t >= -1e-5);
        CHECK(t <= 1 + 1e-5);
        if (t > 1e-5 && t < 1 - 1e-5) CHECK(std::abs(r) <= 1e-5);
        else if (t <= 1e-5) CHECK(r * aa <= 1e-5);  // normal cone at the lower face
        else CHECK(r * aa >= -1e-5);                 // and at the upper face
    });
}

TEST_CASE("huber prox: ρ(v − z) = αa h'(t)", "[prox]") {
    for_each_case(Penalty::huber, {11, 6}, [](double r, double aa, double t, std::size_t) {
        const double h = std::abs(t) <= 1 ? 2 * t : 2 * (t > 0 ? 1 : -1);  // h is C¹: h' is unique
        CHECK(std::abs(r - aa * h) <= tol * (1 + std::abs(r) + std::abs(aa * h)));
    });
}

TEST_CASE("box and huber constructors: the scaling they store", "[prox]") {
    auto x = pg::variable(4, 3);
    auto b = pg::box(x, -1.0f, 3.0f);
    CHECK(b.beta == Approx(0.25f));
    CHECK(b.offset(2, 1) == Approx(0.25f));  // (x − lo)/(hi − lo) = x/4 + 1/4
    auto h = 2.0f * pg::huber(x, 0.5f);
    CHECK(h.weight == Approx(0.5f));  // 2 · M²
    CHECK(h.beta == Approx(2.0f));
    CHECK_THROWS_WITH(pg::box(x, 1.0f, 1.0f), Catch::Contains("lo < hi"));
    CHECK_THROWS_WITH(pg::huber(x, 0.0f), Catch::Contains("must be finite and > 0"));
    CHECK_THROWS_WITH(pg::masked_nonneg(x, pg::Image({3, 4})), Catch::Contains("the mask is 3x4"));
}

TEST_CASE("patch_nlm: a denoiser that reduces noise on a real image and is the identity at zero strength", "[prox]") {
    // a 64 × 64 crop of the reference problems' clean scene (clean_512.npy), plus Gaussian noise of σ = 0.1
    const pg::Image full = pg::reference::clean_image(512).to_image();
    for (int channels : {1, 3}) {
        INFO(channels << " channel(s)");
        const std::vector<int> shape = channels == 1 ? std::vector<int>{64, 64} : std::vector<int>{64, 64, 3};
        pg::Image clean(shape), noisy(shape);
        std::mt19937 gen(11);
        std::normal_distribution<float> noise(0.0f, 0.1f);
        for (int c = 0; c < channels; ++c)
            for (int y = 0; y < 64; ++y)
                for (int x = 0; x < 64; ++x) {
                    // the colour version shifts the crop per channel: correlated, not identical channels
                    const float v = full(200 + x + 3 * c, 150 + y);
                    clean(x, y, c) = v;
                    noisy(x, y, c) = v + noise(gen);
                }
        auto rmse = [&](const pg::Image& a) {
            double s = 0;
            for (std::size_t i = 0; i < a.size(); ++i) s += std::pow(double(a.data()[i]) - clean.data()[i], 2);
            return std::sqrt(s / double(a.size()));
        };
        const float rho = 1.0f, alpha = 0.01f;  // σ = √(α/ρ) = 0.1, the true noise level
        const pg::Image den = pg::lower::apply_prox(*Penalty::patch_nlm, alpha, rho, noisy);
        REQUIRE(all_finite(den));
        INFO("noisy RMSE " << rmse(noisy) << ", denoised " << rmse(den));
        CHECK(rmse(den) < 0.6 * rmse(noisy));
        const pg::Image same = pg::lower::apply_prox(*Penalty::patch_nlm, 0.0f, rho, noisy);
        for (std::size_t i = 0; i < same.size(); ++i) REQUIRE(same.data()[i] == noisy.data()[i]);
    }
}

TEST_CASE("objective: each penalty's value is the float64 sum of its formula, domains to a relative 1e-4",
          "[prox][objective]") {
    const int W = 13, H = 9;
    const pg::Image v = random_image({W, H}, 21, -2.0f, 2.0f);
    auto total = [&](const pg::Image& img, auto f) {
        double s = 0;
        for (std::size_t i = 0; i < img.size(); ++i) s += f(double(img.data()[i]));
        return s;
    };
    auto x = pg::variable(W, H);
    CHECK(pg::objective(pg::sum_squares(x), v) == Approx(total(v, [](double a) { return a * a; })).epsilon(1e-12));
    CHECK(pg::objective(pg::norm1(x), v) == Approx(total(v, [](double a) { return std::abs(a); })).epsilon(1e-12));
    CHECK(pg::objective(pg::sum_entries(x), v) == Approx(total(v, [](double a) { return a; })).epsilon(1e-12));
    // huber(e, M) = M² Σ h(e / M), h(t) = t² inside |t| ≤ 1, 2|t| − 1 beyond
    const double M = 0.5;
    const double huber = total(v, [&](double a) {
        const double t = std::abs(double(float(a) * float(1 / M)));
        return M * M * (t <= 1 ? t * t : 2 * t - 1);
    });
    CHECK(pg::objective(pg::huber(x, float(M)), v) == Approx(huber).epsilon(1e-6));

    // groups along the last axis, weighted per pixel; schatten of one row per pixel is its norm
    const pg::Image g = random_image({W, H, 3}, 22, -1.0f, 1.0f), w = random_image({W, H}, 23, 0.5f, 2.0f);
    auto y = pg::variable(W, H, 3);
    double groups = 0, norms = 0;
    for (int j = 0; j < H; ++j)
        for (int i = 0; i < W; ++i) {
            double n2 = 0;
            for (int c = 0; c < 3; ++c) n2 += double(g(i, j, c)) * g(i, j, c);
            groups += double(w(i, j)) * std::sqrt(n2);
            norms += std::sqrt(n2);
        }
    CHECK(pg::objective(pg::weighted_group_norm1(w, y), g) == Approx(groups).epsilon(1e-12));
    for (const double p : {1.0, 2.0, double(INFINITY)}) CHECK(pg::objective(pg::schatten(y, p), g) == Approx(norms).epsilon(1e-12));

    // nonneg: +inf below −1e-4 · max(1, max |x|), 0 above
    pg::Image near = v.copy(), far = v.copy();
    for (std::size_t i = 0; i < v.size(); ++i) near.data()[i] = far.data()[i] = std::abs(v.data()[i]);
    near.data()[7] = -1e-4f;  // max |x| is about 2: within the tolerance
    far.data()[7] = -1e-3f;
    CHECK(pg::objective(pg::nonneg(x), near) == 0.0);
    CHECK(std::isinf(pg::objective(pg::nonneg(x), far)));
    // poisson: e − b log e where e > 0; +inf at e ≤ 0 where there are counts
    const pg::Image counts = random_image({W, H}, 24, 0.0f, 3.0f);
    const double poisson = [&] {
        double s = 0;
        for (std::size_t i = 0; i < near.size(); ++i) {
            const double e = std::abs(double(v.data()[i])) + 0.1, b = counts.data()[i];
            s += e - (b > 0 ? b * std::log(e) : 0.0);
        }
        return s;
    }();
    pg::Image positive = v.copy();
    for (std::size_t i = 0; i < v.size(); ++i) positive.data()[i] = float(std::abs(double(v.data()[i])) + 0.1);
    CHECK(pg::objective(pg::poisson_norm(x, counts), positive) == Approx(poisson).epsilon(1e-6));
    positive.data()[3] = 0.0f;
    CHECK(std::isinf(pg::objective(pg::poisson_norm(x, counts), positive)) == (counts.data()[3] > 0));
}
