// Gradients through the solver (proxgen/grad.hpp): every unrolled gradient, per algorithm, against
// central finite differences of the same unrolled map (the same steps, held fixed) with respect to a
// scalar weight, a data image, a kernel and each iteration's step sizes; checkpointing; a loss that
// does not depend on a parameter; the bad inputs.
//
// The finite differences are taken of a float64 transcription of the iterations (Reference), which
// must first reproduce ProxGen's float32 iterate: ProxGen's map runs in float32, where a finite
// difference small enough to be a derivative drowns in rounding (a step size's effect on the loss
// is ~1e-6 of it), and a large one crosses the proxes' kinks (nonneg, the group threshold of total
// variation). In float64 a step of 1e-6 is both.
#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <random>
#include <string>

#include "proxgen/proxgen.hpp"

namespace pg = proxgen;
namespace rt = proxgen::rt;

namespace {

/// Not a multiple of the reverse pass's 16-lane reductions: their partial last block runs too.
constexpr int kSize = 18;
/// The iterations checked against the reference: few enough that every iteration's step gradient
/// stands above float32's rounding (near convergence, after ~20 iterations here, the late steps'
/// gradients shrink to ~1e-6 of the loss's scale, where the float32 reverse pass's rounding
/// reaches 1e-2 of them).
constexpr int kRefIters = 8;

pg::Image random_image(int w, int h, unsigned seed) {
    pg::Image img(w, h);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = d(gen);
    return img;
}

/// A smooth scene with an edge (so that total variation has something to keep) plus noise.
pg::Image scene(int n, unsigned seed) {
    pg::Image img(n, n);
    std::mt19937 gen(seed);
    std::normal_distribution<float> noise(0.0f, 0.05f);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x)
            img(x, y) = 0.5f + 0.3f * std::sin(0.4f * x) * std::cos(0.3f * y) + (x > n / 2 ? 0.2f : 0.0f) + noise(gen);
    return img;
}

pg::Image blur_kernel() {
    pg::Image k(3, 3);
    const float v[9] = {0.05f, 0.1f, 0.05f, 0.1f, 0.4f, 0.1f, 0.05f, 0.1f, 0.05f};
    for (int i = 0; i < 9; ++i) k.data()[i] = v[i];
    return k;
}

double rel(double a, double b) { return std::abs(a - b) / std::max({std::abs(a), std::abs(b), 1e-12}); }

double along(const pg::Image& g, const pg::Image& d) {
    double s = 0;
    for (std::size_t i = 0; i < g.size(); ++i) s += double(g.data()[i]) * d.data()[i];
    return s;
}

enum class Kind { quadratic, poisson, tv };

/// Deconvolution with a named weight (λ), data (b) and kernel (k):
///  quadratic  sum_squares(conv(k, x) − b) + λ sum_squares(grad x) + nonneg(x): b and k inside the
///             x-update's quadratic, nonneg split;
///  poisson    poisson_norm(conv(k, x), b) + λ sum_squares(grad x): b the split penalty's data, k
///             inside its operator (the prox is smooth where b > 0);
///  tv         sum_squares(conv(k, x) − b) + λ group_norm1(grad x) + nonneg(x).
/// Periodic boundaries keep ADMM's x-update an FFT solve.
rt::Problem deconvolution(const pg::Image& observed, Kind kind) {
    auto x = rt::variable("x", {kSize, kSize});
    auto k = rt::input("k", blur_kernel());
    auto b = rt::input("b", observed);
    auto lambda = rt::parameter("lambda", 0.05);
    auto g = rt::grad(x, rt::GradBoundary::periodic);
    switch (kind) {
    case Kind::quadratic: return rt::sum_squares(rt::conv(k, x) - b) + lambda * rt::sum_squares(g) + rt::nonneg(x);
    case Kind::poisson: return rt::poisson_norm(rt::conv(k, x), b) + lambda * rt::sum_squares(g);
    case Kind::tv: break;
    }
    return rt::sum_squares(rt::conv(k, x) - b) + lambda * rt::group_norm1(g) + rt::nonneg(x);
}

// ---- a float64 reference: the three algorithms, written out --------------------------------------

