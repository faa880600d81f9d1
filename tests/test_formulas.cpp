// The numbers a generated solver computes from its data — ‖K‖ bounds of the split operators and
// min |d| of diagonal ones — are the JIT's: each card writes the formula once, and the planner
// folds it over an expression either as numbers (plan::norm_bound) or as the C++ a generated
// solver runs (plan::norm_bound_code). This test compiles the emitted code (with the compiler that
// built it) and requires the same values as the JIT's on the same operators and data.
#include <catch2/catch.hpp>

#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include <proxgen/proxgen.hpp>

#include "test_support.hpp"

namespace pg = proxgen;
using pg::test::random_image;

namespace {

/// One case: an expression as the planner sees it (slots numbered as in a generated solver).
struct Case {
    std::string name;
    pg::ir::Node expr;
};

/// The expression's term alone in a problem, so that its nodes get the slots a generated solver
/// gives them.
pg::ir::Node numbered(pg::ir::Node e) {
    pg::ir::Problem p;
    p.psi.push_back(pg::catalogue::term<pg::catalogue::penalties::sum_squares>(std::move(e)));
    pg::ir::assign_slots(p);
    return p.psi[0].expr;
}

/// The data slots of an expression, by slot: its nodes' images and scale factors.
void collect(const pg::ir::Node& n, std::vector<const pg::Image*>& images, std::vector<float>& scalars) {
    if (n.image_slot >= 0) {
        if (images.size() <= std::size_t(n.image_slot)) images.resize(n.image_slot + 1);
        images[n.image_slot] = &n.image;
    }
    if (n.scalar_slot >= 0) {
        if (scalars.size() <= std::size_t(n.scalar_slot)) scalars.resize(n.scalar_slot + 1);
        scalars[n.scalar_slot] = n.scalar;
    }
    for (const auto& a : n.args) collect(a, images, scalars);
}

std::vector<Case> cases() {
    auto x = pg::variable(24, 20);
    auto v = pg::variable(12, 10, 4);
    auto xc = pg::variable(16, 12, 3);
    pg::Image k = random_image({5, 3}, 1, -0.4f, 1.0f);  // negative taps: ‖k‖₁ ≠ Σ k
    pg::Image k7 = random_image({7, 5}, 2, -1.0f, 1.0f);
    pg::Image w = random_image({24, 20}, 3, -2.0f, 3.0f);
    pg::Image wg = random_image({24, 20, 2}, 4, 0.1f, 1.0f);
    pg::Image w_sub = random_image({12, 7}, 5, 0.5f, 2.0f);
    pg::Image A = random_image({16, 12, 2, 3}, 6, -1.0f, 1.0f);
    auto c = [](std::string n, auto e) { return Case{std::move(n), numbered(pg::typed::to_ir(e))}; };
    return {
        c("grad over x and y", pg::grad(x)),
        c("grad over three axes", pg::grad(v, pg::on_axes<0, 1, 2>)),
        c("grad along x only", pg::grad(v, pg::on_axes<0>)),
        c("periodic grad", pg::grad(x, pg::periodic)),
        c("circular conv", pg::conv(k, x)),
        c("zero-boundary conv", pg::conv(k7, x, pg::zero_boundary)),
        c("replicate conv", pg::conv(k7, x, pg::replicate)),
        c("replicate conv of a 5x3 kernel", pg::conv_nofft(k, x)),
        c("subsample", pg::subsample(x, 2, 3)),
        c("mul_elemwise", pg::mul_elemwise(w, x)),
        c("scale", -2.5f * x),
        c("sum", pg::conv(k, x) + 0.5f * pg::mul_elemwise(w, x)),
        c("sum with an offset", pg::conv(k, x) - w),
        c("composition", pg::mul_elemwise(wg, pg::conv(k7, pg::grad(x), pg::replicate))),
        c("subsampled blur", pg::mul_elemwise(w_sub, pg::subsample(pg::conv(k, x), 2, 3))),
        c("stack", pg::vstack(pg::conv(k, x), 3.0f * x)),
        c("colour matrix", pg::mul_color(xc, pg::color::yuv())),
        c("per-pixel matrices", pg::pxwise_matmul(A, xc)),
    };
}

/// Compiles `source` into a shared object and opens it.
void* compile(const std::string& source) {
    const auto dir = std::filesystem::temp_directory_path() / fmt::format("proxgen_formulas_{}", ::getpid());
    std::filesystem::create_directories(dir);
    const auto cpp = dir / "formulas.cpp", so = dir / "formulas.so";
    std::ofstream(cpp) << source;
    const std::string cmd = fmt::format("{} -std=c++20 -O1 -shared -fPIC -I{} -I{} {} -o {} 2>&1",
                                        PROXGEN_TEST_CXX, PROXGEN_TEST_INCLUDE, PROXGEN_TEST_HALIDE_INCLUDE,
                                        cpp.string(), so.string());
    INFO(cmd);
    REQUIRE(std::system(cmd.c_str()) == 0);
    void* lib = dlopen(so.c_str(), RTLD_NOW);
    REQUIRE(lib != nullptr);
    std::filesystem::remove_all(dir);  // the loaded library stays mapped
    return lib;
}

using Formula = double (*)(halide_buffer_t* const*, const float*);

}  // namespace

