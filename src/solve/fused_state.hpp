// Internal: what the loops of fused kernels share (PC and L-ADMM): the views of the state that a
// fused kernel writes as the elements of its one Tuple output, the choice of iterations per call,
// and the residual partial sums.
#pragma once

#include <string>
#include <vector>

#include "engine.hpp"

namespace proxgen::detail {

/// The Tuple-element views of a Ψ state image over the variable's domain (lower::components):
/// the image itself when it has the variable's rank, else its slices along the last axis. They
/// share its storage; swap them together with it.
std::vector<Image> component_views(Image& img, int var_rank);

/// Swaps two states and their component views element by element (bound addresses stay).
void swap_with_views(std::vector<Image>& a, std::vector<std::vector<Image>>& a_views, std::vector<Image>& b,
                     std::vector<std::vector<Image>>& b_views);

/// Whether PC and L-ADMM fuse the steps of plans that allow it (default: yes). Process-wide, for
/// tests that compare the fused kernels with the separate steps; the kernel caches' keys say which.
void set_fusion(bool enabled);
bool fusion_enabled();
/// The in-memory cache key prefix of an algorithm's kernels under the current fusion setting.
std::string kernels_key(const char* algorithm, const ir::Problem& p);

/// Iterations per kernel call for this solve: Options::iterations_per_call when given (checked:
/// 1..16), else the automatic choice for the problem's size; 1 when blocking is unavailable
/// (`blockable` false) or a callback must see every iteration.
int iterations_per_call(const ir::Problem& p, const Options& opt, bool blockable);

/// Whether none of the iterations from..to (inclusive) measures residuals.
bool no_check_between(const Monitor& mon, int from, int to);

/// The partial sums output of a check kernel for quantities of these shapes, and their totals.
struct SquareSumsOutput {
    Image partials;
    explicit SquareSumsOutput(const std::vector<std::vector<int>>& shapes);
    std::vector<double> totals() const;
};

}  // namespace proxgen::detail
