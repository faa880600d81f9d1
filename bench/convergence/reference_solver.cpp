#include "reference_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace proxgen::bench::ref {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct Identity final : Op {
    std::size_t n;
    explicit Identity(std::size_t n_) : n(n_) {}
    std::size_t in_size() const override { return n; }
    std::size_t out_size() const override { return n; }
    void apply(const Vec& x, Vec& y) const override { y = x; }
    void adjoint(const Vec& y, Vec& x) const override { x = y; }
};

struct Conv final : Op {
    Vec k;
    int kw, kh, w, h, c;
    std::size_t in_size() const override { return std::size_t(w) * h * c; }
    std::size_t out_size() const override { return in_size(); }
    // out(X, Y) = Σ k(a, b) x((X − a + kw/2) mod w, (Y − b + kh/2) mod h)
    void apply(const Vec& x, Vec& y) const override {
        y.assign(in_size(), 0.0);
        for (int ch = 0; ch < c; ++ch) {
            const double* xc = x.data() + std::size_t(ch) * w * h;
            double* yc = y.data() + std::size_t(ch) * w * h;
            for (int b = 0; b < kh; ++b)
                for (int a = 0; a < kw; ++a) {
                    const double kv = k[std::size_t(b) * kw + a];
                    if (kv == 0) continue;
                    const int dy = ((kh / 2 - b) % h + h) % h, dx = ((kw / 2 - a) % w + w) % w;
                    for (int Y = 0; Y < h; ++Y) {
                        const double* row = xc + std::size_t((Y + dy) % h) * w;
                        double* out = yc + std::size_t(Y) * w;
                        for (int X = 0; X < w; ++X) out[X] += kv * row[(X + dx) % w];
                    }
                }
        }
    }
    void adjoint(const Vec& y, Vec& x) const override {
        x.assign(in_size(), 0.0);
        for (int ch = 0; ch < c; ++ch) {
            const double* yc = y.data() + std::size_t(ch) * w * h;
            double* xc = x.data() + std::size_t(ch) * w * h;
            for (int b = 0; b < kh; ++b)
                for (int a = 0; a < kw; ++a) {
                    const double kv = k[std::size_t(b) * kw + a];
                    if (kv == 0) continue;
                    const int dy = ((kh / 2 - b) % h + h) % h, dx = ((kw / 2 - a) % w + w) % w;
                    for (int Y = 0; Y < h; ++Y) {
                        double* row = xc + std::size_t((Y + dy) % h) * w;
                        const double* in = yc + std::size_t(Y) * w;
                        for (int X = 0; X < w; ++X) row[(X + dx) % w] += kv * in[X];
                    }
                }
        }
    }
};

struct Grad final : Op {
    int n[3];
    std::vector<int> axes;
    std::size_t size() const { return std::size_t(n[0]) * n[1] * n[2]; }
    std::size_t in_size() const override { return size(); }
    std::size_t out_size() const override { return size() * axes.size(); }
    std::size_t stride(int a) const { return a == 0 ? 1 : a == 1 ? std::size_t(n[0]) : std::size_t(n[0]) * n[1]; }
    template <class F>
    void each(F&& f) const {
        for (std::size_t ai = 0; ai < axes.size(); ++ai) {
            const int a = axes[ai];
            const std::size_t s = stride(a);
            std::size_t p = 0;
            for (int z = 0; z < n[2]; ++z)
                for (int y = 0; y < n[1]; ++y)
                    for (int x = 0; x < n[0]; ++x, ++p) {
                        const int coord = a == 0 ? x : a == 1 ? y : z;
                        if (coord < n[a] - 1) f(ai * size() + p, p, p + s);
                    }
        }
    }
    void apply(const Vec& x, Vec& y) const override {
        y.assign(out_size(), 0.0);
        each([&](std::size_t o, std::size_t p, std::size_t q) { y[o] = x[q] - x[p]; });
    }
    void adjoint(const Vec& y, Vec& x) const override {
        x.assign(in_size(), 0.0);
        each([&](std::size_t o, std::size_t p, std::size_t q) {
            x[p] -= y[o];
            x[q] += y[o];
        });
    }
};

