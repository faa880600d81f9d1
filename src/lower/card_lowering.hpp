// The cards' Halide lowering as the back end calls it. A card writes its forward, adjoint and prox
// as templates over a back end H (proxgen/catalogue/card.hpp says why: the cards are headers user
// code includes without Halide.h); `Back` below is that H — Halide's types and every Halide
// function a card uses, reached as H::f(...) so that a card's own name (sum, pad, ...) never hides
// Halide's — and the adapters OpLoweringOf / PenaltyLoweringOf turn a card into the object the
// lowering looks up by kind (lowering(op), lowering(penalty)): no switch over operators.
#pragma once

#include <limits>

#include <optional>
#include <span>
#include <vector>

#include "lowering.hpp"
#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::penalties {
struct HostSmoothFunction;
}

namespace proxgen::lower {

/// The prox of τ f for a host diff_fn at t₀ (a Func computed whole): an extern stage that solves
/// argmin τ f(t) + ½‖t − t₀‖² on the host (host_operator.cpp).
Halide::Func host_smooth_prox(const catalogue::penalties::HostSmoothFunction& f, const Halide::Func& t0,
                              const std::vector<Halide::Expr>& extents, Halide::Expr tau);

/// Halide, as the cards' lowering templates see it, and the context of one lowering.
struct Back {
    using Expr = Halide::Expr;
    using Func = Halide::Func;
    using RDom = Halide::RDom;
    using Var = Halide::Var;
    using ImageParam = Halide::ImageParam;
    using Region = Halide::Region;
    using Lowered = lower::Lowered;
    using Stages = lower::Stages;

    Lowerer* L;  // null where no expression is lowered (a penalty's prox)
    Stages& st;

    // ---- the context ----
    const ImageParam& image(const ir::Node& n) const { return L->params().images[n.image_slot]; }
    Expr scalar(const ir::Node& n) const { return L->params().scalars[n.scalar_slot]; }
    std::vector<Expr> extents(const ir::Node& n) const { return L->extents(n); }
    /// The formula accessor's readings for extents (proxgen/catalogue/formula.hpp): the variable's
    /// and a node image's.
    std::vector<Expr> variable_extents(const ir::Node& n) const { return L->variable_extents(std::max(n.variable, 0)); }
    std::vector<Expr> image_extents(const ir::Node& n) const;
    /// A Func computed per strip of rows by the output's schedule (a reused value).
    Func stage(Func f, int unrolled_last_extent = 0) const { return st.add(std::move(f), unrolled_last_extent); }
    /// A Func computed whole before the output.
    Func root(Func f) const { return st.add_root(std::move(f)); }
    /// A scatter update over an RDom, run in parallel over `outer` with atomic adds.
    void scatter(const Func& f, const Halide::RVar& outer) const { st.scatters.emplace_back(f, outer); }
    /// The operand of a wrap-around read: computed whole first when it is computed.
    Func wrapped(const Lowered& in) const { return wrapped_operand(in, st); }

    // ---- building blocks ----
    static const std::vector<Var>& axes() { return lower::axes(); }
    static Var axis(int a) { return lower::axes()[a]; }
    static std::vector<Expr> args(int rank) { return lower::args(rank); }
    static Expr at(const Func& f, int rank, Expr x, Expr y) { return lower::at(f, rank, std::move(x), std::move(y)); }
    /// The value a boundary test keeps away from the edges, tagged likely() along x (the vector axis).
    static Expr interior(int axis, Expr e) { return axis == 0 ? Halide::likely(std::move(e)) : e; }
    static Lowered zeros(const std::vector<Expr>& extents) { return lower::zeros(extents); }
    static Lowered input(const ImageParam& p) { return lower::input(p); }
    static Region bounds(const std::vector<Expr>& extents, int spatial) {
        Region r;
        for (int d = 0; d < int(extents.size()); ++d)
            r.push_back(d < spatial ? Halide::Range(0, extents[d]) : Halide::Range());
        return r;
    }
    static Func repeat_image(const Func& f, const Region& r) { return Halide::BoundaryConditions::repeat_image(f, r); }
    static Func repeat_edge(const Func& f, const Region& r) { return Halide::BoundaryConditions::repeat_edge(f, r); }
    static Func zero_exterior(const Func& f, const Region& r) {
        return Halide::BoundaryConditions::constant_exterior(f, 0.0f, r);
    }
    /// A read of f at `index` where inside `extents`, 0 elsewhere; the index is clamped inside.
    static Expr read_or_zero(const Func& f, std::vector<Expr> index, const std::vector<Expr>& extents);

