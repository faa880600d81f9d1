// Card: w ⊙ e, the elementwise product with a weight image of e's shape (diagonal in space).
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct mul_elemwise {
    static constexpr const char* name = "mul_elemwise";
    static constexpr const char* summary = "w ⊙ e: the elementwise product with a weight image of e's shape";
    static constexpr const char* image_role = "weight";

    static std::vector<int> shape(const Image& weight, const std::vector<int>& operand) {
        check::image(weight, "mul_elemwise", "weight");
        check::same_shape("mul_elemwise", "the weight", weight.sizes(), "its operand", operand);
        return operand;
    }
    static ir::Node make(ir::Node e, Image weight, std::string input_name = {}) {
        std::vector<int> out = shape(weight, e.shape);  // before e is moved
        ir::Node n = node<mul_elemwise>(std::move(out), {std::move(e)});
        n.image = std::move(weight);
        n.name = std::move(input_name);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"mul_elemwise", {image("weight"), expr("e")}}, [](const Args& a) -> Built {
            return make(a.expr("e"), a.image("weight").image, a.image("weight").name);
        }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("mul_elemwise({}, {})", ir::data_label(n, "w"), a[0]);
    }

    static constexpr LinearFacts combine(const LinearFacts& arg) {
        LinearFacts f = unary_facts(arg);
        f.diagonal = arg.diagonal;
        f.gram_diagonal = arg.diagonal;
        return f;
    }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.abs_max(n) * a[0];
    }
    /// max|w| is attained at the largest weight's pixel when the operand is the variable; a mask
    /// after a blur keeps the blur's bound, loosely.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return exact_on_scaled_identity(a); }
    template <class D>
    static auto diagonal_min_abs(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        return d.abs_min(n) * a[0];
    }
    static bool local(const ir::Node&, bool) { return true; }

    static auto forward(auto& h, const ir::Node& n, const auto& a) {
        typename std::remove_cvref_t<decltype(h)>::Func out("mul_elemwise");
        const auto at = h.args(n.rank());
        out(at) = h.image(n)(at) * a.f(at);
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        typename std::remove_cvref_t<decltype(h)>::Func back("mul_elemwise_adjoint");
        const auto at = h.args(n.rank());
        back(at) = h.image(n)(at) * y.f(at);
        return back;
    }
    /// ∂⟨g, w ⊙ e⟩/∂w = g ⊙ e.
    static auto data_vjp(auto& h, const ir::Node& n, const auto& e, const auto& g) {
        using H = std::remove_cvref_t<decltype(h)>;
        typename H::Func d("mul_elemwise_weight_vjp");
        const auto at = h.args(n.rank());
        d(at) = g.f(at) * e.f(at);
        return DataVJP<typename H::Func>{d, n.rank(), false};
    }
};

}  // namespace proxgen::catalogue::ops
