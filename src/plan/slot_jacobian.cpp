// The planning map's derivative per data slot; see slot_jacobian.hpp.
#include "slot_jacobian.hpp"

#include <algorithm>

#include "proxgen/error.hpp"

namespace proxgen::plan {

bool SlotJacobian::depends() const {
    for (double d : scalar)
        if (d != 0) return true;
    for (const auto& i : image)
        if (!i.empty()) return true;
    return false;
}

SlotJacobian slot_jacobian(const ir::Problem& p) {
    SlotJacobian J;
    J.scalar.assign(std::size_t(p.scalar_slots), 0.0);
    J.image.resize(std::size_t(p.image_slots));
    auto per_pixel = [](const Image& d) {
        std::vector<double> v(d.data(), d.data() + d.size());
        return std::any_of(v.begin(), v.end(), [](double x) { return x != 0; }) ? v : std::vector<double>{};
    };
    auto ones = [](std::size_t n) { return std::vector<double>(n, 1.0); };
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            PROXGEN_INTERNAL_ASSERT(t.tangent);
            const ir::Term::Tangent& d = *t.tangent;
            J.scalar[std::size_t(t.weight_slot)] = d.weight;
            J.scalar[std::size_t(t.beta_slot)] = d.beta;
            if (t.arg_weight_slot >= 0 && !d.arg_weight.empty()) J.image[std::size_t(t.arg_weight_slot)] = per_pixel(d.arg_weight);
            if (t.offset_slot >= 0 && !d.offset.empty()) J.image[std::size_t(t.offset_slot)] = per_pixel(d.offset);
            if (t.data_slot >= 0 && t.data_name == d.of) J.image[std::size_t(t.data_slot)] = ones(t.data.size());
            // the operators' own data: held by name, unchanged by the rules
            ir::for_each_node(t.expr, [&](const ir::Node& n) {
                if (n.name != d.of) return;
                if (n.image_slot >= 0) J.image[std::size_t(n.image_slot)] = ones(n.image.size());
                if (n.scalar_slot >= 0) J.scalar[std::size_t(n.scalar_slot)] = 1.0;
            });
        }
    return J;
}

SlotValues slot_values(const ir::Problem& p) {
    SlotValues v;
    v.scalar.assign(std::size_t(p.scalar_slots), 0.0);
    v.image.assign(std::size_t(p.image_slots), nullptr);
    for (const auto* terms : {&p.omega, &p.psi})
        for (const auto& t : *terms) {
            v.scalar[std::size_t(t.weight_slot)] = t.weight;
            v.scalar[std::size_t(t.beta_slot)] = t.beta;
            if (t.arg_weight_slot >= 0) v.image[std::size_t(t.arg_weight_slot)] = &t.arg_weight;
            if (t.offset_slot >= 0) v.image[std::size_t(t.offset_slot)] = &t.offset;
            if (t.data_slot >= 0) v.image[std::size_t(t.data_slot)] = &t.data;
            ir::for_each_node(t.expr, [&](const ir::Node& n) {
                if (n.image_slot >= 0) v.image[std::size_t(n.image_slot)] = &n.image;
                if (n.scalar_slot >= 0) v.scalar[std::size_t(n.scalar_slot)] = n.scalar;
            });
        }
    return v;
}

}  // namespace proxgen::plan