    // ---- code the program defines (user operators, diff_fn) and the denoiser prior ----
    /// A user operator's forward of `in`, and its adjoint (given, or by Halide's autodiff), in the
    /// operand's space (src/lower/user_operator.cpp).
    Func user_forward(const ir::Node& n, const Lowered& in) const;
    Func user_adjoint(const ir::Node& n, const Lowered& y) const;
    /// diff_fn: its prox on t = a v + c with threshold τ (gradient steps with f' from Halide's
    /// autodiff), and f at a value (src/lower/prox_smooth.cpp).
    Expr smooth_prox(const ProxSpec& f, const Func& t, const std::vector<Expr>& extents, Expr tau) const;
    Expr smooth_value(const ir::Term& t, Expr v) const;
    /// Non-local means of t (rank 2 or 3) at noise level sigma, at the pure axes (src/lower/prox_nlm.cpp).
    Expr nlm_denoise(const Func& t, const std::vector<Expr>& extents, Expr sigma) const;

    // Halide's functions, reached through H so that no card name can hide them.
    template <class... A> static Expr select(A&&... a) { return Halide::select(std::forward<A>(a)...); }
    template <class A, class B, class C> static Expr clamp(A&& a, B&& b, C&& c) {
        return Halide::clamp(Expr(std::forward<A>(a)), Expr(std::forward<B>(b)), Expr(std::forward<C>(c)));
    }
    static Expr min(Expr a, Expr b) { return Halide::min(std::move(a), std::move(b)); }
    static Expr max(Expr a, Expr b) { return Halide::max(std::move(a), std::move(b)); }
    static Expr sqrt(Expr a) { return Halide::sqrt(std::move(a)); }
    static Expr floor(Expr a) { return Halide::floor(std::move(a)); }
    static Expr abs(Expr a) { return Halide::abs(std::move(a)); }
    static Expr sum(Expr a) { return Halide::sum(std::move(a)); }
    static Expr atan2(Expr y, Expr x) { return Halide::atan2(std::move(y), std::move(x)); }
    static Expr cos(Expr a) { return Halide::cos(std::move(a)); }
    static Expr sin(Expr a) { return Halide::sin(std::move(a)); }
    static Expr exp(Expr a) { return Halide::exp(std::move(a)); }
    static Expr log(Expr a) { return Halide::log(std::move(a)); }
    static Expr to_int(Expr a) { return Halide::cast<int>(std::move(a)); }
    static Expr to_float(Expr a) { return Halide::cast<float>(std::move(a)); }
    // float64, for the objective's summands (the argument's float32 values widened exactly)
    static Expr to_double(Expr a) { return Halide::cast<double>(std::move(a)); }
    static Expr f64(double v) { return Halide::Internal::make_const(Halide::Float(64), v); }
    static Expr infinity() { return f64(std::numeric_limits<double>::infinity()); }
    /// max(1, max |f|) over `extents` in float64, computed once before the output: the scale of a
    /// domain check's relative tolerance.
    Expr magnitude(const Func& f, const std::vector<Expr>& extents) const;
    static Expr float_max() { return Halide::Float(32).max(); }
    static Expr float_min() { return Halide::Float(32).min(); }
    static Expr always() { return Halide::Internal::const_true(); }
};

/// An operator's lowering (its card's templates instantiated with Back).
class OpLowering {
public:
    virtual ~OpLowering() = default;
    /// K x (linear: constants read as 0) or the constant part (not linear: x read as 0), given the
    /// operands' (lowered first, in order).
    virtual Lowered forward(Back& b, const ir::Node& n, std::span<const Lowered> operands, const Lowered& x,
                            bool linear) const = 0;
    /// For each operand: what Kᵀ y passes down to it (in the operand's space), nullopt when the
    /// operand gets nothing (a constant).
    virtual std::vector<std::optional<Lowered>> adjoint(Back& b, const ir::Node& n, const Lowered& y) const = 0;
    /// n's output extents, given its operands'.
    virtual std::vector<Halide::Expr> extents(Back& b, const ir::Node& n,
                                              std::span<const std::vector<Halide::Expr>> operands) const = 0;
    /// Gradients (src/grad): the derivative of ⟨g, K(operand)⟩ with respect to n's data (its image
    /// or its scale factor), nullopt when the card gives none.
    virtual std::optional<catalogue::DataVJP<Halide::Func>> data_vjp(Back& b, const ir::Node& n, const Lowered& operand,
                                                                     const Lowered& g) const = 0;
};

/// A penalty's lowering.
class PenaltyLowering {
public:
    virtual ~PenaltyLowering() = default;
    /// argmin_t α f(t) + ρ/2 ‖t − u‖² at the pure axes, τ = α/ρ, where u = t_arg (a Func of the
    /// argument's rank, extents `extents`): the plain prox of α f.
    virtual Halide::Expr prox(Back& b, const ProxSpec& f, const Halide::Func& t_arg,
                              const std::vector<Halide::Expr>& extents, Halide::Expr tau) const = 0;
    /// The objective's summand at the pure axes of the card's summand_rank, in float64: f at the
    /// argument t_arg (extents `extents`) is its sum. Indicators and domains: 0 where satisfied up
    /// to their tolerance, +inf elsewhere. A card writes it per element (`summand(h, f, v)`, v the
    /// argument's value there) or whole (`summand(h, f, t, extents)`).
    virtual Halide::Expr summand(Back& b, const ProxSpec& f, const Halide::Func& t_arg,
                                 const std::vector<Halide::Expr>& extents) const = 0;
    /// Gradients (src/grad): whether the card gives its prox's derivative, and that derivative at
    /// the argument t_arg for the upstream gradient g (a Func of the argument's rank), as prox().
    virtual bool has_prox_vjp() const = 0;
    virtual catalogue::ProxVJP<Halide::Expr> prox_vjp(Back& b, const ProxSpec& f, const Halide::Func& t_arg,
                                                      const std::vector<Halide::Expr>& extents, Halide::Expr tau,
                                                      const Halide::Func& g) const = 0;
};

/// The lowering of a node's or a term's card.
const OpLowering& lowering(const ir::OpKind& op);
const PenaltyLowering& lowering(const ir::PenaltyKind& penalty);

template <class C>
class OpLoweringOf final : public OpLowering {
public:
    Lowered forward(Back& b, const ir::Node& n, std::span<const Lowered> a, const Lowered& x, bool linear) const override {
        if constexpr (requires { C::forward(b, n, a, x, linear); }) {
            return C::forward(b, n, a, x, linear);  // the whole node: leaves, sums, concatenations
        } else {
            // one operand: zero in, zero out; else the card's Func over the node's extents
            if (a[0].is_zero) return Back::zeros(b.extents(n));
            Lowered out{Halide::Func(), b.extents(n)};
            out.f = C::forward(b, n, a[0]);
            return out;
        }
    }
    std::vector<std::optional<Lowered>> adjoint(Back& b, const ir::Node& n, const Lowered& y) const override {
        if constexpr (requires { C::adjoint(b, n, y, 0); }) {
            return C::adjoint(b, n, y, 0);  // several operands (or none)
        } else {
            Lowered back{C::adjoint(b, n, y), b.extents(n.args[0])};
            return {back};
        }
    }
    std::vector<Halide::Expr> extents(Back& b, const ir::Node& n,
                                      std::span<const std::vector<Halide::Expr>> a) const override {
        if constexpr (requires { C::template extents<Halide::Expr>(n, a, b); })
            return C::template extents<Halide::Expr>(n, a, b);
        else return a.empty() ? std::vector<Halide::Expr>{} : a[0];
    }
    std::optional<catalogue::DataVJP<Halide::Func>> data_vjp(Back& b, const ir::Node& n, const Lowered& e,
                                                             const Lowered& g) const override {
        if constexpr (requires { C::data_vjp(b, n, e, g); }) return C::data_vjp(b, n, e, g);
        else return std::nullopt;
    }
};

template <class C>
class PenaltyLoweringOf final : public PenaltyLowering {
public:
    Halide::Expr prox(Back& b, const ProxSpec& f, const Halide::Func& t, const std::vector<Halide::Expr>& extents,
                      Halide::Expr tau) const override {
        if constexpr (requires { C::prox(b, f, t, extents, tau); }) {
            return C::prox(b, f, t, extents, tau);
        } else {  // elementwise
            Halide::Expr u = t(Back::args(int(extents.size())));
            return C::prox(b, f, u, tau);
        }
    }
    Halide::Expr summand(Back& b, const ProxSpec& f, const Halide::Func& t,
                         const std::vector<Halide::Expr>& extents) const override {
        if constexpr (requires { C::summand(b, f, t, extents); }) {
            return C::summand(b, f, t, extents);
        } else {  // elementwise
            Halide::Expr v = t(Back::args(int(extents.size())));
            return C::summand(b, f, v);
        }
    }
    bool has_prox_vjp() const override {
        return requires(Back& b, const ProxSpec& f, const Halide::Func& t, const std::vector<Halide::Expr>& x,
                        Halide::Expr e) { C::prox_vjp(b, f, t, x, e, t); } ||
               requires(Back& b, const ProxSpec& f, Halide::Expr e) { C::prox_vjp(b, f, e, e, e); };
    }
    catalogue::ProxVJP<Halide::Expr> prox_vjp(Back& b, const ProxSpec& f, const Halide::Func& t,
                                              const std::vector<Halide::Expr>& extents, Halide::Expr tau,
                                              const Halide::Func& g) const override {
        if constexpr (requires { C::prox_vjp(b, f, t, extents, tau, g); }) {
            return C::prox_vjp(b, f, t, extents, tau, g);
        } else if constexpr (requires(Halide::Expr e) { C::prox_vjp(b, f, e, e, e); }) {  // elementwise
            const auto at = Back::args(int(extents.size()));
            return C::prox_vjp(b, f, Halide::Expr(t(at)), tau, Halide::Expr(g(at)));
        } else {
            fail("gradients: the prox of {} has no derivative in its card", C::name);
        }
    }
};

}  // namespace proxgen::lower
