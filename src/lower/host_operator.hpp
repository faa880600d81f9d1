// Internal: the code of a host operator (rt::host_operator), checked and ready for the
// user-operator card: its Halide side is an extern stage that calls the host functions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "proxgen/ir/kinds.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::lower {

/// An image of independent standard normal samples (float32), reproducible from `seed`.
Image random_normal_image(const std::vector<int>& shape, unsigned seed);
/// ⟨a, b⟩ summed in double.
double inner_product(const Image& a, const Image& b);
/// ‖A‖ estimated by `iterations` power iterations on AᵀA (`gram`) from random_normal_image(shape,
/// seed): √‖AᵀA v‖ for the last unit v, a lower estimate.
double power_iteration_norm(const std::vector<int>& shape, unsigned seed, int iterations,
                            const std::function<Image(const Image&)>& gram);

/// The operator's code (an ir::UserOperator), after its adjoint passed the dot-product test and
/// its norm bound is known (given, or estimated by power iteration on the functions).
std::shared_ptr<const ir::Opaque> host_operator_code(const rt::HostOperator& def);

/// The code of a diff_fn given by host functions on the whole argument of `shape`: f's value and
/// its gradient (whose shape is checked at every call).
std::shared_ptr<const ir::Opaque> host_smooth_code(const std::string& name, const std::vector<int>& shape,
                                                   std::function<double(const Image&)> value,
                                                   std::function<Image(const Image&)> gradient);

}  // namespace proxgen::lower
