// variable(w, h[, c]) — the unknown image. Every call site makes a distinct variable type (the
// default template argument is a fresh lambda type per use), so a problem's type knows which
// variables it contains and Result can be indexed by them.
#pragma once

#include <vector>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::dsl {

/// The unknown of a problem: a float image of rank 2 (w × h) or 3 (w × h × c).
template <class Tag, int Rank>
struct variable_t {
    static_assert(Rank == 2 || Rank == 3, PROXGEN_MSG_VARIABLE_RANK);
    using tag = Tag;
    static constexpr int rank = Rank;
    std::vector<int> shape;
};

}  // namespace proxgen::dsl

namespace proxgen {

/// A 2-D unknown image of the given size.
template <class Tag = decltype([] {})>
dsl::variable_t<Tag, 2> variable(int width, int height) {
    return {catalogue::check::variable({width, height})};
}

/// A 3-D unknown image (width × height × channels).
template <class Tag = decltype([] {})>
dsl::variable_t<Tag, 3> variable(int width, int height, int channels) {
    return {catalogue::check::variable({width, height, channels})};
}

}  // namespace proxgen