/// deconvolution(kind) as ProxGen plans it, in float64 from a zero state. Ω (the quadratics, solved
/// exactly in the x-update) is Σ α‖A x + c‖²; each split term is f_i(K_i x) with prox_{t f_i}:
///   quadratic  Ω = ‖K x − b‖² + λ‖G x‖²,  Ψ = {nonneg(x)}
///   poisson    Ω = λ‖G x‖²,               Ψ = {poisson_norm(K x, b)}: prox_{t f}(q) = (q − t + √((q − t)² + 4tb))/2
///   tv         Ω = ‖K x − b‖²,            Ψ = {λ group_norm1(G x), nonneg(x)}
/// with K = conv(k) (circular), G = grad (forward differences, periodic), H = Σ α AᵀA, h = Σ α Aᵀc:
///   Pock–Chambolle (σ, τ, θ):  x̄ = x + θ(x − x_prev),  w_i = y_i + σ K_i x̄,  y⁺_i = w_i − σ prox_{f_i/σ}(w_i/σ),
///                              x⁺ = (I + 2τH)⁻¹ (x − τ Σ K_iᵀ y⁺_i − 2τh),  x_prev⁺ = x
///   linearized ADMM (l, μ):    u_i ← u_i · l_k / l_{k−1},
///                              x⁺ = (I + 2μH)⁻¹ (x − (μ/l) Σ K_iᵀ(K_i x − z_i + u_i) − 2μh),
///                              q_i = K_i x⁺ + u_i,  z⁺_i = prox_{l f_i}(q_i),  u⁺_i = q_i − z⁺_i
///   ADMM (ρ):                  u_i ← u_i · ρ_{k−1} / ρ_k,  x⁺ = (2H + ρ Σ K_iᵀK_i)⁻¹ (ρ Σ K_iᵀ(z_i − u_i) − 2h),
///                              q_i = K_i x⁺ + u_i,  z⁺_i = prox_{f_i/ρ}(q_i),  u⁺_i = q_i − z⁺_i
struct Reference {
    pg::Algorithm algorithm = pg::Algorithm::pock_chambolle;
    Kind kind = Kind::poisson;
    int n = kSize;
    std::vector<double> k, b, ref;  // 3x3, n², n²
    double lambda = 0.05;
    std::vector<double> lambda_schedule;     // per iteration (empty: λ throughout)
    std::vector<std::vector<double>> steps;  // per iteration, in step_names order
    mutable double lam = 0;                  // this iteration's λ