struct Mul final : Op {
    Vec wts;
    OpPtr k;
    std::size_t in_size() const override { return k->in_size(); }
    std::size_t out_size() const override { return k->out_size(); }
    void apply(const Vec& x, Vec& y) const override {
        k->apply(x, y);
        for (std::size_t i = 0; i < y.size(); ++i) y[i] *= wts[i];
    }
    void adjoint(const Vec& y, Vec& x) const override {
        Vec t(y.size());
        for (std::size_t i = 0; i < y.size(); ++i) t[i] = wts[i] * y[i];
        k->adjoint(t, x);
    }
};

struct Scale final : Op {
    double s;
    OpPtr k;
    std::size_t in_size() const override { return k->in_size(); }
    std::size_t out_size() const override { return k->out_size(); }
    void apply(const Vec& x, Vec& y) const override {
        k->apply(x, y);
        for (auto& v : y) v *= s;
    }
    void adjoint(const Vec& y, Vec& x) const override {
        k->adjoint(y, x);
        for (auto& v : x) v *= s;
    }
};

struct Sum final : Op {
    std::vector<OpPtr> parts;
    std::size_t in_size() const override { return parts[0]->in_size(); }
    std::size_t out_size() const override { return parts[0]->out_size(); }
    void apply(const Vec& x, Vec& y) const override {
        parts[0]->apply(x, y);
        Vec t;
        for (std::size_t i = 1; i < parts.size(); ++i) {
            parts[i]->apply(x, t);
            for (std::size_t j = 0; j < y.size(); ++j) y[j] += t[j];
        }
    }
    void adjoint(const Vec& y, Vec& x) const override {
        parts[0]->adjoint(y, x);
        Vec t;
        for (std::size_t i = 1; i < parts.size(); ++i) {
            parts[i]->adjoint(y, t);
            for (std::size_t j = 0; j < x.size(); ++j) x[j] += t[j];
        }
    }
};

struct Subsample final : Op {
    int w, h, c, sx, sy;
    OpPtr k;
    int ow() const { return (w + sx - 1) / sx; }
    int oh() const { return (h + sy - 1) / sy; }
    std::size_t in_size() const override { return k->in_size(); }
    std::size_t out_size() const override { return std::size_t(ow()) * oh() * c; }
    void apply(const Vec& x, Vec& y) const override {
        Vec kx;
        k->apply(x, kx);
        y.assign(out_size(), 0.0);
        for (int ch = 0; ch < c; ++ch)
            for (int Y = 0; Y < oh(); ++Y)
                for (int X = 0; X < ow(); ++X)
                    y[(std::size_t(ch) * oh() + Y) * ow() + X] = kx[(std::size_t(ch) * h + Y * sy) * w + X * sx];
    }
    void adjoint(const Vec& y, Vec& x) const override {
        Vec up(std::size_t(w) * h * c, 0.0);
        for (int ch = 0; ch < c; ++ch)
            for (int Y = 0; Y < oh(); ++Y)
                for (int X = 0; X < ow(); ++X)
                    up[(std::size_t(ch) * h + Y * sy) * w + X * sx] = y[(std::size_t(ch) * oh() + Y) * ow() + X];
        k->adjoint(up, x);
    }
};

bool is_identity(const OpPtr& k) { return dynamic_cast<const Identity*>(k.get()) != nullptr; }

