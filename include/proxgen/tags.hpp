// The tags both front ends spell structural choices with: conv's and grad's boundaries and grad's
// axes (pg::circular, pg::zero_boundary, pg::replicate, pg::neumann, pg::periodic,
// pg::on_axes<...>). Types, so that the typed front end's planner sees them; values of them are
// accepted by the run-time API too (proxgen/runtime.hpp).
#pragma once

#include <vector>

namespace proxgen::dsl {

/// Boundary of conv, a type so the planner sees it: circular (wraps; diagonal in the DFT), zero
/// outside the image, or the edge pixel replicated (ProxImaL's conv_nofft).
struct circular_t {};
struct zero_boundary_t {};
struct replicate_t {};

/// Boundary of grad, a type so the planner sees it: Neumann (ProxImaL's: the last difference is
/// 0; diagonal in the DCT) or periodic (wraps around; diagonal in the DFT).
struct neumann_t {};
struct periodic_t {};

/// The axes grad differentiates along, in order (x = 0, y = 1, the third axis = 2).
template <int... A>
struct axes_t {
    static constexpr int count = sizeof...(A);
    static std::vector<int> list() { return {A...}; }
};
using xy_axes = axes_t<0, 1>;

}  // namespace proxgen::dsl

namespace proxgen {

inline constexpr dsl::circular_t circular{};
inline constexpr dsl::zero_boundary_t zero_boundary{};
inline constexpr dsl::replicate_t replicate{};

inline constexpr dsl::neumann_t neumann{};
inline constexpr dsl::periodic_t periodic{};
/// grad's axes: pg::on_axes<0, 1, 2> differentiates a volume along x, y and its third axis.
template <int... A>
inline constexpr dsl::axes_t<A...> on_axes{};

}  // namespace proxgen