    using Vec = std::vector<double>;
    std::size_t pixels() const { return std::size_t(n) * n; }
    int at(int x, int y) const { return ((y + n) % n) * n + (x + n) % n; }
    /// K e (p) = Σ_ab k(a, b) e(p − (a − 1, b − 1)); Kᵀ its transpose.
    /// (The finite differences run this thousands of times: the circular neighbours come from a
    /// table made once, in the same order of accumulation as the loops over x, y, b, a.)
    Vec conv(const Vec& e, bool transpose) const {
        const std::vector<int>& taps = circular_taps();
        Vec out(e.size(), 0.0);
        for (std::size_t p = 0; p < pixels(); ++p)
            for (int j = 0; j < 9; ++j) {
                const int q = taps[p * 9 + std::size_t(j)];
                if (transpose) out[q] += k[std::size_t(j)] * e[p];
                else out[p] += k[std::size_t(j)] * e[q];
            }
        return out;
    }
    /// taps[p · 9 + 3b + a] = at(x − (a − 1), y − (b − 1)) for p = at(x, y)
    const std::vector<int>& circular_taps() const {
        if (taps_.empty()) {
            taps_.resize(pixels() * 9);
            for (int y = 0; y < n; ++y)
                for (int x = 0; x < n; ++x)
                    for (int bb = 0; bb < 3; ++bb)
                        for (int a = 0; a < 3; ++a)
                            taps_[std::size_t(at(x, y)) * 9 + std::size_t(bb * 3 + a)] = at(x - (a - 1), y - (bb - 1));
        }
        return taps_;
    }
    mutable std::vector<int> taps_;
    /// G e: the x differences, then the y differences (n² each); Gᵀ its transpose.
    Vec grad(const Vec& e, bool transpose) const {
        const std::size_t P = pixels();
        Vec out(transpose ? P : 2 * P, 0.0);
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) {
                const int p = at(x, y), px = at(x + 1, y), py = at(x, y + 1);
                if (!transpose) {
                    out[p] = e[px] - e[p];
                    out[P + p] = e[py] - e[p];
                } else {
                    out[px] += e[p];
                    out[p] -= e[p] + e[P + p];
                    out[py] += e[P + p];
                }
            }
        return out;
    }
    int terms() const { return kind == Kind::tv ? 2 : 1; }
    std::size_t term_size(int i) const { return kind == Kind::tv && i == 0 ? 2 * pixels() : pixels(); }
    Vec K(int i, const Vec& e, bool transpose) const {
        if (kind == Kind::poisson) return conv(e, transpose);
        if (kind == Kind::tv && i == 0) return grad(e, transpose);
        return e;  // nonneg(x)
    }
    Vec prox(int i, const Vec& q, double t) const {
        Vec z(q.size());
        if (kind == Kind::poisson) {
            for (std::size_t j = 0; j < q.size(); ++j) {
                const double m = q[j] - t;
                z[j] = 0.5 * (m + std::sqrt(m * m + 4 * t * b[j]));
            }
        } else if (kind == Kind::tv && i == 0) {  // groups: a pixel's two differences
            const std::size_t P = pixels();
            for (std::size_t j = 0; j < P; ++j) {
                const double norm = std::hypot(q[j], q[P + j]);
                const double s = norm > t * lam ? 1 - t * lam / norm : 0.0;
                z[j] = s * q[j];
                z[P + j] = s * q[P + j];
            }
        } else {
            for (std::size_t j = 0; j < q.size(); ++j) z[j] = std::max(q[j], 0.0);
        }
        return z;
    }
    /// (ci I + ch H + ck Σ K_iᵀK_i) e
    Vec normal(const Vec& e, double ci, double ch, double ck) const {
        Vec out(e.size());
        for (std::size_t j = 0; j < e.size(); ++j) out[j] = ci * e[j];
        auto add = [&](const Vec& v, double c) {
            for (std::size_t j = 0; j < e.size(); ++j) out[j] += c * v[j];
        };
        if (kind != Kind::tv) add(grad(grad(e, false), true), ch * lam);
        if (kind != Kind::poisson) add(conv(conv(e, false), true), ch);
        if (ck != 0)
            for (int i = 0; i < terms(); ++i) add(K(i, K(i, e, false), true), ck);
        return out;
    }
    /// h = Σ α Aᵀc: −Kᵀb where the data term is in Ω.
    Vec omega_offset() const {
        Vec h(pixels(), 0.0);
        if (kind == Kind::poisson) return h;
        const Vec ktb = conv(b, true);
        for (std::size_t j = 0; j < h.size(); ++j) h[j] = -ktb[j];
        return h;
    }
    /// Conjugate gradients, a fixed number of iterations that reaches float64's rounding for these
    /// well-conditioned matrices: a fixed count keeps the solve a smooth function of its data (a
    /// stopping test would make the finite differences jump by the solve's tolerance).
    Vec solve(const Vec& rhs, double ci, double ch, double ck) const {
        Vec x(rhs.size(), 0.0), r = rhs, p = rhs;
        double rr = 0;
        for (double v : r) rr += v * v;
        for (int it = 0; it < 150 && rr > 1e-300; ++it) {
            const Vec Ap = normal(p, ci, ch, ck);
            double pAp = 0;
            for (std::size_t i = 0; i < p.size(); ++i) pAp += p[i] * Ap[i];
            const double alpha = rr / pAp;
            double rr2 = 0;
            for (std::size_t i = 0; i < p.size(); ++i) {
                x[i] += alpha * p[i];
                r[i] -= alpha * Ap[i];
                rr2 += r[i] * r[i];
            }
            for (std::size_t i = 0; i < p.size(); ++i) p[i] = r[i] + rr2 / rr * p[i];
            rr = rr2;
        }
        return x;
    }
    Vec run() const {
        const std::size_t P = pixels();
        const int m = terms();
        const Vec h = omega_offset();
        Vec x(P, 0.0), xp(P, 0.0);
        std::vector<Vec> y, z, u;
        for (int i = 0; i < m; ++i) {
            y.emplace_back(term_size(i), 0.0);
            z.emplace_back(term_size(i), 0.0);
            u.emplace_back(term_size(i), 0.0);
        }
        auto axpy_into = [](Vec& acc, double c, const Vec& v) {
            for (std::size_t j = 0; j < acc.size(); ++j) acc[j] += c * v[j];
        };
        for (std::size_t it = 0; it < steps.size(); ++it) {
            const auto& s = steps[it];
            const auto& prev = steps[it > 0 ? it - 1 : 0];
            lam = lambda_schedule.empty() ? lambda : lambda_schedule[it];
            if (algorithm == pg::Algorithm::pock_chambolle) {
                const double sigma = s[0], tau = s[1], theta = s[2];
                Vec xbar(P);
                for (std::size_t j = 0; j < P; ++j) xbar[j] = x[j] + theta * (x[j] - xp[j]);
                Vec v = x;
                axpy_into(v, -2 * tau, h);
                for (int i = 0; i < m; ++i) {
                    Vec w = y[i];
                    axpy_into(w, sigma, K(i, xbar, false));
                    Vec ws = w;
                    for (double& e : ws) e /= sigma;
                    const Vec pz = prox(i, ws, 1 / sigma);
                    for (std::size_t j = 0; j < w.size(); ++j) y[i][j] = w[j] - sigma * pz[j];
                    axpy_into(v, -tau, K(i, y[i], true));
                }
                xp = x;
                x = solve(v, 1, 2 * tau, 0);
                continue;
            }
            const bool linearized = algorithm == pg::Algorithm::ladmm;
            const double rescale = linearized ? s[0] / prev[0] : prev[0] / s[0];
            for (auto& ui : u)
                for (double& e : ui) e *= rescale;
            if (linearized) {
                const double l = s[0], mu = s[1];
                Vec v = x;
                axpy_into(v, -2 * mu, h);
                for (int i = 0; i < m; ++i) {
                    Vec r = K(i, x, false);
                    for (std::size_t j = 0; j < r.size(); ++j) r[j] += u[i][j] - z[i][j];
                    axpy_into(v, -mu / l, K(i, r, true));
                }
                x = solve(v, 1, 2 * mu, 0);
            } else {
                const double rho = s[0];
                Vec rhs(P, 0.0);
                axpy_into(rhs, -2, h);
                for (int i = 0; i < m; ++i) {
                    Vec d = z[i];
                    axpy_into(d, -1, u[i]);
                    axpy_into(rhs, rho, K(i, d, true));
                }
                x = solve(rhs, 0, 2, rho);
            }
            const double t = linearized ? s[0] : 1 / s[0];  // the z-update's prox weight
            for (int i = 0; i < m; ++i) {
                Vec q = K(i, x, false);
                axpy_into(q, 1, u[i]);
                z[i] = prox(i, q, t);
                for (std::size_t j = 0; j < q.size(); ++j) u[i][j] = q[j] - z[i][j];
            }
        }
        return x;
    }
    double loss() const {
        const Vec x = run();
        double s = 0;
        for (std::size_t i = 0; i < x.size(); ++i) s += (x[i] - ref[i]) * (x[i] - ref[i]);
        return s;
    }
};

