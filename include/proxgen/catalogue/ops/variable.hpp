// Card: a variable — the unknown image, the leaf every operator's chain starts from.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct variable {
    static constexpr const char* name = "variable";
    static constexpr const char* summary = "the unknown image (x = variable(width, height[, channels]))";

    /// Variable `index` of the problem, named `name` (the shape is checked: rank 2 or 3, sizes > 0).
    static ir::Node make(int index, std::string var_name, std::vector<int> shape) {
        ir::Node n = node<variable>(check::variable(std::move(shape)));
        n.variable = index;
        n.name = std::move(var_name);
        return n;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>&) { return n.name.empty() ? "x" : n.name; }

    static constexpr LinearFacts combine() {
        return {.identity = true, .scalar_identity = true, .diagonal = true, .gram_diagonal = true,
                .fft_diagonal = true, .dct_diagonal = true, .grad_only = false, .has_offset = false, .data_free = true};
    }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts>) { return combine(); }
    static bool norm_exact(const ir::Node&, std::span<const NormTightness>) { return true; }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value>, const D&) {
        return typename D::value(1.0);
    }
    template <class D>
    static auto diagonal_min_abs(const ir::Node&, std::span<const typename D::value>, const D&) {
        return typename D::value(1.0);
    }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>>, const D& d) {
        return d.variable_extents(n);
    }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }
    static bool local(const ir::Node&, bool) { return true; }
    static std::optional<ir::Node> circulant(const ir::Node& n) { return n; }
    static bool diagonal_in(const ir::Node&, Basis, bool, const std::function<bool(const ir::Node&, bool)>&) { return true; }
    static bool transfer_row(const ir::Node&, const TransferTables& t, int, std::vector<Row>& out) {
        out.assign(1, Row(t.grid.nx, std::complex<double>(1.0)));
        return true;
    }

    // ---- lowering: x itself (linear part), 0 (constant part); its adjoint is the identity ----
    static auto forward(auto& h, const ir::Node&, auto operands, const auto& x, bool linear) {
        return linear ? x : h.zeros(x.extents);
    }
    static auto adjoint(auto&, const ir::Node&, const auto& y, int) {
        return std::vector<std::optional<std::remove_cvref_t<decltype(y)>>>{};  // the driver ends here
    }
};

}  // namespace proxgen::catalogue::ops
