// Which data slots of a generated solver are the user's named data as written (a problem file's or
// rt::input's names), so that the generated Data takes `b`, `k` and `lambda` as the user has them
// and its init applies the rewrite rules (−b for `… − b`, λ for `λ * f`) itself.
#pragma once

#include <string>
#include <vector>

#include "proxgen/algorithm.hpp"

namespace proxgen::rt {
class Problem;
}

namespace proxgen::aot {

/// One named value a slot is made of: slot = Σ factor · value over its sources.
struct SlotSource {
    std::string name;
    double factor = 1;
    double value = 0;  ///< a parameter's value in the problem (the generated field's default)
};

/// By slot of the generated plan (aot::halide_only of the algorithm's plan); an empty list: the slot
/// is not the user's named data times constants, and keeps its derived field.
struct DataSources {
    std::vector<std::vector<SlotSource>> images;   ///< named inputs, each factor uniform over the pixels
    std::vector<std::vector<SlotSource>> scalars;  ///< one named parameter at most
};

/// Read off the planning map's derivative (plan::slot_jacobian) per named input and parameter, and
/// kept only where the slot's value is exactly that combination of the named values (within float
/// rounding) and each name can be a C++ field.
DataSources data_sources(const rt::Problem& prob, Algorithm a);

}  // namespace proxgen::aot