std::vector<double> to_vec(const pg::Image& img) { return {img.data(), img.data() + img.size()}; }

/// A gradient and the unrolled map it was taken of.
struct Check {
    pg::Options opt;
    pg::Loss loss;
    pg::Gradient g;
    pg::GradientOptions fixed;  // the steps the gradient was taken with
};

Check gradient_of(const rt::Problem& prob, pg::Algorithm a, const pg::Image& reference,
                  std::vector<std::string> wrt, int iterations = kRefIters) {
    pg::Options opt;
    opt.algorithm = a;
    opt.max_iters = iterations;
    const pg::Loss loss = pg::Loss::sum_squares(reference);
    pg::GradientOptions go;
    go.wrt = std::move(wrt);
    pg::Gradient g = rt::gradient(prob, opt, loss, go);
    REQUIRE(g.iterations == iterations);
    REQUIRE(int(g.step_values.size()) == iterations);
    pg::GradientOptions fixed;
    fixed.step_schedule = g.step_values;
    Check c{opt, loss, std::move(g), fixed};
    // the gradient's loss is the unrolled map's, run again with the same steps
    CHECK(rel(loss.value(rt::unrolled(prob, opt, fixed)), c.g.loss) < 1e-6);
    return c;
}

}  // namespace

TEST_CASE("unrolled gradients against float64 finite differences: weight, data, kernel, every step",
          "[gradients]") {
    const auto [a, algorithm] = GENERATE(table<pg::Algorithm, const char*>({
        {pg::Algorithm::pock_chambolle, "Pock-Chambolle"},
        {pg::Algorithm::ladmm, "linearized ADMM"},
        {pg::Algorithm::admm, "ADMM"},
    }));
    const auto [kind, problem] = GENERATE(table<Kind, const char*>({
        {Kind::quadratic, "quadratic data term, nonneg"},
        {Kind::poisson, "Poisson data term"},
        {Kind::tv, "total variation, nonneg"},
    }));
    INFO(algorithm << ", " << problem);
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, kind);
    const Check c = gradient_of(prob, a, clean, {"lambda", "b", "k"});
    Reference r;
    r.algorithm = a;
    r.kind = kind;
    r.k = to_vec(blur_kernel());
    r.b = to_vec(clean);
    r.ref = to_vec(clean);
    r.steps = c.g.step_values;
    // the same map: ProxGen's float32 iterations follow the float64 ones
    const std::vector<double> x64 = r.run();
    const pg::Image x32 = rt::unrolled(prob, c.opt, c.fixed);
    double err = 0, scale = 0;
    for (std::size_t i = 0; i < x64.size(); ++i) {
        err = std::max(err, std::abs(x64[i] - x32.data()[i]));
        scale = std::max(scale, std::abs(x64[i]));
    }
    INFO("max |x32 - x64| = " << err << " of " << scale);
    REQUIRE(err < 1e-5 * scale);
    CHECK(rel(r.loss(), c.g.loss) < 1e-4);

    // float64 central differences with small steps (the map is smooth: b > 0)
    auto fd = [](const std::function<double(double)>& f, double h) { return (f(h) - f(-h)) / (2 * h); };
    auto expect = [](const std::string& what, double analytic, double numeric) {
        INFO(what << ": analytic " << analytic << ", float64 finite differences " << numeric);
        CHECK(rel(analytic, numeric) < 1e-3);
    };
    expect("lambda", c.g.parameters.at("lambda"), fd([&](double e) {
        Reference q = r;
        q.lambda += e;
        return q.loss();
    }, 1e-6));
    const pg::Image db = random_image(kSize, kSize, 7), dk = random_image(3, 3, 9);
    expect("b", along(c.g.inputs.at("b"), db), fd([&](double e) {
        Reference q = r;
        for (std::size_t i = 0; i < q.b.size(); ++i) q.b[i] += e * db.data()[i];
        return q.loss();
    }, 1e-6));
    expect("k", along(c.g.inputs.at("k"), dk), fd([&](double e) {
        Reference q = r;
        for (std::size_t i = 0; i < q.k.size(); ++i) q.k[i] += e * dk.data()[i];
        return q.loss();
    }, 1e-6));
    // every iteration's steps: where a step has no effect (σ and θ while the nonneg dual stays 0) both
    // are 0 up to float32's rounding of the reverse pass, ~1e-6 of the largest step gradient
    std::vector<double> numeric(c.g.step_names.size() * kRefIters);
    double largest = 0;
    for (int it = 0; it < kRefIters; ++it)
        for (std::size_t j = 0; j < c.g.step_names.size(); ++j) {
            double& d = numeric[it * c.g.step_names.size() + j];
            d = fd([&](double e) {
                Reference q = r;
                q.steps[it][j] += e;
                return q.loss();
            }, 1e-5);
            largest = std::max(largest, std::abs(d));
        }
    REQUIRE(largest > 0);
    for (int it = 0; it < kRefIters; ++it)
        for (std::size_t j = 0; j < c.g.step_names.size(); ++j) {
            const double analytic = c.g.step_gradients[it][j], d = numeric[it * c.g.step_names.size() + j];
            INFO("iteration " << it << "'s " << c.g.step_names[j] << ": analytic " << analytic
                              << ", float64 finite differences " << d << " (largest " << largest << ")");
            CHECK(std::abs(analytic - d) <= 1e-3 * std::max(std::abs(analytic), std::abs(d)) + 1e-6 * largest);
        }
}

