// Numbers that both the JIT and generated solvers need from a node's or a term's data — ‖K‖
// bounds, min |d| of diagonal operators, curvatures, output extents — are written ONCE per card,
// as a template over a *formula accessor* D (D::value is the type formulas compute in):
//   - Numbers: D::value = double, computed now from the data (the JIT and the planner);
//   - Emitter: D::value = Code, the C++ expression that computes the same number in a generated
//     solver, from its data slots `images[i]` / `scalars[i]` (src/aot);
//   - the Halide back end's accessor for extents (D::value = Halide::Expr, src/lower).
// Formulas use +, −, ×, ÷, sqrt, abs, floor, min and the accessor's readings (l1_norm(n), scalar(n),
// image_extent(n, axis), ...), each defined once in proxgen/catalogue/data_norms.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "proxgen/catalogue/data_norms.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::catalogue {

/// Formulas computed now.
struct Numbers {
    using value = double;
    static const halide_buffer_t* raw(const Image& i) { return i.buffer().raw_buffer(); }

    double scalar(const ir::Node& n) const { return n.scalar; }
    double image_extent(const ir::Node& n, int axis) const { return n.image.extent(axis); }
    double l1_norm(const ir::Node& n) const { return data::l1_norm(raw(n.image)); }
    double abs_min(const ir::Node& n) const { return data::abs_min(raw(n.image)); }
    double abs_max(const ir::Node& n) const { return data::abs_max(raw(n.image)); }
    double frobenius(const ir::Node& n) const { return data::frobenius(raw(n.image)); }
    double largest_pixel_frobenius(const ir::Node& n) const { return data::largest_pixel_frobenius(raw(n.image)); }
    double spectral_norm(const ir::Node& n) const { return data::spectral_norm(raw(n.image)); }
    double largest_pixel_spectral_norm(const ir::Node& n) const { return data::largest_pixel_spectral_norm(raw(n.image)); }
    /// ‖K‖ of a node whose data the IR no longer holds, computed when it was built.
    double norm_factor(const ir::Node& n) const { return n.norm_factor; }

    double weight(const ir::Term& t) const { return t.weight; }
    double beta(const ir::Term& t) const { return t.beta; }
    /// max / min |w| of the term's elementwise weight (1 without one).
    double arg_weight_abs_max(const ir::Term& t) const { return t.arg_weight.empty() ? 1.0 : data::abs_max(raw(t.arg_weight)); }
    double arg_weight_abs_min(const ir::Term& t) const { return t.arg_weight.empty() ? 1.0 : data::abs_min(raw(t.arg_weight)); }
    double mean_inverse_counts(const ir::Term& t) const { return data::mean_inverse_counts(raw(t.data)); }
};

/// A C++ expression computing a double in a generated solver.
struct Code {
    std::string text;
    Code(double v) : text(fmt::format("{:.17g}", v)) {}  // NOLINT: numbers are formulas too
    explicit Code(std::string t) : text(std::move(t)) {}
};
inline Code operator+(const Code& a, const Code& b) { return Code("(" + a.text + " + " + b.text + ")"); }
inline Code operator-(const Code& a, const Code& b) { return Code("(" + a.text + " - " + b.text + ")"); }
inline Code operator*(const Code& a, const Code& b) { return Code("(" + a.text + " * " + b.text + ")"); }
inline Code operator/(const Code& a, const Code& b) { return Code("(" + a.text + " / " + b.text + ")"); }
inline Code sqrt(const Code& a) { return Code("std::sqrt(" + a.text + ")"); }
inline Code abs(const Code& a) { return Code("std::abs(" + a.text + ")"); }
inline Code floor(const Code& a) { return Code("std::floor(" + a.text + ")"); }
/// (std::min<double>: a formula may be an integer literal, "0")
inline Code min(const Code& a, const Code& b) { return Code("std::min<double>(" + a.text + ", " + b.text + ")"); }

/// Formulas written as code over a generated solver's data slots: `images[i]` (halide_buffer_t*)
/// and `scalars[i]` (float), numbered as the planned problem numbers them (ir::assign_slots).
struct Emitter {
    using value = Code;
    static Code call(const char* f, int slot) { return Code(fmt::format("proxgen::data::{}(images[{}])", f, slot)); }

    Code scalar(const ir::Node& n) const { return Code(fmt::format("double(scalars[{}])", n.scalar_slot)); }
    Code image_extent(const ir::Node& n, int axis) const {
        return Code(fmt::format("double(images[{}]->dim[{}].extent)", n.image_slot, axis));
    }
    Code l1_norm(const ir::Node& n) const { return call("l1_norm", n.image_slot); }
    Code abs_min(const ir::Node& n) const { return call("abs_min", n.image_slot); }
    Code abs_max(const ir::Node& n) const { return call("abs_max", n.image_slot); }
    Code frobenius(const ir::Node& n) const { return call("frobenius", n.image_slot); }
    Code largest_pixel_frobenius(const ir::Node& n) const { return call("largest_pixel_frobenius", n.image_slot); }
    Code spectral_norm(const ir::Node& n) const { return call("spectral_norm", n.image_slot); }
    Code largest_pixel_spectral_norm(const ir::Node& n) const { return call("largest_pixel_spectral_norm", n.image_slot); }
    /// Extents: a variable's (the generated solver's `v`, one extents vector per variable in
    /// Problem::variables order) and a node image's.
    std::vector<Code> variable_extents(const ir::Node& n) const {
        std::vector<Code> e;
        for (int a = 0; a < n.rank(); ++a) e.push_back(Code(fmt::format("v[{}][{}]", std::max(n.variable, 0), a)));
        return e;
    }
    std::vector<Code> image_extents(const ir::Node& n) const {
        std::vector<Code> e;
        for (int a = 0; a < n.image.dimensions(); ++a)
            e.push_back(Code(fmt::format("images[{}]->dim[{}].extent", n.image_slot, a)));
        return e;
    }
    /// A number derived from data the node no longer holds: a constant of the generated solver.
    Code norm_factor(const ir::Node& n) const { return Code(n.norm_factor); }

    Code weight(const ir::Term& t) const { return Code(fmt::format("double(scalars[{}])", t.weight_slot)); }
    Code beta(const ir::Term& t) const { return Code(fmt::format("double(scalars[{}])", t.beta_slot)); }
    Code arg_weight_abs_max(const ir::Term& t) const { return t.arg_weight_slot < 0 ? Code(1.0) : call("abs_max", t.arg_weight_slot); }
    Code arg_weight_abs_min(const ir::Term& t) const { return t.arg_weight_slot < 0 ? Code(1.0) : call("abs_min", t.arg_weight_slot); }
    Code mean_inverse_counts(const ir::Term& t) const { return call("mean_inverse_counts", t.data_slot); }
};

}  // namespace proxgen::catalogue