/// prox of t·f at v for the penalty f (no weight, no offset), elementwise or by groups, in place.
void prox(const Term& term, double t, Vec& v) {
    const std::size_t n = v.size();
    switch (term.penalty) {
    case Penalty::sum_squares:
        for (auto& e : v) e /= 1 + 2 * t;
        return;
    case Penalty::norm1:
        for (auto& e : v) e = std::copysign(std::max(std::abs(e) - t, 0.0), e);
        return;
    case Penalty::group_norm1: {
        const std::size_t np = n / std::size_t(term.groups);
        for (std::size_t p = 0; p < np; ++p) {
            double s = 0;
            for (int g = 0; g < term.groups; ++g) s += v[g * np + p] * v[g * np + p];
            s = std::sqrt(s);
            const double f = s > t ? 1 - t / s : 0.0;
            for (int g = 0; g < term.groups; ++g) v[g * np + p] *= f;
        }
        return;
    }
    case Penalty::nonneg:
        for (auto& e : v) e = std::max(e, 0.0);
        return;
    case Penalty::box:
        for (auto& e : v) e = std::clamp(e, term.lo, term.hi);
        return;
    case Penalty::huber:
        for (auto& e : v) {
            const double inside = e / (1 + 2 * t);
            e = std::abs(inside) <= term.M ? inside : e - 2 * t * term.M * (e > 0 ? 1.0 : -1.0);
        }
        return;
    case Penalty::poisson:
        for (std::size_t i = 0; i < n; ++i) {
            const double a = v[i] - t;
            v[i] = 0.5 * (a + std::sqrt(a * a + 4 * t * term.b[i]));
        }
        return;
    }
}

double penalty_value(const Term& term, const Vec& v) {
    double s = 0, scale = 1;
    for (double e : v) scale = std::max(scale, std::abs(e));
    const double tol = 1e-9 * scale;
    switch (term.penalty) {
    case Penalty::sum_squares:
        for (double e : v) s += e * e;
        return s;
    case Penalty::norm1:
        for (double e : v) s += std::abs(e);
        return s;
    case Penalty::group_norm1: {
        const std::size_t np = v.size() / std::size_t(term.groups);
        for (std::size_t p = 0; p < np; ++p) {
            double g = 0;
            for (int k = 0; k < term.groups; ++k) g += v[k * np + p] * v[k * np + p];
            s += std::sqrt(g);
        }
        return s;
    }
    case Penalty::nonneg:
        for (double e : v)
            if (e < -tol) return kInf;
        return 0;
    case Penalty::box:
        for (double e : v)
            if (e < term.lo - tol || e > term.hi + tol) return kInf;
        return 0;
    case Penalty::huber:
        for (double e : v) {
            const double a = std::abs(e);
            s += a <= term.M ? a * a : 2 * term.M * a - term.M * term.M;
        }
        return s;
    case Penalty::poisson:
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i] > 0) s += v[i] - (term.b[i] > 0 ? term.b[i] * std::log(v[i]) : 0.0);
            else if (term.b[i] > 0 || v[i] < -tol) return kInf;
        }
        return s;
    }
    return 0;
}

/// The argument K x − b of a term (Poisson: its b is the counts, not an offset).
void argument(const Term& t, const Vec& x, Vec& v) {
    t.K->apply(x, v);
    if (t.penalty != Penalty::poisson && !t.b.empty())
        for (std::size_t i = 0; i < v.size(); ++i) v[i] -= t.b[i];
}

/// prox of t·α f(· − b) at v, in place.
void prox_term(const Term& term, double t, Vec& v) {
    const bool offset = term.penalty != Penalty::poisson && !term.b.empty();
    if (offset)
        for (std::size_t i = 0; i < v.size(); ++i) v[i] -= term.b[i];
    prox(term, t * term.alpha, v);
    if (offset)
        for (std::size_t i = 0; i < v.size(); ++i) v[i] += term.b[i];
}

/// The x-step part of PDHG: terms on x itself whose prox combines in closed form.
bool x_step_term(const Term& t) {
    return is_identity(t.K) &&
           (t.penalty == Penalty::sum_squares || t.penalty == Penalty::nonneg || t.penalty == Penalty::box);
}