TEST_CASE("a parameter schedule: each iteration's weight against float64 finite differences", "[gradients]") {
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::tv);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::ladmm;
    opt.max_iters = kRefIters;
    pg::GradientOptions go;
    go.wrt = {"lambda"};
    for (int k = 0; k < kRefIters; ++k) go.parameter_schedule["lambda"].push_back(0.03 + 0.01 * k);
    const pg::Loss loss = pg::Loss::sum_squares(clean);
    const pg::Gradient g = rt::gradient(prob, opt, loss, go);
    const std::vector<double>& per = g.schedule_gradients.at("lambda");
    REQUIRE(int(per.size()) == kRefIters);
    Reference r;
    r.algorithm = opt.algorithm;
    r.kind = Kind::tv;
    r.k = to_vec(blur_kernel());
    r.b = to_vec(clean);
    r.ref = to_vec(clean);
    r.steps = g.step_values;
    r.lambda_schedule = go.parameter_schedule.at("lambda");
    CHECK(rel(r.loss(), g.loss) < 1e-4);
    for (int k = 0; k < kRefIters; ++k) {
        const double numeric = [&] {
            const double h = 1e-6;
            Reference q = r;
            q.lambda_schedule[k] += h;
            const double up = q.loss();
            q.lambda_schedule[k] -= 2 * h;
            return (up - q.loss()) / (2 * h);
        }();
        INFO("iteration " << k << ": analytic " << per[k] << ", float64 finite differences " << numeric);
        CHECK(rel(per[k], numeric) < 1e-3);
    }
}

TEST_CASE("checkpointing recomputes the same states: the gradient does not depend on the states kept",
          "[gradients]") {
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::tv);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 40;
    const pg::Loss loss = pg::Loss::sum_squares(clean);
    auto with = [&](int checkpoints) {
        pg::GradientOptions go;
        go.checkpoints = checkpoints;
        return rt::gradient(prob, opt, loss, go);
    };
    const pg::Gradient all = with(40), few = with(3), one = with(1);
    CHECK(all.forward_steps == 40);  // every state kept: no recomputation
    CHECK(few.forward_steps > 40);
    CHECK(one.forward_steps > few.forward_steps);
    CHECK(one.backward_bytes < all.backward_bytes);
    for (const pg::Gradient* g : {&few, &one}) {
        CHECK(g->loss == all.loss);
        CHECK(g->parameters == all.parameters);
        CHECK(g->step_gradients == all.step_gradients);
        for (const auto& [name, img] : all.inputs) {
            const pg::Image& other = g->inputs.at(name);
            CHECK(std::equal(img.data(), img.data() + img.size(), other.data()));
        }
    }
}

