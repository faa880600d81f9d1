// proxgen_reference: the Python tests' C++ side. Each case builds a problem with the run-time API
// from C++ (proxgen/runtime.hpp) on images made here by formula, and solves it; the canonical
// problems are built with the typed DSL (canonical_problems.hpp) as tests/test_canonical.cpp
// builds them. Nothing here goes through the Python binding's array conversion: images travel as
// flat lists in Halide order with their sizes, so a wrong axis mapping in the binding shows.
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <proxgen/proxgen.hpp>
#include <proxgen/runtime.hpp>

#include "canonical_problems.hpp"
#include "test_support.hpp"

namespace py = pybind11;
namespace pg = proxgen;
namespace rt = proxgen::rt;

namespace {

// The image sizes of the cases (Halide order): 16 wide, 12 high; 3 channels for colour.
constexpr int W = 16, H = 12;

/// ((7x + 13y + 5c + 3k + 11 seed) mod 17) / 16 - 0.5, or / 8 + 0.25 when positive: exact in
/// float32, the same in tests/python/cases.py.
pg::Image pattern(const std::vector<int>& sizes, int seed, bool positive = false) {
    pg::Image img(sizes);
    auto& b = img.buffer();
    const int r = int(sizes.size());
    std::vector<int> i(4, 0);
    for (i[3] = 0; i[3] < (r > 3 ? sizes[3] : 1); ++i[3])
        for (i[2] = 0; i[2] < (r > 2 ? sizes[2] : 1); ++i[2])
            for (i[1] = 0; i[1] < (r > 1 ? sizes[1] : 1); ++i[1])
                for (i[0] = 0; i[0] < sizes[0]; ++i[0]) {
                    const int m = (7 * i[0] + 13 * i[1] + 5 * i[2] + 3 * i[3] + 11 * seed) % 17;
                    const float v = positive ? float(m) / 8.0f + 0.25f : float(m) / 16.0f - 0.5f;
                    b(i.data()) = v;
                }
    return img;
}

/// What Python's `e + 0.25` makes: an image of e's shape filled with the number.
pg::Image filled(const std::vector<int>& sizes, float v) {
    pg::Image img(sizes);
    std::fill(img.data(), img.data() + img.size(), v);
    return img;
}

/// 1 where (x + y) mod 3 != 0, else 0.
pg::Image mask() {
    pg::Image m({W, H});
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) m(x, y) = (x + y) % 3 != 0 ? 1.0f : 0.0f;
    return m;
}

pg::Image homography() {
    pg::Image h({3, 3});
    const float m[3][3] = {{1.0f, 0.05f, 0.7f}, {-0.04f, 1.0f, 0.3f}, {0.0f, 0.0f, 1.0f}};
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) h(c, r) = m[r][c];
    return h;
}

/// ix(x, y) = (3x + y) mod W, iy(x, y) = (2y + x) mod H on a 6 x 5 output.
std::pair<pg::Image, pg::Image> indices() {
    pg::Image ix({6, 5}), iy({6, 5});
    for (int y = 0; y < 5; ++y)
        for (int x = 0; x < 6; ++x) {
            ix(x, y) = float((3 * x + y) % W);
            iy(x, y) = float((2 * y + x) % H);
        }
    return {ix, iy};
}

using Case = std::function<rt::Problem()>;