/// prox of τ g with g = Σ of x-step terms: (v + 2τ Σαb)/(1 + 2τ Σα), then clamped to the
/// intersection of the intervals.
void prox_g(const std::vector<const Term*>& g, double tau, Vec& v) {
    double A = 0, lo = -kInf, hi = kInf;
    Vec c(v.size(), 0.0);
    for (const Term* t : g) {
        if (t->penalty == Penalty::sum_squares) {
            A += t->alpha;
            if (!t->b.empty())
                for (std::size_t i = 0; i < v.size(); ++i) c[i] += t->alpha * t->b[i];
        } else if (t->penalty == Penalty::nonneg) {
            lo = std::max(lo, 0.0);
        } else {
            lo = std::max(lo, t->lo);
            hi = std::min(hi, t->hi);
        }
    }
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::clamp((v[i] + 2 * tau * c[i]) / (1 + 2 * tau * A), lo, hi);
}

/// Largest eigenvalue of the symmetric tridiagonal matrix (a, b) by Sturm bisection.
double tridiagonal_top(const Vec& a, const Vec& b) {
    double lo = kInf, hi = -kInf;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double r = (i > 0 ? std::abs(b[i - 1]) : 0.0) + (i < b.size() ? std::abs(b[i]) : 0.0);
        lo = std::min(lo, a[i] - r);
        hi = std::max(hi, a[i] + r);
    }
    auto count_below = [&](double s) {  // eigenvalues < s
        int count = 0;
        double d = 1;
        for (std::size_t i = 0; i < a.size(); ++i) {
            d = a[i] - s - (i > 0 ? b[i - 1] * b[i - 1] / d : 0.0);
            if (d == 0) d = -1e-300;
            if (d < 0) ++count;
        }
        return count;
    };
    const int m = int(a.size());
    for (int it = 0; it < 200 && hi - lo > 1e-15 * std::max(std::abs(hi), 1e-300); ++it) {
        const double mid = 0.5 * (lo + hi);
        if (count_below(mid) == m) hi = mid;
        else lo = mid;
    }
    return hi;
}

}  // namespace

OpPtr identity(std::size_t n) { return std::make_shared<Identity>(n); }
OpPtr conv(std::vector<double> kernel, int kw, int kh, int w, int h, int channels) {
    auto c = std::make_shared<Conv>();
    c->k = std::move(kernel), c->kw = kw, c->kh = kh, c->w = w, c->h = h, c->c = channels;
    return c;
}
OpPtr grad(int w, int h, int d, std::vector<int> axes) {
    auto g = std::make_shared<Grad>();
    g->n[0] = w, g->n[1] = h, g->n[2] = d;
    g->axes = std::move(axes);
    return g;
}
OpPtr mul(std::vector<double> weights, OpPtr k) {
    auto m = std::make_shared<Mul>();
    m->wts = std::move(weights), m->k = std::move(k);
    return m;
}
OpPtr scale(double s, OpPtr k) {
    auto m = std::make_shared<Scale>();
    m->s = s, m->k = std::move(k);
    return m;
}
OpPtr sum(std::vector<OpPtr> parts) {
    auto s = std::make_shared<Sum>();
    s->parts = std::move(parts);
    return s;
}
OpPtr subsample(int w, int h, int c, int sx, int sy, OpPtr k) {
    auto s = std::make_shared<Subsample>();
    s->w = w, s->h = h, s->c = c, s->sx = sx, s->sy = sy, s->k = std::move(k);
    return s;
}

double objective(const Problem& p, const Vec& x) {
    double f = 0;
    Vec v;
    for (const auto& t : p.terms) {
        argument(t, x, v);
        f += t.alpha * penalty_value(t, v);
    }
    return f;
}