TEST_CASE("a given dL/dx gives the built-in loss's gradient", "[gradients]") {
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::tv);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::ladmm;
    opt.max_iters = 10;
    const pg::Gradient built_in = rt::gradient(prob, opt, pg::Loss::sum_squares(clean));
    pg::Image dldx = pg::Loss::sum_squares(clean).gradient_at(built_in.x);
    const pg::Gradient given = rt::gradient(prob, opt, pg::Loss::gradient(dldx));
    CHECK(std::isnan(given.loss));
    CHECK(given.parameters == built_in.parameters);
    CHECK(given.step_gradients == built_in.step_gradients);
}

TEST_CASE("a parameter the loss does not depend on has a zero gradient", "[gradients]") {
    // λ·nonneg(x) is nonneg(x) for every λ > 0: the solution, hence the loss, ignores λ
    const pg::Image clean = scene(kSize, 2);
    auto x = rt::variable("x", {kSize, kSize});
    const rt::Problem prob = rt::sum_squares(x - rt::input("b", clean)) + rt::parameter("mu", 0.5) * rt::nonneg(x) +
                             0.05 * rt::group_norm1(rt::grad(x));
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 10;
    const pg::Gradient g = rt::gradient(prob, opt, pg::Loss::sum_squares(scene(kSize, 3)));
    CHECK(g.parameters.at("mu") == 0.0);
    double nb = 0;
    for (std::size_t i = 0; i < g.inputs.at("b").size(); ++i) nb += std::abs(g.inputs.at("b").data()[i]);
    CHECK(nb > 0);  // while the data's is not
}

TEST_CASE("gradients: bad input is a clear error", "[gradients]") {
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::tv);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 3;
    using Catch::Matchers::Contains;
    SECTION("a name the problem does not have") {
        pg::GradientOptions go;
        go.wrt = {"lambda", "kernel"};
        CHECK_THROWS_WITH(rt::gradient(prob, opt, pg::Loss::sum_squares(clean), go),
                          Contains("no input or parameter named 'kernel'") && Contains("its inputs: "));
    }
    SECTION("dL/dx of the wrong shape") {
        CHECK_THROWS_WITH(rt::gradient(prob, opt, pg::Loss::gradient(pg::Image(8, 8))),
                          Contains("dL/dx is 8x8") && Contains("the variable is 18x18"));
    }
    SECTION("a penalty whose prox has no derivative") {
        auto x = rt::variable("x", {kSize, kSize});
        const rt::Problem q = rt::sum_squares(x - rt::input("b", clean)) + rt::patch_nlm(x);
        CHECK_THROWS_WITH(rt::gradient(q, opt, pg::Loss::sum_squares(clean)),
                          Contains("patch_nlm") && Contains("no derivative"));
    }
    SECTION("a step schedule of the wrong length") {
        pg::GradientOptions go;
        go.step_schedule = {{0.1, 0.1, 1.0}};
        CHECK_THROWS_WITH(rt::gradient(prob, opt, pg::Loss::sum_squares(clean), go),
                          Contains("step_schedule has 1 iterations but Options::max_iters is 3"));
    }
    SECTION("an algorithm that is not differentiated") {
        opt.algorithm = pg::Algorithm::hqs;
        CHECK_THROWS_WITH(rt::gradient(prob, opt, pg::Loss::sum_squares(clean)), Contains("not differentiated"));
    }
}


// No silent wrong answer (item 3 of that round): gradients apply solve's option checks, refuse
// what they cannot differentiate as run, and never return a non-finite number.
TEST_CASE("gradients refuse what they cannot differentiate, and never return NaN (no silent wrong answer: item 3)",
          "[gradients][refuse]") {
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::tv);
    const pg::Loss loss = pg::Loss::sum_squares(clean);
    pg::Options opt;
    opt.algorithm = pg::Algorithm::pock_chambolle;
    opt.max_iters = 3;
    using Catch::Matchers::Contains;
    SECTION("the options solve refuses") {
        pg::Options o = opt;
        o.tau = -1;
        CHECK_THROWS_WITH(rt::gradient(prob, o, loss), Contains("tau"));
        o = opt;
        o.algorithm = pg::Algorithm::admm;
        o.rho = -5;
        CHECK_THROWS_WITH(rt::gradient(prob, o, loss), Contains("rho"));
    }
    SECTION("preconditioning, which the gradients do not run") {
        pg::Options o = opt;
        o.precondition = true;
        CHECK_THROWS_WITH(rt::gradient(prob, o, loss), Contains("precondition is not differentiated"));
    }
    SECTION("gradient options out of range") {
        pg::GradientOptions go;
        go.memory_factor = INFINITY;
        CHECK_THROWS_WITH(rt::gradient(prob, opt, loss, go), Contains("memory_factor must be finite and > 0"));
        go = {};
        go.mode = pg::GradientMode::implicit;
        go.adjoint_tol = -1;
        CHECK_THROWS_WITH(rt::gradient(prob, opt, loss, go), Contains("adjoint_tol must be finite and > 0"));
        go.adjoint_tol = 1e-6;
        go.adjoint_max_iters = -3;
        CHECK_THROWS_WITH(rt::gradient(prob, opt, loss, go), Contains("adjoint_max_iters must be >= 1"));
    }
    SECTION("NaN in the reference or in dL/dx") {
        pg::Image bad = clean.copy();
        bad(2, 3) = NAN;
        CHECK_THROWS_WITH(pg::Loss::sum_squares(bad), Contains("reference image") && Contains("(2, 3)"));
        CHECK_THROWS_WITH(pg::Loss::gradient(bad), Contains("dL/dx") && Contains("(2, 3)"));
    }
    SECTION("an implicit gradient at a forward solve that did not converge") {
        pg::Options o = opt;
        o.max_iters = 5;
        pg::GradientOptions go;
        go.mode = pg::GradientMode::implicit;
        CHECK_THROWS_WITH(rt::gradient(prob, o, loss, go), Contains("the forward solve did not converge"));
    }
    SECTION("a step schedule that diverges") {
        pg::GradientOptions go;
        go.step_schedule.assign(20, {1e6, 1e6, 1.0});  // τσ‖K‖² far above 1: float32 overflows
        opt.max_iters = 20;
        CHECK_THROWS_WITH(rt::gradient(prob, opt, loss, go), Contains("is not finite"));
    }
}