TEST_CASE("generated solvers compute the JIT's norm bounds and diagonal minima from the same data", "[aot][plan]") {
    const std::vector<Case> all = cases();
    std::string source = "#include <cmath>\n#include <proxgen/catalogue/data_norms.hpp>\n";
    for (std::size_t i = 0; i < all.size(); ++i) {
        source += fmt::format("extern \"C\" double bound_{}(halide_buffer_t* const* images, const float* scalars) {{\n"
                              "    (void)images, (void)scalars;\n    return {};\n}}\n",
                              i, pg::plan::norm_bound_code(all[i].expr).text);
        source += fmt::format("extern \"C\" double dmin_{}(halide_buffer_t* const* images, const float* scalars) {{\n"
                              "    (void)images, (void)scalars;\n    return {};\n}}\n",
                              i, pg::plan::diagonal_min_abs_code(all[i].expr).text);
    }
    void* lib = compile(source);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const Case& cs = all[i];
        INFO(cs.name << ": " << pg::ir::to_string(cs.expr));
        std::vector<const pg::Image*> images;
        std::vector<float> scalars;
        collect(cs.expr, images, scalars);
        std::vector<halide_buffer_t*> raw;
        for (const pg::Image* img : images) raw.push_back(const_cast<halide_buffer_t*>(img->buffer().raw_buffer()));
        auto bound = reinterpret_cast<Formula>(dlsym(lib, fmt::format("bound_{}", i).c_str()));
        auto dmin = reinterpret_cast<Formula>(dlsym(lib, fmt::format("dmin_{}", i).c_str()));
        REQUIRE(bound != nullptr);
        REQUIRE(dmin != nullptr);
        const double jit = pg::plan::norm_bound(cs.expr), generated = bound(raw.data(), scalars.data());
        CHECK(std::isfinite(jit));
        CHECK(jit > 0);
        CHECK(generated == Approx(jit).epsilon(1e-12));
        CHECK(dmin(raw.data(), scalars.data()) == Approx(pg::plan::diagonal_min_abs(cs.expr)).epsilon(1e-12).margin(1e-300));
    }
    // the values themselves: grad's bound grows with its axes, replicate's with its kernel
    CHECK(pg::plan::norm_bound(all[0].expr) == Approx(std::sqrt(8.0)));
    CHECK(pg::plan::norm_bound(all[1].expr) == Approx(std::sqrt(12.0)));
    CHECK(pg::plan::norm_bound(all[2].expr) == Approx(2.0));
    CHECK(pg::plan::norm_bound(all[6].expr) > pg::plan::norm_bound(all[5].expr));
}