double stacked_norm(const std::vector<const Term*>& terms, std::size_t n) {
    if (terms.empty()) return 0;
    std::mt19937 gen(7);
    std::normal_distribution<double> normal;
    std::vector<Vec> Q;
    Vec q(n), r(n), kv, back;
    double nq = 0;
    for (auto& e : q) nq += (e = normal(gen)) * e;
    for (auto& e : q) e /= std::sqrt(nq);
    Vec a, b;
    std::vector<double> history;
    for (int step = 0; step < 400; ++step) {
        Q.push_back(q);
        std::fill(r.begin(), r.end(), 0.0);
        for (const Term* t : terms) {
            t->K->apply(q, kv);
            t->K->adjoint(kv, back);
            for (std::size_t i = 0; i < n; ++i) r[i] += back[i];
        }
        double alpha = 0;
        for (std::size_t i = 0; i < n; ++i) alpha += r[i] * q[i];
        a.push_back(alpha);
        for (int pass = 0; pass < 2; ++pass)  // full reorthogonalization, twice is enough
            for (const Vec& qj : Q) {
                double d = 0;
                for (std::size_t i = 0; i < n; ++i) d += r[i] * qj[i];
                for (std::size_t i = 0; i < n; ++i) r[i] -= d * qj[i];
            }
        double beta = 0;
        for (double e : r) beta += e * e;
        beta = std::sqrt(beta);
        const double theta = tridiagonal_top(a, b);
        history.push_back(theta);
        const std::size_t k = history.size();
        if (beta <= 1e-14 * theta || (k > 10 && history[k - 1] - history[k - 10] <= 1e-13 * theta)) break;
        b.push_back(beta);
        for (std::size_t i = 0; i < n; ++i) q[i] = r[i] / beta;
    }
    return std::sqrt(history.back());
}

Trace pdhg(const Problem& p, const Vec& x0, int iters, int every, const std::function<bool(int, double)>& stop) {
    std::vector<const Term*> g, psi;
    for (const auto& t : p.terms) (x_step_term(t) ? g : psi).push_back(&t);
    const double L = stacked_norm(psi, p.n);
    const double tau = 1 / L, sigma = 1 / L;
    Trace tr;
    tr.norm = L;
    Vec x = x0, xbar = x0, xnew(p.n), kt, kx, back;
    std::vector<Vec> y;
    for (const Term* t : psi) y.emplace_back(t->K->out_size(), 0.0);
    double last = objective(p, x);
    for (int it = 1; it <= iters; ++it) {
        std::fill(xnew.begin(), xnew.end(), 0.0);
        for (std::size_t i = 0; i < psi.size(); ++i) {
            const Term& t = *psi[i];
            t.K->apply(xbar, kx);
            Vec& yi = y[i];
            // y ← prox_{σh*}(y + σKx̄) = v − σ prox_{h/σ}(v/σ), v = y + σKx̄ (Moreau)
            Vec v(yi.size());
            for (std::size_t j = 0; j < v.size(); ++j) v[j] = (yi[j] + sigma * kx[j]) / sigma;
            Vec pv = v;
            prox_term(t, 1 / sigma, pv);
            for (std::size_t j = 0; j < v.size(); ++j) yi[j] = sigma * (v[j] - pv[j]);
            t.K->adjoint(yi, back);
            for (std::size_t j = 0; j < p.n; ++j) xnew[j] += back[j];
        }
        for (std::size_t j = 0; j < p.n; ++j) xnew[j] = x[j] - tau * xnew[j];
        prox_g(g, tau, xnew);
        for (std::size_t j = 0; j < p.n; ++j) {
            xbar[j] = 2 * xnew[j] - x[j];
            x[j] = xnew[j];
        }
        if (it % every == 0 || it == iters) last = objective(p, x);
        tr.objective.push_back(last);
        if (stop && (it % every == 0) && stop(it, last)) break;
    }
    tr.x = x;
    return tr;
}

