// Card: conv(k, e) — convolution of every channel of e with a 2-D kernel k, centre at
// floor(size/2) (ProxImaL's psf2otf), under one of three boundaries: circular (wraps around;
// diagonal in the DFT), zero outside the image, or the edge pixel replicated (ProxImaL's
// conv_nofft). The kernel is data; the boundary is structure (ints[0]).
#pragma once

#include <numbers>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/check/rules.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct conv {
    static constexpr const char* name = "conv";
    static constexpr const char* summary =
        "conv(k, e[, boundary]): convolution of every channel with a 2-D kernel, centre floor(size/2); "
        "boundary circular (default), zero or replicate (conv_nofft)";
    static constexpr const char* image_role = "kernel";

    enum class Boundary { circular = 0, zero = 1, replicate = 2 };
    static Boundary boundary(const ir::Node& n) { return n.ints.empty() ? Boundary::circular : Boundary(n.ints[0]); }

    static std::vector<int> shape(const Image& kernel, const std::vector<int>& operand) {
        check::image(kernel, "conv", "kernel");
        if (kernel.dimensions() != 2) fail("conv: the kernel must be 2-D, got {}", kernel.shape_string());
        check::plane("conv", operand);
        // the rule generated solvers apply to the kernel they are given at run time
        if (std::string m = rules::conv_kernel(kernel.sizes(), operand); !m.empty()) throw Error(m);
        return operand;
    }
    static ir::Node make(ir::Node e, Image kernel, Boundary b, std::string input_name = {}) {
        std::vector<int> out = shape(kernel, e.shape);  // before e is moved
        ir::Node n = node<conv>(std::move(out), {std::move(e)});
        n.image = std::move(kernel);
        if (b != Boundary::circular) n.ints = {int(b)};
        n.name = std::move(input_name);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"conv", {image("kernel"), expr("e"), word("boundary")}},
             [](const Args& a) -> Built {
                 const int b = a.choice("boundary", {"circular", "zero", "replicate"}, 0, PROXGEN_MSG_CONV_BOUNDARY);
                 return make(a.expr("e"), a.image("kernel").image, Boundary(b), a.image("kernel").name);
             }},
            {{"conv_nofft", {image("kernel"), expr("e")}},
             [](const Args& a) -> Built {
                 return make(a.expr("e"), a.image("kernel").image, Boundary::replicate, a.image("kernel").name);
             }},
        };
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        const Boundary b = boundary(n);
        return fmt::format("conv({}[{}], {}{})", ir::data_label(n, "k"), n.image.shape_string(), a[0],
                           b == Boundary::zero ? ", zero" : b == Boundary::replicate ? ", replicate" : "");
    }

    /// Only the circular convolution is diagonal in the DFT; zero and replicate boundaries break it,
    /// and no convolution commutes with the DCT in general.
    static constexpr LinearFacts combine(const LinearFacts& arg, Boundary b) {
        LinearFacts f = unary_facts(arg);
        f.fft_diagonal = b == Boundary::circular && arg.fft_diagonal;
        return f;
    }
    static LinearFacts facts(const ir::Node& n, std::span<const LinearFacts> a) { return combine(a[0], boundary(n)); }
    /// ‖k ⊛ x‖ ≤ ‖k‖₁ ‖x‖ (Young's inequality; also max |OTF| ≤ ‖k‖₁); zero padding only drops
    /// terms. Replicate reads an edge pixel up to (⌊kw/2⌋+1)(⌊kh/2⌋+1) times for one shift.
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        using std::floor, std::sqrt;
        auto l1 = d.l1_norm(n);
        if (boundary(n) == Boundary::replicate)
            l1 = l1 * sqrt((floor(d.image_extent(n, 0) / 2.0) + 1.0) * (floor(d.image_extent(n, 1) / 2.0) + 1.0));
        return l1 * a[0];
    }
    /// A circular convolution's norm is max |k̂|, which is ‖k‖₁ (at frequency 0) for a single-signed
    /// kernel; zero and replicate boundaries, and kernels of both signs, get a bound.
    static bool norm_exact(const ir::Node& n, std::span<const NormTightness> a) {
        return boundary(n) == Boundary::circular && data::single_signed(n.image.buffer().raw_buffer()) &&
               exact_on_scaled_identity(a);
    }
    /// A kernel may have any size no larger than its operand's plane (rules::conv_kernel, the rule
    /// shape() applies, evaluated by a generated solver on the kernel it is given).
    template <class V>
    static std::vector<V> image_extents(const ir::Node&, const std::vector<V>&) { return {}; }
    static std::string image_check_code(const ir::Node& n, const std::string& operand_extents) {
        return fmt::format("proxgen::rules::conv_kernel(proxgen::aot::extents(images[{}]), {})", n.image_slot,
                           operand_extents);
    }
    /// Taps are an update definition: fine per strip, not inside a sliding window; circular and
    /// replicate read across the image.
    static bool local(const ir::Node& n, bool blocking) { return !blocking && boundary(n) == Boundary::zero; }
    /// Zero and replicate boundaries differ from the circular one near the border only.
    static std::optional<ir::Node> circulant(const ir::Node& n) {
        if (boundary(n) == Boundary::circular) return n;  // itself, spelled as given
        ir::Node c = n;
        c.ints.clear();
        return c;
    }
    static bool diagonal_in(const ir::Node& n, Basis b, bool inside_grad,
                            const std::function<bool(const ir::Node&, bool)>& operand) {
        return b == Basis::fft && boundary(n) == Boundary::circular && operand(n.args[0], inside_grad);
    }
    /// The DFT along x of each kernel row, zero-padded to W and rolled by −kw/2 (values), and each
    /// row's y shift (b − kh/2) mod H (integers); the row transfer is then
    /// Σ_b (row DFT of kernel row b) · e^{−2πi ky (b−kh/2)/H}.
    static void prepare_transfer(const ir::Node& n, TransferTables& t) {
        using cd = std::complex<double>;
        const Grid& g = t.grid;
        const Image& k = n.image;
        const int kw = k.width(), kh = k.height();
        auto wrap = [](long long v, int m) { return int(((v % m) + m) % m); };
        std::vector<cd> tw(g.W);
        for (int m = 0; m < g.W; ++m) tw[m] = std::polar(1.0, -2 * std::numbers::pi * m / g.W);
        auto& rows = t.values[&n];
        auto& shifts = t.integers[&n];
        rows.assign(std::size_t(kh) * g.nx, cd(0));
        for (int b = 0; b < kh; ++b) {
            shifts.push_back(wrap(b - kh / 2, g.H));
            for (int a = 0; a < kw; ++a)
                for (int kx = 0, s = wrap(a - kw / 2, g.W); kx < g.nx; ++kx)
                    rows[b * g.nx + kx] += double(k(a, b)) * tw[wrap((long long)kx * s, g.W)];
        }
    }
    static bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) {
        if (!t.row(n.args[0], ky, out)) return false;
        const Grid& g = t.grid;
        const auto& rows = t.values.at(&n);
        const auto& shifts = t.integers.at(&n);
        Row k(g.nx);
        for (std::size_t b = 0; b < shifts.size(); ++b) {
            const auto p = std::polar(1.0, -2 * std::numbers::pi * double((long long)ky * shifts[b] % g.H) / g.H);
            for (int kx = 0; kx < g.nx; ++kx) k[kx] += rows[b * g.nx + kx] * p;
        }
        for (auto& c : out)
            for (int kx = 0; kx < g.nx; ++kx) c[kx] *= k[kx];
        return true;
    }

    // ---- lowering ----
    // Circular and zero boundaries are correlations of a padded operand; the replicate boundary's
    // adjoint also folds what the forward read outside the image back onto the edge pixels.

    /// Σ_ab k(a,b) · padded(x + sgn·(a − kw/2), y + sgn·(b − kh/2)): sgn = −1 is the convolution,
    /// sgn = +1 its adjoint.
    template <class H>
    static typename H::Func filter(H& h, const typename H::Func& padded, int r, const typename H::ImageParam& kernel,
                                   int sgn, const char* fname) {
        using Expr = typename H::Expr;
        Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
        typename H::RDom t(0, kw, 0, kh, "tap");
        typename H::Func acc(fname);
        acc(h.args(r)) = 0.0f;
        acc(h.args(r)) += kernel(t.x, t.y) * h.at(padded, r, h.axis(0) + sgn * (t.x - kw / 2), h.axis(1) + sgn * (t.y - kh / 2));
        return acc;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        // The circular wrap goes through BoundaryConditions::repeat_image, whose `likely` lets
        // Halide split the x loop so the interior reads with plain vector loads and only the
        // borders pay for the modulo; the padded copy is computed once per strip and the taps then
        // read it with affine vector loads.
        using H = std::remove_cvref_t<decltype(h)>;
        typename H::Func padded;
        const auto bounds = h.bounds(in.extents, 2);
        switch (boundary(n)) {
        case Boundary::circular:
            // a computed operand is computed whole first: every strip reads rows from the other end
            padded = h.repeat_image(h.wrapped(in), bounds);
            break;
        case Boundary::zero: padded = h.zero_exterior(in.f, bounds); break;
        case Boundary::replicate: padded = h.repeat_edge(in.f, bounds); break;
        }
        h.stage(padded);
        return h.stage(filter(h, padded, in.rank(), h.image(n), -1, "conv"));
    }

    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        const int r = y.rank();
        const auto& kernel = h.image(n);
        const auto bounds = h.bounds(y.extents, 2);
        if (boundary(n) == Boundary::circular) {
            typename H::Func padded = h.repeat_image(h.wrapped(y), bounds);
            h.stage(padded);
            return h.stage(filter(h, padded, r, kernel, +1, "conv_adjoint"));
        }
        // Zero boundary: the correlation of y extended by zeros is exactly the transpose.
        typename H::Func padded = h.zero_exterior(y.f, bounds);
        if (boundary(n) == Boundary::zero) {
            h.stage(padded);
            return h.stage(filter(h, padded, r, kernel, +1, "conv_adjoint"));
        }
        // Replicate: K = (zero-boundary conv on the extended plane) ∘ E, with E the clamp
        // extension, so Kᵀ = Eᵀ z where z is that correlation evaluated outside the image too; Eᵀ
        // adds the values z has beyond each edge onto the edge pixel, first along x, then along y.
        // z is read far from where it is used (every edge pixel reads its whole margin), so z and
        // the x-folded z are computed over the whole image first.
        typename H::Func z = filter(h, padded, r, kernel, +1, "conv_adjoint_extended");
        h.root(padded);
        h.root(z);
        Expr W = y.extents[0], Hgt = y.extents[1];
        Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
        typename H::RDom mx(0, kw, "margin_x"), my(0, kh, "margin_y");
        const auto x = h.axis(0), yy = h.axis(1);
        typename H::Func zx("conv_adjoint_fold_x");
        zx(h.args(r)) = z(h.args(r)) + h.select(x == 0, h.sum(h.at(z, r, -1 - mx, yy)), 0.0f) +
                        h.select(x == W - 1, h.sum(h.at(z, r, W + mx, yy)), 0.0f);
        h.root(zx);
        typename H::Func out("conv_adjoint");
        out(h.args(r)) = zx(h.args(r)) + h.select(yy == 0, h.sum(h.at(zx, r, x, -1 - my)), 0.0f) +
                         h.select(yy == Hgt - 1, h.sum(h.at(zx, r, x, Hgt + my)), 0.0f);
        return out;
    }

    /// ∂⟨g, k ⊛ e⟩/∂k(a, b) = Σ_p g(p) · padded(p − (a − kw/2), p_y − (b − kh/2)): the correlation of
    /// the padded operand with g, one sum over the image per tap (the caller sums it, in parallel
    /// strips). Every boundary pads as its forward does.
    static auto data_vjp(auto& h, const ir::Node& n, const auto& in, const auto& g) {
        using H = std::remove_cvref_t<decltype(h)>;
        using Expr = typename H::Expr;
        typename H::Func padded;
        const auto bounds = h.bounds(in.extents, 2);
        switch (boundary(n)) {
        case Boundary::circular: padded = h.repeat_image(h.wrapped(in), bounds); break;
        case Boundary::zero: padded = h.zero_exterior(in.f, bounds); break;
        case Boundary::replicate: padded = h.repeat_edge(in.f, bounds); break;
        }
        // staged: each strip's padded operand computed once into a buffer, so that the taps read it
        // with contiguous vector loads (read in place, the boundary's index arithmetic made every
        // tap's read a gather)
        typename H::Func staged("conv_kernel_vjp_operand");
        staged(h.args(in.rank())) = padded(h.args(in.rank()));
        h.stage(staged);
        padded = staged;
        const auto& kernel = h.image(n);
        Expr kw = kernel.dim(0).extent(), kh = kernel.dim(1).extent();
        const int r = in.rank();
        typename H::Var a("tap_x"), b("tap_y");
        std::vector<typename H::Var> lhs{a, b};
        for (int d = 0; d < r; ++d) lhs.push_back(h.axis(d));
        typename H::Func d("conv_kernel_vjp");
        d(lhs) = g.f(h.args(r)) * h.at(padded, r, h.axis(0) - a + kw / 2, h.axis(1) - b + kh / 2);
        return DataVJP<typename H::Func>{d, 2, true};
    }
};

}  // namespace proxgen::catalogue::ops
