// Card: grad(e) — forward differences along chosen axes (x and y by default), stacked on a new
// last axis, one slice per axis; the last difference along each axis is 0 (Neumann, ProxImaL's;
// diagonal in the DCT-II) or wraps around (periodic; diagonal in the DFT). Adjoint: −div.
// Structure: ints = {periodic, axes...}.
#pragma once

#include <numbers>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct grad {
    static constexpr const char* name = "grad";
    static constexpr const char* summary =
        "grad(e[, axes][, boundary]): forward differences stacked on a new last axis; neumann (default, last "
        "difference 0) or periodic";

    static bool periodic(const ir::Node& n) { return n.ints[0] != 0; }
    static std::vector<int> axes(const ir::Node& n) { return {n.ints.begin() + 1, n.ints.end()}; }
    /// Along x and y (what the spectral solvers know).
    static bool xy(const ir::Node& n) { return axes(n) == std::vector<int>{0, 1}; }

    /// grad's axes: distinct axes of an operand of this rank, at least one. constexpr: the typed
    /// DSL evaluates it in a static_assert.
    static constexpr bool valid_axes(int rank, const int* axes, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) {
            if (axes[i] < 0 || axes[i] >= rank) return false;
            for (std::size_t j = 0; j < i; ++j)
                if (axes[i] == axes[j]) return false;
        }
        return n > 0;
    }
    static std::vector<int> shape(const std::vector<int>& operand, const std::vector<int>& axes) {
        if (int(operand.size()) + 1 > max_rank) fail(PROXGEN_MSG_GRAD_MAX_RANK);
        if (!valid_axes(int(operand.size()), axes.data(), axes.size())) fail(PROXGEN_MSG_GRAD_AXES);
        std::vector<int> s = operand;
        s.push_back(int(axes.size()));
        return s;
    }
    static ir::Node make(ir::Node e, const std::vector<int>& axes, bool periodic) {
        std::vector<int> out = shape(e.shape, axes);  // before e is moved
        ir::Node n = node<grad>(std::move(out), {std::move(e)});
        n.ints = {periodic ? 1 : 0};
        n.ints.insert(n.ints.end(), axes.begin(), axes.end());
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"grad", {expr("e"), integers("axes", true), word("boundary")}}, [](const Args& a) -> Built {
            const int b = a.choice("boundary", {"neumann", "periodic"}, 0, PROXGEN_MSG_GRAD_BOUNDARY);
            return make(a.expr("e"), a.has("axes") ? a.integers("axes") : std::vector<int>{0, 1}, b == 1);
        }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("grad({}{}{})", a[0], xy(n) ? std::string() : fmt::format(", axes {{{}}}", fmt::join(axes(n), ",")),
                           periodic(n) ? ", periodic" : "");
    }

    /// The spectral solvers know grad along x and y only (`xy`): periodic is DFT-diagonal on a
    /// DFT-diagonal operand, Neumann DCT-diagonal on a multiple of the variable.
    static constexpr LinearFacts combine(const LinearFacts& arg, bool periodic, bool xy) {
        LinearFacts f = unary_facts(arg);
        f.fft_diagonal = xy && periodic && arg.fft_diagonal;
        f.dct_diagonal = xy && !periodic && arg.scalar_identity;
        f.grad_only = true;
        f.data_free = xy && arg.data_free;
        return f;
    }
    static LinearFacts facts(const ir::Node& n, std::span<const LinearFacts> a) { return combine(a[0], periodic(n), xy(n)); }
    /// Each difference operator has norm ≤ 2: ‖∇‖ ≤ √(4 · number of axes).
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D&) {
        using std::sqrt;
        using V = typename D::value;
        return sqrt(V(4.0 * double(n.ints.size() - 1))) * a[0];
    }
    /// √(4·axes) is ‖∇‖ for periodic differences on even sizes and within O(1/N²) otherwise
    /// (Neumann: 4 cos²(π/2N) per axis).
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        std::vector<V> e = a[0];
        e.push_back(V(int(n.ints.size()) - 1));
        return e;
    }
    static int static_last_extent(const ir::Node& n, std::span<const int>) { return int(n.ints.size()) - 1; }
    static bool local(const ir::Node& n, bool) { return !periodic(n); }
    /// Neumann grad differs from the periodic one near the border only.
    static std::optional<ir::Node> circulant(const ir::Node& n) {
        if (!xy(n)) return std::nullopt;
        ir::Node c = n;
        c.ints[0] = 1;
        return c;
    }
    static bool diagonal_in(const ir::Node& n, Basis b, bool inside_grad,
                            const std::function<bool(const ir::Node&, bool)>& operand) {
        if (!xy(n)) return false;  // the transfer functions below know grad along x and y only
        if (b == Basis::fft) return periodic(n) && operand(n.args[0], true);
        return b == Basis::dct && !periodic(n) && !inside_grad && operand(n.args[0], true);
    }
    /// One axis of grad: e^{2πik/n} − 1 (periodic, DFT) or −2 sin(πk/2n) (Neumann, DCT); values
    /// hold the x factors (nx) then the y factors (ny).
    static void prepare_transfer(const ir::Node& n, TransferTables& t) {
        const Grid& g = t.grid;
        auto factor = [&](int k, int m) {
            return g.basis == Basis::fft ? std::polar(1.0, 2 * std::numbers::pi * k / m) - 1.0
                                         : std::complex<double>(-2 * std::sin(std::numbers::pi * k / (2.0 * m)));
        };
        auto& f = t.values[&n];
        for (int k = 0; k < g.nx; ++k) f.push_back(factor(k, g.W));
        for (int k = 0; k < g.ny; ++k) f.push_back(factor(k, g.H));
    }
    /// Two components per operand component: x parts first, as its new last axis is the slowest.
    static bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) {
        if (!t.row(n.args[0], ky, out)) return false;
        const auto& f = t.values.at(&n);
        const int nx = t.grid.nx;
        const std::size_t m = out.size();
        out.resize(2 * m);
        for (std::size_t c = 0; c < m; ++c) {
            out[m + c] = out[c];
            for (int kx = 0; kx < nx; ++kx) out[c][kx] *= f[kx];
            for (auto& v : out[m + c]) v *= f[nx + ky];
        }
        return true;
    }

    // ---- lowering ----
    /// (∇u)(…, k) = u(i + e_a) − u(i) along axis a = axes[k], 0 on the last slice (Neumann) or
    /// wrapping (periodic). The clamps keep every access in bounds (and, when wrapping, tell
    /// bounds inference the wrapped index stays inside); the select zeroes the last slice.
    static auto forward(auto& h, const ir::Node& n, const auto& a) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = n.rank();
        const auto& ax = h.axes();
        Expr u = a.f(h.args(r - 1));
        // a wrap-around read of a computed operand computes it whole first (see Stages)
        const typename H::Func wrapped = periodic(n) ? h.wrapped(a) : a.f;
        std::vector<Expr> d;
        for (int axis : axes(n)) {
            Expr N = a.extents[axis];
            auto shifted = h.args(r - 1);
            if (periodic(n)) {
                shifted[axis] = h.clamp(h.select(ax[axis] < N - 1, ax[axis] + 1, 0), 0, N - 1);
                d.push_back(wrapped(shifted) - u);
            } else {
                shifted[axis] = h.min(h.interior(axis, ax[axis] + 1), N - 1);
                d.push_back(h.select(ax[axis] < N - 1, h.interior(axis, a.f(shifted) - u), 0.0f));
            }
        }
        Expr value = d.back();
        for (int k = int(d.size()) - 2; k >= 0; --k) value = h.select(ax[r - 1] == k, d[k], value);
        typename H::Func out("grad");
        out(h.args(r)) = value;
        return out;
    }
    /// ∇ᵀ = −div with the matching boundary terms: the first slice keeps only +p(i), the last only
    /// −p(i − e_a); the operand is read at several points, so it is computed once per strip
    /// (unless it is stored already: an input buffer or a Func the caller stages).
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int ra = n.args[0].rank();
        const auto& ax = h.axes();
        const std::vector<Expr> back_extents = h.extents(n.args[0]);
        typename H::Func p("grad_adjoint_operand");
        if (periodic(n)) {  // read through a wrap-around: computed whole (see Stages)
            p = h.wrapped(y);
        } else if (y.is_input || y.staged) {
            p = y.f;
        } else {
            p(h.args(ra + 1)) = y.f(h.args(ra + 1));
            h.stage(p);
        }
        const auto a = h.args(ra);
        const std::vector<int> along = axes(n);
        Expr sum = 0.0f;
        for (int k = 0; k < int(along.size()); ++k) {
            const int axis = along[k];
            Expr N = back_extents[axis];
            auto here = a, before = a;
            here.push_back(k);
            before.push_back(k);
            Expr g;
            if (periodic(n)) {  // −(p(i) − p(i − e_a)) with i − 1 wrapping
                before[axis] = h.clamp(h.select(ax[axis] > 0, ax[axis] - 1, N - 1), 0, N - 1);
                g = p(here) - p(before);
            } else {
                before[axis] = h.max(h.interior(axis, ax[axis] - 1), 0);
                g = h.select(ax[axis] < N - 1, h.interior(axis, p(here)), 0.0f) -
                    h.select(ax[axis] > 0, h.interior(axis, p(before)), 0.0f);
            }
            sum = k == 0 ? g : sum + g;
        }
        typename H::Func back("grad_adjoint");
        back(a) = -sum;
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