Trace admm(const Problem& p, const Vec& x0, int iters, int every, const std::function<bool(int, double)>& stop) {
    std::vector<const Term*> omega, psi;
    for (const auto& t : p.terms) (t.penalty == Penalty::sum_squares ? omega : psi).push_back(&t);
    // ρ = ω/‖K_Ψ‖², ω = Σ_Ω 2α‖A‖² + Σ_Poisson α mean(1/max(b, 1)) ‖K‖²  (ProxGen's ρ₀, exact norms)
    double omega_scale = 0;
    for (const Term* t : omega) omega_scale += 2 * t->alpha * std::pow(stacked_norm({t}, p.n), 2);
    for (const Term* t : psi)
        if (t->penalty == Penalty::poisson) {
            double inv = 0;
            for (double c : t->b) inv += 1 / std::max(1.0, c);
            omega_scale += t->alpha * inv / double(t->b.size()) * std::pow(stacked_norm({t}, p.n), 2);
        }
    const double L = stacked_norm(psi, p.n);
    const double rho = omega_scale > 0 && L > 0 ? omega_scale / (L * L) : 1.0;
    Trace tr;
    tr.norm = rho;
    auto gram = [&](const Vec& v, Vec& out) {
        out.assign(p.n, 0.0);
        Vec kv, back;
        for (const Term* t : omega) {
            t->K->apply(v, kv);
            t->K->adjoint(kv, back);
            for (std::size_t i = 0; i < p.n; ++i) out[i] += 2 * t->alpha * back[i];
        }
        for (const Term* t : psi) {
            t->K->apply(v, kv);
            t->K->adjoint(kv, back);
            for (std::size_t i = 0; i < p.n; ++i) out[i] += rho * back[i];
        }
    };
    Vec x = x0, kx, back, rhs0(p.n, 0.0);
    for (const Term* t : omega)
        if (!t->b.empty()) {
            t->K->adjoint(t->b, back);
            for (std::size_t i = 0; i < p.n; ++i) rhs0[i] += 2 * t->alpha * back[i];
        }
    std::vector<Vec> z, u;
    for (const Term* t : psi) {
        t->K->apply(x, kx);
        z.push_back(kx);
        u.emplace_back(kx.size(), 0.0);
    }
    // constraints on x itself make the reported iterate feasible (as ProxGen's ADMM reports it)
    auto feasible = [&](const Vec& v) {
        Vec f = v;
        for (const Term* t : psi)
            if (is_identity(t->K) && (t->penalty == Penalty::nonneg || t->penalty == Penalty::box)) prox(*t, 0, f);
        return f;
    };
    double last = objective(p, feasible(x));
    Vec r(p.n), d(p.n), gd;
    for (int it = 1; it <= iters; ++it) {
        Vec rhs = rhs0;
        for (std::size_t i = 0; i < psi.size(); ++i) {
            Vec w(z[i].size());
            for (std::size_t j = 0; j < w.size(); ++j) w[j] = z[i][j] - u[i][j];
            psi[i]->K->adjoint(w, back);
            for (std::size_t j = 0; j < p.n; ++j) rhs[j] += rho * back[j];
        }
        // CG from the previous x
        gram(x, gd);
        double rr = 0, bb = 0;
        for (std::size_t j = 0; j < p.n; ++j) {
            r[j] = rhs[j] - gd[j];
            d[j] = r[j];
            rr += r[j] * r[j];
            bb += rhs[j] * rhs[j];
        }
        for (int k = 0; k < 2000 && rr > 1e-20 * bb; ++k) {
            gram(d, gd);
            double dgd = 0;
            for (std::size_t j = 0; j < p.n; ++j) dgd += d[j] * gd[j];
            if (!(dgd > 0)) break;
            const double step = rr / dgd;
            double rr2 = 0;
            for (std::size_t j = 0; j < p.n; ++j) {
                x[j] += step * d[j];
                r[j] -= step * gd[j];
                rr2 += r[j] * r[j];
            }
            for (std::size_t j = 0; j < p.n; ++j) d[j] = r[j] + rr2 / rr * d[j];
            rr = rr2;
        }
        for (std::size_t i = 0; i < psi.size(); ++i) {
            psi[i]->K->apply(x, kx);
            Vec v(kx.size());
            for (std::size_t j = 0; j < v.size(); ++j) v[j] = kx[j] + u[i][j];
            z[i] = v;
            prox_term(*psi[i], 1 / rho, z[i]);
            for (std::size_t j = 0; j < v.size(); ++j) u[i][j] = v[j] - z[i][j];
        }
        if (it % every == 0 || it == iters) last = objective(p, feasible(x));
        tr.objective.push_back(last);
        if (stop && (it % every == 0) && stop(it, last)) break;
    }
    tr.x = feasible(x);
    return tr;
}

}  // namespace proxgen::bench::ref