TEST_CASE("implicit gradients equal the unrolled gradient at convergence", "[gradients]") {
    const auto [a, algorithm] = GENERATE(table<pg::Algorithm, const char*>({
        {pg::Algorithm::pock_chambolle, "Pock-Chambolle"},
        {pg::Algorithm::ladmm, "linearized ADMM"},
        {pg::Algorithm::admm, "ADMM"},
    }));
    INFO(algorithm);
    const pg::Image clean = scene(kSize, 1);
    const rt::Problem prob = deconvolution(clean, Kind::poisson);
    const pg::Loss loss = pg::Loss::sum_squares(clean);
    pg::Options opt;
    opt.algorithm = a;
    opt.eps_abs = opt.eps_rel = 1e-6;
    opt.adaptive_rho = false;  // the implicit mode differentiates the fixed point of fixed steps
    pg::GradientOptions implicit;
    implicit.mode = pg::GradientMode::implicit;
    const pg::Gradient gi = rt::gradient(prob, opt, loss, implicit);
    CHECK(gi.solve.converged);
    CHECK(gi.adjoint_converged);
    opt.max_iters = 200;  // several times the iterations the solve needed (~40)
    REQUIRE(gi.iterations < opt.max_iters / 4);
    const pg::Gradient gu = rt::gradient(prob, opt, loss);
    INFO("lambda: implicit " << gi.parameters.at("lambda") << ", unrolled " << gu.parameters.at("lambda"));
    CHECK(rel(gi.parameters.at("lambda"), gu.parameters.at("lambda")) < 1e-2);
    for (const char* name : {"b", "k"}) {
        const pg::Image &A = gi.inputs.at(name), &B = gu.inputs.at(name);
        double d2 = 0, n2 = 0;
        for (std::size_t i = 0; i < A.size(); ++i) {
            d2 += std::pow(double(A.data()[i]) - B.data()[i], 2);
            n2 += std::pow(double(B.data()[i]), 2);
        }
        INFO(name << ": ||implicit - unrolled|| / ||unrolled|| = " << std::sqrt(d2 / n2));
        CHECK(std::sqrt(d2 / n2) < 1e-2);
    }
}

// ---- the planning map's derivative (silent wrong answers, item 2) ----------------------------------
// Each rewrite rule folds named values into the plan's data; the gradient carries their derivatives
// through the rules exactly. Quadratic problems whose x-update solves them in one step have closed
// forms x*(v) to check dL/dv against, each problem exercising one rule (and merging, which divides).

namespace {

/// Σ 2 (x* − r) ⊙ dx*/dv, the closed-form dL/dv of Loss::sum_squares(r) at x*.
double chain(const pg::Image& x, const pg::Image& r, const std::function<double(std::size_t)>& dx) {
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i) s += 2.0 * (double(x.data()[i]) - r.data()[i]) * dx(i);
    return s;
}

struct Fold {
    const char* rule;
    rt::Problem prob;
    std::function<double(std::size_t)> x_star;  // the closed-form solution, per pixel
    std::string parameter;
    std::function<double(std::size_t)> dx_dparameter;
};

}  // namespace

