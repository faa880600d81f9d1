// Every prox satisfies its optimality condition  0 ∈ α ∂f(z + c) + ρ (z − v)  on random inputs,
// including exact zeros and tiny values (no NaN from 0/0), with and without an offset c.
#include <catch2/catch.hpp>

#include <proxgen/lower/evaluate.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::ir::Penalty;
using pg::test::random_image;

namespace {

/// Random values with some exact zeros and tiny magnitudes mixed in.
pg::Image nasty_input(const std::vector<int>& shape, unsigned seed) {
    pg::Image v = random_image(shape, seed, -2.0f, 2.0f);
    for (std::size_t i = 0; i < v.size(); i += 7) v.data()[i] = 0.0f;
    for (std::size_t i = 3; i < v.size(); i += 11) v.data()[i] = 1e-30f;
    return v;
}

struct Case {
    float alpha, rho;
    bool with_offset;
};
const Case cases[] = {{0.5f, 1.0f, false}, {0.1f, 3.0f, true}, {2.0f, 0.25f, false}, {0.0f, 1.0f, true}, {1.0f, 1e-3f, false}};

bool all_finite(const pg::Image& a) {
    for (std::size_t i = 0; i < a.size(); ++i)
        if (!std::isfinite(a.data()[i])) return false;
    return true;
}

}  // namespace

TEST_CASE("sum_squares prox: 2α(z + c) + ρ(z − v) = 0", "[prox]") {
    for (const auto& cs : cases) {
        const pg::Image v = nasty_input({13, 7}, 1);
        const pg::Image c = cs.with_offset ? random_image({13, 7}, 2) : pg::Image();
        const pg::Image z = pg::lower::apply_prox(Penalty::sum_squares, cs.alpha, cs.rho, v, c);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) {
            const double zc = z.data()[i] + (c.empty() ? 0.0 : c.data()[i]);
            CHECK(std::abs(2 * cs.alpha * zc + cs.rho * (z.data()[i] - v.data()[i])) <= 1e-5 * (1 + cs.rho + cs.alpha));
        }
    }
}

TEST_CASE("norm1 prox: soft threshold optimality", "[prox]") {
    for (const auto& cs : cases) {
        const pg::Image v = nasty_input({9, 11}, 3);
        const pg::Image c = cs.with_offset ? random_image({9, 11}, 4) : pg::Image();
        const pg::Image z = pg::lower::apply_prox(Penalty::norm1, cs.alpha, cs.rho, v, c);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) {
            const double zc = z.data()[i] + (c.empty() ? 0.0 : c.data()[i]);
            const double g = cs.rho * (v.data()[i] - z.data()[i]);  // must lie in α ∂|·|(zc)
            if (std::abs(zc) > 1e-6) CHECK(std::abs(g - cs.alpha * (zc > 0 ? 1 : -1)) <= 1e-4 * (1 + cs.alpha));
            else CHECK(std::abs(g) <= cs.alpha * (1 + 1e-5) + 1e-6);
        }
    }
}

TEST_CASE("group_norm1 prox: block soft threshold optimality", "[prox]") {
    for (const auto& cs : cases) {
        for (int groups : {1, 2, 3}) {
            const pg::Image v = nasty_input({8, 5, groups}, 5);
            const pg::Image c = cs.with_offset ? random_image({8, 5, groups}, 6) : pg::Image();
            const pg::Image z = pg::lower::apply_prox(Penalty::group_norm1, cs.alpha, cs.rho, v, c);
            REQUIRE(all_finite(z));
            const std::size_t stride = 8 * 5;
            for (std::size_t p = 0; p < stride; ++p) {
                double n2 = 0, g2 = 0;
                std::vector<double> zc(groups), g(groups);
                for (int k = 0; k < groups; ++k) {
                    const std::size_t i = p + k * stride;
                    zc[k] = z.data()[i] + (c.empty() ? 0.0 : c.data()[i]);
                    g[k] = cs.rho * (v.data()[i] - z.data()[i]);
                    n2 += zc[k] * zc[k];
                    g2 += g[k] * g[k];
                }
                const double n = std::sqrt(n2);
                if (n > 1e-6)
                    for (int k = 0; k < groups; ++k) CHECK(std::abs(g[k] - cs.alpha * zc[k] / n) <= 1e-4 * (1 + cs.alpha));
                else
                    CHECK(std::sqrt(g2) <= cs.alpha * (1 + 1e-5) + 1e-6);
            }
        }
    }
}

TEST_CASE("nonneg prox: projection onto z + c >= 0", "[prox]") {
    for (const auto& cs : cases) {
        const pg::Image v = nasty_input({10, 10}, 7);
        const pg::Image c = cs.with_offset ? random_image({10, 10}, 8) : pg::Image();
        const pg::Image z = pg::lower::apply_prox(Penalty::nonneg, cs.alpha, cs.rho, v, c);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) {
            const double off = c.empty() ? 0.0 : c.data()[i];
            const double zc = z.data()[i] + off, g = v.data()[i] - z.data()[i];
            CHECK(zc >= -1e-6);
            // normal cone of {t >= 0}: g == 0 inside, g <= 0 on the boundary
            if (zc > 1e-6) CHECK(std::abs(g) <= 1e-6);
            else CHECK(g <= 1e-6);
        }
    }
}

TEST_CASE("prox at zero threshold is the identity and stays finite at v = 0", "[prox]") {
    const pg::Image zero({6, 4, 2});
    for (auto f : {Penalty::sum_squares, Penalty::norm1, Penalty::group_norm1, Penalty::nonneg}) {
        const pg::Image z = pg::lower::apply_prox(f, 0.0f, 1.0f, zero);
        REQUIRE(all_finite(z));
        for (std::size_t i = 0; i < z.size(); ++i) CHECK(z.data()[i] == 0.0f);
    }
}