namespace {
/// ‖A‖₂ of a small dense matrix (row-major, rows × cols) by power iteration on AᵀA to convergence.
double power_norm(const std::vector<double>& a, int rows, int cols) {
    std::vector<double> v(cols, 1.0), w(rows);
    double lambda = 0;
    for (int it = 0; it < 2000; ++it) {
        double nv = 0;
        for (double e : v) nv += e * e;
        for (double& e : v) e /= std::sqrt(nv);
        for (int i = 0; i < rows; ++i) {
            w[i] = 0;
            for (int j = 0; j < cols; ++j) w[i] += a[i * cols + j] * v[j];
        }
        std::vector<double> u(cols, 0.0);
        for (int j = 0; j < cols; ++j)
            for (int i = 0; i < rows; ++i) u[j] += a[i * cols + j] * w[i];
        lambda = 0;
        for (int j = 0; j < cols; ++j) lambda += u[j] * v[j];
        v = u;
    }
    return std::sqrt(lambda);
}
}  // namespace

TEST_CASE("cards whose norm is known exactly give it, and say so: compositions and sums are bounds", "[plan][norm]") {
    const std::vector<Case> all = cases();
    auto find = [&](const std::string& name) -> const pg::ir::Node& {
        for (const auto& c : all)
            if (c.name == name) return c.expr;
        FAIL("no case " << name);
        return all[0].expr;
    };
    // the colour matrix: ‖M‖₂, not ‖M‖_F
    {
        const pg::Image m = pg::color::yuv();
        std::vector<double> a;
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) a.push_back(m(j, i));
        const double truth = power_norm(a, 3, 3);
        CHECK(pg::plan::norm_bound(find("colour matrix")) == Approx(truth).epsilon(1e-9));
        double frob = 0;
        for (double e : a) frob += e * e;
        CHECK(truth < std::sqrt(frob) * 0.99);  // the former bound was loose here
        CHECK(pg::plan::norm_bound_exact(find("colour matrix")));
    }
    // per-pixel matrices: the largest ‖A(p)‖₂
    {
        const pg::Image A = random_image({16, 12, 2, 3}, 6, -1.0f, 1.0f);
        double most = 0;
        for (int y = 0; y < 12; ++y)
            for (int x = 0; x < 16; ++x) {
                std::vector<double> a;
                for (int i = 0; i < 2; ++i)
                    for (int j = 0; j < 3; ++j) a.push_back(A.data()[((std::size_t(j) * 2 + i) * 12 + y) * 16 + x]);
                most = std::max(most, power_norm(a, 2, 3));
            }
        CHECK(pg::plan::norm_bound(find("per-pixel matrices")) == Approx(most).epsilon(1e-9));
        CHECK(pg::plan::norm_bound_exact(find("per-pixel matrices")));
    }
    // exact on the variable: grad, weights, scales, selections, a single-signed circular blur
    for (const char* name : {"grad over x and y", "grad over three axes", "periodic grad", "subsample", "mul_elemwise",
                             "scale"}) {
        INFO(name);
        CHECK(pg::plan::norm_bound_exact(find(name)));
    }
    auto x = pg::variable(24, 20);
    const pg::Image box = random_image({3, 3}, 9, 0.1f, 1.0f);
    const pg::Image b = random_image({24, 20}, 10, 0.0f, 1.0f);
    CHECK(pg::plan::norm_bound_exact(numbered(pg::typed::to_ir(pg::conv(box, x)))));
    CHECK(pg::plan::norm_bound_exact(numbered(pg::typed::to_ir(pg::conv(box, 2.0f * x) - b))));
    // bounds, not norms: a kernel of both signs (‖k‖₁ > max|k̂|), other boundaries, sums, compositions
    for (const char* name : {"circular conv", "sum with an offset", "zero-boundary conv", "replicate conv", "sum", "composition",
                             "subsampled blur", "stack"})
        CHECK_FALSE(pg::plan::norm_bound_exact(find(name)));
}
