// The planning map's derivative read off a plan whose terms carry their tangents
// (ir::Term::Tangent, rt::detail::plan_with_tangent): how each data slot of the plan moves with
// one named value of the user's problem. rt::gradient chains it into its gradients; the
// generator reads from it which slots are the user's named data as written.
#pragma once

#include <vector>

#include "proxgen/ir/ir.hpp"

namespace proxgen::plan {

/// d(slot values)/d(one named value), per slot: scalars, and images per pixel (a named image
/// folds into a slot pixel by pixel: offsets, weights, kernels are elementwise functions of it).
struct SlotJacobian {
    std::vector<double> scalar;              // by scalar slot
    std::vector<std::vector<double>> image;  // by image slot (empty: no dependence)
    bool depends() const;
};

/// Exact: the rewrite rules' own derivatives. Every term of p must carry its tangent.
SlotJacobian slot_jacobian(const ir::Problem& p);

/// The value of each data slot of p, by slot (for the slots jacobian() describes).
struct SlotValues {
    std::vector<double> scalar;
    std::vector<const Image*> image;
};
SlotValues slot_values(const ir::Problem& p);

}  // namespace proxgen::plan