const std::map<std::string, Case>& cases() {
    static const std::map<std::string, Case> table = {
        // convolutions, grad, elementwise weights, arithmetic
        {"ops_filters", [] {
             auto x = rt::variable("x", {W, H});
             const pg::Image k = pattern({3, 3}, 1, true), k5 = pattern({5, 3}, 2, true);
             return rt::sum_squares(rt::conv(k, x) - pattern({W, H}, 3)) +
                    0.5 * rt::norm1(rt::conv(k5, x, rt::ConvBoundary::zero)) +
                    0.3 * rt::sum_squares(rt::conv_nofft(k, x)) +
                    0.25 * rt::norm1(rt::conv(k, x, rt::ConvBoundary::replicate) - pattern({W, H}, 4)) +
                    0.2 * rt::group_norm1(rt::grad(x)) + 0.1 * rt::norm1(rt::grad(x, rt::GradBoundary::periodic)) +
                    0.4 * rt::sum_squares(rt::mul_elemwise(pattern({W, H}, 5, true), x) - pattern({W, H}, 6)) +
                    rt::sum_squares(x + 0.5 * x - (-x) - pattern({W, H}, 7));
         }},
        // resampling and layout operators
        {"ops_layout", [] {
             auto x = rt::variable("x", {W, H});
             auto [ix, iy] = indices();
             return rt::sum_squares(rt::subsample(x, 2, 3) - pattern({8, 4}, 8)) +
                    0.7 * rt::norm1(rt::uneven_subsample(x, ix, iy)) +
                    0.5 * rt::sum_squares(rt::warp(x, homography()) - pattern({W, H}, 9)) +
                    0.3 * rt::norm1(rt::crop(x, 2, 3, 8, 5) - pattern({8, 5}, 10)) +
                    0.2 * rt::sum_squares(rt::pad(x, 1, 2, 3, 1) - pattern({W + 4, H + 3}, 11)) +
                    0.6 * rt::norm1(rt::transpose(x, {1, 0}) - pattern({H, W}, 12)) +
                    0.25 * rt::sum_squares(rt::reshape(x, {W * H / 4, 4}) - pattern({W * H / 4, 4}, 13)) +
                    0.45 * rt::norm1(rt::concat(x, x, 1));
         }},
        // what only proxgen.rt writes as C++ does (ProxImaL's vstack, hstack and masked_nonneg differ)
        {"rt_only", [] {
             auto x = rt::variable("x", {W, H});
             return rt::sum_squares(x - pattern({W, H}, 37)) + 0.15 * rt::norm1(rt::vstack(x, 2.0 * x)) +
                    0.35 * rt::sum_squares(rt::hstack(x, -x) - pattern({2 * W, H}, 38)) +
                    rt::masked_nonneg(x, mask());
         }},
        // colour operators
        {"ops_color", [] {
             auto x = rt::variable("x", {W, H, 3});
             return rt::sum_squares(rt::conv(pattern({3, 3}, 14, true), x) - pattern({W, H, 3}, 15)) +
                    0.3 * rt::norm1(rt::mul_color(x, pattern({3, 3}, 16))) +
                    0.2 * rt::sum_squares(rt::pxwise_matmul(pattern({W, H, 2, 3}, 17), x) - pattern({W, H, 2}, 18)) +
                    0.1 * rt::group_norm1(rt::merge_last_axes(rt::grad(x))) +
                    0.05 * rt::norm1(rt::grad(x, {0, 1, 2}));
         }},
        // penalties without data
        {"penalties", [] {
             auto x = rt::variable("x", {W, H});
             return rt::sum_squares(x - pattern({W, H}, 19)) + 0.5 * rt::least_squares(x - pattern({W, H}, 20)) +
                    0.1 * rt::norm1(x) + 0.2 * rt::group_norm1(rt::grad(x)) + rt::nonneg(x + filled({W, H}, 0.25f)) +
                    0.05 * rt::sum_entries(x) + rt::box(x, -0.4, 0.9) + 0.3 * rt::huber(x - pattern({W, H}, 21), 0.2);
         }},
        // penalties with data: counts, masks, weights
        {"penalties_data", [] {
             auto x = rt::variable("x", {W, H});
             const pg::Image k = pattern({3, 3}, 22, true);
             return rt::poisson_norm(rt::conv(k, x), pattern({W, H}, 23, true)) +
                    0.5 * rt::weighted_poisson_norm(pattern({W, H}, 24, true), x, pattern({W, H}, 25, true)) +
                    0.3 * rt::weighted_sum_squares(pattern({W, H}, 27, true), x - pattern({W, H}, 28)) +
                    0.2 * rt::weighted_norm1(pattern({W, H}, 29, true), x) +
                    rt::weighted_nonneg(pattern({W, H}, 30, true), x) +
                    0.1 * rt::weighted_group_norm1(pattern({W, H}, 31, true), rt::grad(x));
         }},
        // ProxImaL's modifiers as proxgen/prox_fns.py maps them:
        //   norm1(conv(k, x), alpha=2, beta=0.5, b=b, c=c, gamma=0.3) + sum_squares(x, b=b2)
        {"modifiers", [] {
             auto x = rt::variable("x", {W, H});
             const pg::Image k = pattern({3, 3}, 32, true);
             return 2.0 * rt::norm1(0.5 * rt::conv(k, x) - pattern({W, H}, 33)) +
                    rt::sum_entries(rt::mul_elemwise(pattern({W, H}, 34), rt::conv(k, x))) +
                    0.3 * rt::sum_squares(rt::conv(k, x)) + rt::sum_squares(x - pattern({W, H}, 35));
         }},
        // catalogue entries without a C++ function of their own: by name (rt::call)
        {"by_name", [] {
             auto x = rt::variable("x", {W, H});
             auto haar = std::get<rt::Expr>(rt::call("haar", {x, 2.0}));
             auto nuclear = std::get<rt::Problem>(rt::call("schatten", {rt::grad(x), 1.0}));
             return rt::sum_squares(x - pattern({W, H}, 40)) + 0.2 * rt::norm1(haar) + 0.1 * nuclear;
         }},
        // the denoiser prior
        {"nlm", [] {
             auto x = rt::variable("x", {W, H});
             return rt::sum_squares(x - pattern({W, H}, 36)) + 0.01 * rt::patch_nlm(x);
         }},
    };
    return table;
}

