// Card: a user-defined linear operator: its forward, and optionally its adjoint, are Halide
// functions the program defines (proxgen/user_operator.hpp), or host functions on whole images
// (rt::host_operator: a black box, ProxImaL's LinOpFactory). Either way the program's code is part
// of the node, so this card's lowering hands the node to the back end's user-operator support and
// a problem built by name cannot carry one.
#pragma once

#include "proxgen/catalogue/card.hpp"

namespace proxgen::catalogue::ops {

/// What the catalogue knows of a user operator's definition (the Halide functions live in its
/// derived type, proxgen/user_operator.hpp).
struct UserOperatorData : ir::Opaque {
    double norm_bound = 0;  ///< ‖K‖ bound (0: unknown, estimated by power iteration)
    /// The output's shape where it differs from the operand's (host operators; same rank); empty:
    /// the operand's.
    std::vector<int> out_shape;
};

struct user_operator {
    static constexpr const char* name = "user_operator";
    static constexpr const char* summary = "a linear operator written as Halide functions in C++ (proxgen/user_operator.hpp)";

    static ir::Node make(ir::Node e, std::shared_ptr<const UserOperatorData> op) {
        std::vector<int> out = op->out_shape.empty() ? e.shape : op->out_shape;  // before e is moved
        ir::Node n = node<user_operator>(std::move(out), {std::move(e)});
        n.code = std::move(op);
        return n;
    }
    static const UserOperatorData& data(const ir::Node& n) { return static_cast<const UserOperatorData&>(*n.code); }
    static std::span<const Entry> entries() {
        static const Entry e[] = {{{"user_operator", {expr("e")}}, [](const Args&) -> Built {
            fail("user_operator is written in Halide code, which a problem built by name cannot carry: build it in C++ "
                 "with proxgen/user_operator.hpp (the typed DSL)");
        }}};
        return e;
    }
    static std::string text(const ir::Node& n, const std::vector<std::string>& a) {
        return fmt::format("{}({})", n.code->name, a[0]);
    }

    /// Nothing is known about a user's operator: the conservative facts (CG x-update for ADMM / HQS).
    static constexpr LinearFacts combine(const LinearFacts& arg) { return moving_facts(arg, false); }
    static LinearFacts facts(const ir::Node&, std::span<const LinearFacts> a) { return combine(a[0]); }
    /// The bound its definition gives (0: unknown; the solver estimates it). A generated solver
    /// cannot run user code: there is no code form.
    static double norm_bound(const ir::Node& n, std::span<const double> a, const Numbers&) { return data(n).norm_bound * a[0]; }

    template <class V, class D>
    static std::vector<V> extents(const ir::Node& n, std::span<const std::vector<V>> a, const D&) {
        if (data(n).out_shape.empty()) return a[0];
        return std::vector<V>(n.shape.begin(), n.shape.end());
    }

    static auto forward(auto& h, const ir::Node& n, const auto& in) { return h.user_forward(n, in); }
    static auto adjoint(auto& h, const ir::Node& n, const auto& y) { return h.user_adjoint(n, y); }
};

}  // namespace proxgen::catalogue::ops
