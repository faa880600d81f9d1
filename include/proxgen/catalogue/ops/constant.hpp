// Card: a constant image inside an affine expression (e ± b holds b as a constant node). It has
// no linear part: the planner's rules fold it into the term's offset.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

struct constant {
    static constexpr const char* name = "constant";
    static constexpr const char* summary = "a constant image (the b of e - b)";
    static constexpr const char* image_role = "constant";

    static ir::Node make(Image b, std::string input_name = {}) {
        ir::Node n = node<constant>(b.sizes());
        n.image = std::move(b);
        n.name = std::move(input_name);
        return n;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>&) {
        return fmt::format("{}[{}]", ir::data_label(n, "b"), n.image.shape_string());
    }

    /// No linear part: nothing to know (an offset node reads its other operand's facts).
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts>) { return {}; }
    template <class D>
    static auto norm_bound(const ir::Node&, std::span<const typename D::value>, const D&) {
        return typename D::value(0.0);
    }
    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>>, const D& d) {
        return d.image_extents(n);
    }
    static int static_last_extent(const ir::Node&, std::span<const int>) { return 0; }
    static bool local(const ir::Node&, bool) { return true; }
    static std::optional<ir::Node> circulant(const ir::Node& n) { return n; }
    static bool diagonal_in(const ir::Node&, Basis, bool, const std::function<bool(const ir::Node&, bool)>&) { return true; }
    static bool transfer_row(const ir::Node&, const TransferTables&, int, std::vector<Row>&) { return false; }

    // ---- lowering: 0 (linear part), the image (constant part); nothing passes down ----
    static auto forward(auto& h, const ir::Node& n, auto, const auto&, bool linear) {
        return linear ? h.zeros(h.extents(n)) : h.input(h.image(n));
    }
    static auto adjoint(auto&, const ir::Node&, const auto& y, int) {
        return std::vector<std::optional<std::remove_cvref_t<decltype(y)>>>{};
    }
};

}  // namespace proxgen::catalogue::ops