TEST_CASE("gradients through the rewrite rules' folding equal closed forms, merged terms included (item 2)",
          "[gradients][planning]") {
    const int n = 8;
    const pg::Image b1 = scene(n, 11), b2 = scene(n, 12), r = scene(n, 13);
    auto x = rt::variable("x", {n, n});
    auto B1 = rt::input("b1", b1), B2 = rt::input("b2", b2);
    const double lam = 0.7, s = 1.6;
    auto at = [](const pg::Image& i) { return [i](std::size_t k) { return double(i.data()[k]); }; };
    const auto p1 = at(b1), p2 = at(b2);
    std::vector<Fold> folds;
    // merge_quadratics: x* = (b1 + λ b2)/(1 + λ), the example that was 5 % off
    folds.push_back({"merge", rt::sum_squares(x - B1) + rt::parameter("lam", lam) * rt::sum_squares(x - B2),
                     [=](std::size_t k) { return (p1(k) + lam * p2(k)) / (1 + lam); }, "lam",
                     [=](std::size_t k) { return (p2(k) - p1(k)) / ((1 + lam) * (1 + lam)); }});
    // absorb_scale then absorb_offset: ‖s x − b1‖², x* = b1 / s
    folds.push_back({"scale", rt::sum_squares(rt::parameter("s", s) * x - B1), [=](std::size_t k) { return p1(k) / s; },
                     "s", [=](std::size_t k) { return -p1(k) / (s * s); }});
    // the scale inside the offset's argument and a merge: ‖s (x − b1)‖² + λ‖x − b2‖²,
    // x* = (s² b1 + λ b2)/(s² + λ)
    folds.push_back({"scale, offset and merge",
                     rt::sum_squares(rt::parameter("s", s) * (x - B1)) + lam * rt::sum_squares(x - B2),
                     [=](std::size_t k) { return (s * s * p1(k) + lam * p2(k)) / (s * s + lam); }, "s",
                     [=](std::size_t k) {
                         const double D = s * s + lam;
                         return (2 * s * p1(k) * D - (s * s * p1(k) + lam * p2(k)) * 2 * s) / (D * D);
                     }});
    for (Fold& f : folds) {
        INFO(f.rule);
        for (const pg::Algorithm a : {pg::Algorithm::pock_chambolle, pg::Algorithm::ladmm, pg::Algorithm::admm}) {
            INFO(pg::name(a));
            pg::Options opt;
            opt.algorithm = a;
            opt.max_iters = 3;
            const pg::Gradient g = rt::gradient(f.prob, opt, pg::Loss::sum_squares(r));
            for (std::size_t k = 0; k < g.x.size(); ++k) REQUIRE(std::abs(g.x.data()[k] - f.x_star(k)) < 1e-5);
            const double exact = chain(g.x, r, f.dx_dparameter);
            INFO("dL/d" << f.parameter << ": " << g.parameters.at(f.parameter) << ", closed form " << exact);
            CHECK(rel(g.parameters.at(f.parameter), exact) < 1e-4);
        }
    }
}

TEST_CASE("gradients with respect to a weight image and the offsets it multiplies equal closed forms (item 2)",
          "[gradients][planning]") {
    // absorb_weights and absorb_offset under a weight: ‖w ⊙ x − b1‖² + λ‖x − b2‖²,
    // x* = (w b1 + λ b2)/(w² + λ) per pixel
    const int n = 8;
    const pg::Image b1 = scene(n, 21), b2 = scene(n, 22), r = scene(n, 23);
    pg::Image w = scene(n, 24);
    for (std::size_t i = 0; i < w.size(); ++i) w.data()[i] = 0.5f + w.data()[i];
    auto x = rt::variable("x", {n, n});
    const double lam = 0.3;
    const rt::Problem prob = rt::sum_squares(rt::mul_elemwise(rt::input("w", w), x) - rt::input("b1", b1)) +
                             lam * rt::sum_squares(x - rt::input("b2", b2));
    pg::Options opt;
    opt.algorithm = pg::Algorithm::admm;
    opt.max_iters = 3;
    const pg::Gradient g = rt::gradient(prob, opt, pg::Loss::sum_squares(r));
    for (std::size_t k = 0; k < g.x.size(); ++k) {
        const double wk = w.data()[k], D = wk * wk + lam;
        const double xs = (wk * b1.data()[k] + lam * b2.data()[k]) / D;
        REQUIRE(std::abs(g.x.data()[k] - xs) < 1e-5);
        const double dl = 2.0 * (xs - r.data()[k]);
        // dx*/dw = (b1 D − (w b1 + λ b2) 2w)/D², dx*/db1 = w/D, dx*/db2 = λ/D
        CHECK(rel(g.inputs.at("w").data()[k], dl * (b1.data()[k] * D - (wk * b1.data()[k] + lam * b2.data()[k]) * 2 * wk) / (D * D)) < 1e-4);
        CHECK(rel(g.inputs.at("b1").data()[k], dl * wk / D) < 1e-4);
        CHECK(rel(g.inputs.at("b2").data()[k], dl * lam / D) < 1e-4);
    }
}