/// An image as (flat values in Halide order, Halide sizes).
std::pair<std::vector<float>, std::vector<int>> flat(const pg::Image& img) {
    return {std::vector<float>(img.data(), img.data() + img.size()), img.sizes()};
}

pg::bench::Canonical canonical_of(const std::string& s) {
    if (s == "denoise") return pg::bench::Canonical::denoise;
    if (s == "deconv") return pg::bench::Canonical::deconv;
    if (s == "poisson") return pg::bench::Canonical::poisson;
    throw std::invalid_argument("unknown canonical problem " + s);
}

}  // namespace

PYBIND11_MODULE(proxgen_reference, m) {
    m.doc() = "C++ reference results for the Python tests (tests/python).";
    m.def("cases", [] {
        std::vector<std::string> names;
        for (const auto& [name, c] : cases()) names.push_back(name);
        return names;
    });
    m.def("describe", [](const std::string& name, const std::string& alg) {
        return rt::describe(cases().at(name)(), pg::algorithm_named(alg));
    });
    // (x, sizes, objective) after exactly `iters` iterations of `alg`
    m.def("solve", [](const std::string& name, const std::string& alg, int iters) {
        const rt::Problem p = cases().at(name)();
        pg::Result r;
        {
            py::gil_scoped_release release;
            r = rt::solve(p, pg::test::fixed_iterations(pg::algorithm_named(alg), iters));
        }
        auto [values, sizes] = flat(r["x"]);
        return std::make_tuple(values, sizes, rt::objective(p, r));
    });
    // the canonical problem's data: {name: (flat values, sizes)}
    m.def("canonical_data", [](const std::string& kind, int size) {
        std::map<std::string, std::pair<std::vector<float>, std::vector<int>>> out;
        switch (canonical_of(kind)) {
        case pg::bench::Canonical::denoise: out["b"] = flat(pg::reference::make_denoise(size).b); break;
        case pg::bench::Canonical::deconv: {
            const auto d = pg::reference::make_deconv(size);
            out["b"] = flat(d.b);
            out["kernel"] = flat(d.kernel);
            break;
        }
        case pg::bench::Canonical::poisson: {
            const auto d = pg::reference::make_poisson(size);
            out["b"] = flat(d.b);
            out["kernel"] = flat(d.kernel);
            break;
        }
        }
        return out;
    });
    // the typed DSL's solve of a canonical problem: (objective, deviance shift, iterations)
    m.def("solve_canonical", [](const std::string& kind, int size, const std::string& alg, int iters) {
        py::gil_scoped_release release;
        const pg::bench::Canonical c = canonical_of(kind);
        return pg::bench::with_problem(c, size, [&](const auto& prob, const auto&, const pg::Image& start) {
            pg::Options opt = pg::test::fixed_iterations(pg::algorithm_named(alg), iters);
            opt.x0 = start;
            const pg::Result r = pg::solve(prob, opt);
            return std::make_tuple(pg::objective(prob, r), pg::bench::objective_shift(c, start), r.iterations);
        });
    });
}
