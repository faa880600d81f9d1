// Card: a + b, the sum of two expressions of one shape — and e ± b, an affine offset, written as
// sum(e, scale(±1, constant b)) so that the sign stays a bound scalar, not structure (the
// planner's absorb_offset rule recognizes that shape: is_offset).
#pragma once

#include "proxgen/catalogue/card.hpp"
#include "proxgen/catalogue/ops/constant.hpp"
#include "proxgen/catalogue/ops/scale.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::catalogue::ops {

struct sum {
    static constexpr const char* name = "sum";
    static constexpr const char* summary = "a + b: the sum of two expressions of one shape (a - b, e + image, e - image)";

    static std::vector<int> shape(const std::vector<int>& a, const std::vector<int>& b) {
        if (a.size() != b.size()) fail(PROXGEN_MSG_SUM_SAME_RANK);
        check::same_shape("+", "the left operand", a, "the right operand", b);
        return a;
    }
    /// The same rule in a generated solver, whose variables' extents come at init.
    static std::string operands_check_code(const ir::Node&, std::span<const std::string> operands) {
        if (operands.size() != 2) return {};
        return fmt::format(R"(proxgen::rules::same_shape("+", "the left operand", {}, "the right operand", {}))",
                           operands[0], operands[1]);
    }
    static ir::Node make(ir::Node a, ir::Node b) {
        std::vector<int> s = shape(a.shape, b.shape);
        return node<sum>(std::move(s), {std::move(a), std::move(b)});
    }
    /// The shape of e ± b (op is "+" or "-", for the sentences).
    static std::vector<int> offset_shape(const std::vector<int>& e, const Image& b, const char* op) {
        check::image(b, op, "constant");
        check::same_shape(op, "the expression", e, "the image", b.sizes());
        return e;
    }
    /// e ± b; b's input name, if any, stays on its node.
    static ir::Node offset(ir::Node e, const Image& b, float sign, const char* op, std::string input_name = {}) {
        offset_shape(e.shape, b, op);
        ir::Node signed_b = scale::make(constant::make(b, std::move(input_name)), sign);
        std::vector<int> s = e.shape;
        return node<sum>(std::move(s), {std::move(e), std::move(signed_b)});
    }
    /// The typed front end's e ± b (typed::apply_card<sum::offset_form>): the offset form, whose
    /// facts are its operand's alone (combine_offset).
    struct offset_form {
        static constexpr const char* name = "sum";
        static ir::Node make(ir::Node e, const Image& b, float sign, const char* op) {
            return offset(std::move(e), b, sign, op);
        }
        static constexpr LinearFacts combine(const LinearFacts& arg) { return combine_offset(arg); }
    };
    /// n is e ± b.
    static bool is_offset(const ir::Node& n) {
        return is<sum>(n) && n.args.size() == 2 && is<scale>(n.args[1]) && !n.args[1].args.empty() &&
               is<constant>(n.args[1].args[0]);
    }
    /// a ± b for by-name arithmetic: expressions or an expression and an image (not two images).
    static ir::Node arithmetic(const Args& a, float sign) {
        const char* op = sign > 0 ? "+" : "-";
        const Arg& x = a.operand("a");
        const Arg& y = a.operand("b");
        const auto* ex = std::get_if<ir::Node>(&x);
        const auto* ey = std::get_if<ir::Node>(&y);
        if (ex && ey) return make(*ex, sign > 0 ? *ey : scale::make(*ey, -1.0));
        if (ex) {
            const ImageArg& b = std::get<ImageArg>(y);
            return offset(*ex, b.image, sign, op, b.name);
        }
        if (ey) {  // b ± e = (±e) + b
            const ImageArg& b = std::get<ImageArg>(x);
            return offset(sign > 0 ? *ey : scale::make(*ey, -1.0), b.image, 1.0f, op, b.name);
        }
        fail("{}: both operands are images; one must be an expression of a variable", sign > 0 ? "add" : "subtract");
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"add", {operand("a"), operand("b")}}, [](const Args& a) -> Built { return arithmetic(a, +1.0f); }},
            {{"subtract", {operand("a"), operand("b")}}, [](const Args& a) -> Built { return arithmetic(a, -1.0f); }},
        };
        return e;
    }
    static std::string text(const ir::Node&, const std::vector<std::string>& a) { return fmt::format("({} + {})", a[0], a[1]); }

    static constexpr LinearFacts combine(const LinearFacts& a, const LinearFacts& b) {
        LinearFacts f;
        f.scalar_identity = a.scalar_identity && b.scalar_identity;
        f.diagonal = a.diagonal && b.diagonal;
        f.gram_diagonal = f.diagonal;
        f.fft_diagonal = a.fft_diagonal && b.fft_diagonal;
        f.dct_diagonal = a.dct_diagonal && b.dct_diagonal;
        f.grad_only = a.grad_only && b.grad_only;
        f.has_offset = a.has_offset || b.has_offset;
        return f;
    }
    /// e ± b: the linear part is e's.
    static constexpr LinearFacts combine_offset(const LinearFacts& arg) {
        LinearFacts f = arg;
        f.identity = false;
        f.data_free = false;
        f.has_offset = true;
        return f;
    }
    static LinearFacts facts(const ir::Node& n, std::span<const LinearFacts> a) {
        return is_offset(n) ? combine_offset(a[0]) : combine(a[0], a[1]);
    }
    /// ‖A + B‖ ≤ ‖A‖ + ‖B‖ (a constant operand's bound is 0).
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value> a, const D&) { return a[0] + a[1]; }
    /// e ± b has e's linear part; a sum of two operators is bounded by the triangle inequality.
    static bool norm_exact(const ir::Node& n, std::span<const NormTightness> a) { return is_offset(n) && a[0].exact; }
    /// d₁ + d₂ may cancel anywhere: no bound without every pixel, except when one operand holds no
    /// variable (e ± b keeps e's diagonal).
    template <class D>
    static auto diagonal_min_abs(const ir::Node& n, std::span<const typename D::value> a, const D&) {
        using V = typename D::value;
        if (!has_variable(n.args[1])) return a[0];
        if (!has_variable(n.args[0])) return a[1];
        return V(0.0);
    }
    static bool has_variable(const ir::Node& n) {
        if (n.is_variable()) return true;
        for (const auto& a : n.args)
            if (has_variable(a)) return true;
        return false;
    }
    static int static_last_extent(const ir::Node&, std::span<const int> a) { return std::max(a[0], a[1]); }
    static bool local(const ir::Node&, bool) { return true; }
    static std::optional<ir::Node> circulant(const ir::Node& n) { return n; }
    static bool diagonal_in(const ir::Node& n, Basis, bool inside_grad,
                            const std::function<bool(const ir::Node&, bool)>& operand) {
        return operand(n.args[0], inside_grad) && operand(n.args[1], inside_grad);
    }
    static bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) {
        std::vector<Row> b;
        const bool za = !t.row(n.args[0], ky, out), zb = !t.row(n.args[1], ky, b);
        if (za) out = std::move(b);
        if (za || zb) return !(za && zb);
        PROXGEN_INTERNAL_ASSERT(out.size() == b.size());
        for (std::size_t c = 0; c < out.size(); ++c)
            for (std::size_t k = 0; k < out[c].size(); ++k) out[c][k] += b[c][k];
        return true;
    }

    static auto forward(auto& h, const ir::Node& n, auto a, const auto&, bool) {
        if (a[0].is_zero) return a[1];
        if (a[1].is_zero) return a[0];
        auto s = a[0];
        s.f = typename std::remove_cvref_t<decltype(h)>::Func("sum");
        s.is_input = s.staged = false;
        s.f(h.args(n.rank())) = a[0].f(h.args(n.rank())) + a[1].f(h.args(n.rank()));
        return s;
    }
    /// (A + B)ᵀ y = Aᵀ y + Bᵀ y.
    static auto adjoint(auto&, const ir::Node&, const auto& y, int) {
        using L = std::remove_cvref_t<decltype(y)>;
        return std::vector<std::optional<L>>{y, y};
    }
};

}  // namespace proxgen::catalogue::ops
