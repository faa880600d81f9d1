// Card: s · e, a scalar multiple. The factor is data (a scalar slot), not structure: changing it
// recompiles nothing.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct scale {
    static constexpr const char* name = "scale";
    static constexpr const char* summary = "s * e: a scalar multiple";
    static constexpr bool holds_scalar = true;

    static ir::Node make(ir::Node e, double factor) {
        std::vector<int> out = e.shape;  // before e is moved
        ir::Node n = node<scale>(std::move(out), {std::move(e)});
        n.scalar = check::scale(factor);
        return n;
    }
    static std::span<const Entry> entries() {
        static const Entry e[] = {
            {{"scale", {number("factor"), expr("e")}}, [](const Args& a) -> Built { return make(a.expr("e"), a.number("factor")); }},
            {{"negate", {expr("e")}}, [](const Args& a) -> Built { return make(a.expr("e"), -1.0); }},
        };
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) { return fmt::format("{:g}*{}", n.scalar, a[0]); }

    static constexpr LinearFacts combine(const LinearFacts& arg) {
        LinearFacts f = unary_facts(arg);
        f.scalar_identity = arg.scalar_identity;
        f.diagonal = arg.diagonal;
        f.gram_diagonal = arg.gram_diagonal;
        f.fft_diagonal = arg.fft_diagonal;
        f.dct_diagonal = arg.dct_diagonal;
        return f;
    }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// ‖sK‖ = |s|‖K‖.
    static bool norm_exact(const ir::Node&, std::span<const NormTightness> a) { return a[0].exact; }
    template <class D>
    static auto norm_bound(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        using std::abs;
        return abs(d.scalar(n)) * a[0];
    }
    template <class D>
    static auto diagonal_min_abs(const ir::Node& n, std::span<const typename D::value> a, const D& d) {
        using std::abs;
        return abs(d.scalar(n)) * a[0];
    }
    static bool local(const ir::Node&, bool) { return true; }
    static std::optional<ir::Node> circulant(const ir::Node& n) { return n; }
    static bool diagonal_in(const ir::Node& n, Basis, bool inside_grad,
                            const std::function<bool(const ir::Node&, bool)>& operand) {
        return operand(n.args[0], inside_grad);
    }
    static bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) {
        if (!t.row(n.args[0], ky, out)) return false;
        for (auto& c : out)
            for (auto& v : c) v *= double(n.scalar);
        return true;
    }

    static auto forward(auto& h, const ir::Node& n, const auto& a) {
        typename std::remove_cvref_t<decltype(h)>::Func out("scale");
        out(h.args(n.rank())) = h.scalar(n) * a.f(h.args(n.rank()));
        return out;
    }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) {
        typename std::remove_cvref_t<decltype(h)>::Func back("scale_adjoint");
        const int r = n.args[0].rank();
        back(h.args(r)) = h.scalar(n) * y.f(h.args(r));
        return back;
    }
    /// ∂⟨g, s e⟩/∂s = Σ g ⊙ e.
    static auto data_vjp(auto& h, const ir::Node& n, const auto& e, const auto& g) {
        using H = std::remove_cvref_t<decltype(h)>;
        typename H::Func d("scale_factor_vjp");
        const auto at = h.args(n.rank());
        d(at) = g.f(at) * e.f(at);
        return DataVJP<typename H::Func>{d, 0, true};
    }
};

}  // namespace proxgen::catalogue::ops
