// Card: pxwise_matmul(A, e) — a matrix per pixel: A is W × H × M × N, e is W × H × N, the result
// W × H × M with out(p, i) = Σ_j A(p, i, j) e(p, j). Adjoint: the transposed matrices.
#pragma once

#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/ops/mul_color.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct pxwise_matmul {
    static constexpr const char* name = "pxwise_matmul";
    static constexpr const char* summary = "pxwise_matmul(A, e): a matrix per pixel (A: W x H x M x N) on e's N channels";
    static constexpr const char* image_role = "matrix";

    static std::vector<int> shape(const Image& A, const std::vector<int>& s) {
        if (s.size() != 3) fail(PROXGEN_MSG_PXWISE_MATMUL_RANK);
        check::image(A, "pxwise_matmul", "matrix");
        if (A.dimensions() != 4 || A.extent(0) != s[0] || A.extent(1) != s[1] || A.extent(3) != s[2])
            fail("pxwise_matmul: the matrices are {} but must be W x H x M x N for its operand {} (W x H x N)",
                 A.shape_string(), shape_string(s));
        std::vector<int> out = s;
        out[2] = A.extent(2);
        return out;
    }
    static ir::Node make(ir::Node e, Image A, std::string input_name = {}) {
        std::vector<int> out = shape(A, e.shape);  // before e is moved
        ir::Node n = node<pxwise_matmul>(std::move(out), {std::move(e)});
        n.image = std::move(A);
        n.name = std::move(input_name);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"pxwise_matmul", {image("matrices"), expr("e")}}, [](const Args& a) -> Built {
            return make(a.expr("e"), a.image("matrices").image, a.image("matrices").name);
        }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("pxwise_matmul(A[{}], {})", n.image.shape_string(), a[0]);
    }

    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, false); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// The largest per-pixel ‖A(p)‖₂: the norm of a block-diagonal operator, exact on the variable.
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.largest_pixel_spectral_norm(n) * a[0];
    }
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D& d) {
        std::vector<V> e = a[0];
        e[2] = d.image_extents(n)[2];
        return e;
    }
    template <class V>
    static std::vector<V> image_extents(const ir::Node&, const std::vector<V>&) { return {}; }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }

    static auto forward(auto& h, const ir::Node& n, const auto& in) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = in.rank();
        const auto& m = h.image(n);
        typename H::RDom j(0, m.dim(3).extent(), "column");
        typename H::Func out("pxwise_matmul");
        out(h.args(r)) = h.sum(m(h.axis(0), h.axis(1), h.axis(2), j) * mul_color::with_channel<H>(in.f, r, typename H::Expr(j)));
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        using H = std::remove_cvref_t<decltype(h)>;
        const int r = y.rank();
        const auto& m = h.image(n);
        typename H::RDom i(0, m.dim(2).extent(), "row");
        typename H::Func back("pxwise_matmul_adjoint");
        back(h.args(r)) = h.sum(m(h.axis(0), h.axis(1), i, h.axis(2)) * mul_color::with_channel<H>(y.f, r, typename H::Expr(i)));
        return back;
    }
};

}  // namespace proxgen::catalogue::ops
