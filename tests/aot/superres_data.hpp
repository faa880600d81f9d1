// The masked super-resolution problem's test data (superres_problem.hpp): a 64² image blurred by a
// 5x5 box, subsampled 2x2, three samples in four kept by a fixed pseudo-random mask.
#pragma once

#include <limits>
#include <string>

#include <catch2/catch.hpp>
#include <proxgen/proxgen.hpp>

#include "reference_problems.hpp"
#include "solver_test_support.hpp"

namespace proxgen::aot_test {

struct Superres {
    Image mask{{32, 32}}, kernel{{5, 5}}, b{{32, 32}};
    Superres() {
        const auto truth = reference::make_denoise(64).clean;
        for (int y = 0; y < 5; ++y)
            for (int x = 0; x < 5; ++x) kernel(x, y) = 1.0f / 25;
        unsigned state = 12345;
        for (int y = 0; y < 32; ++y)
            for (int x = 0; x < 32; ++x) {
                state = state * 1103515245u + 12345u;
                mask(x, y) = (state >> 16) % 4 != 0 ? 1.0f : 0.0f;  // three samples in four kept
                float s = 0;
                for (int j = -2; j <= 2; ++j)
                    for (int i = -2; i <= 2; ++i) s += truth((2 * x + i + 64) % 64, (2 * y + j + 64) % 64) / 25;
                b(x, y) = mask(x, y) * s;
            }
    }
    /// A generated solver's Data for weight lambda: its fields are the names superres_problem.hpp
    /// gives its data, and take them as written there (the solver's init makes the offset −b).
    template <class Data>
    Data data(float lambda) const {
        Data d;
        d.mask = to_buffer(mask);
        d.k = to_buffer(kernel);
        d.b = to_buffer(b);
        d.lambda = lambda;
        return d;
    }
};

/// A generated super-resolution solver run by step(7) until it has finished ends where one run by
/// solve() ends: the same iterations and x bit for bit (both left initialized and finished, for the
/// algorithm's own checks of their state).
template <class Solver>
void check_superres_steps_in_pieces(const Superres& sr, Solver& whole, Solver& pieces) {
    using Status = decltype(whole.solve());
    using Data = typename Solver::Data;
    REQUIRE(whole.init({64, 64}, sr.data<Data>(0.01f)) == Status::ok);
    REQUIRE(whole.solve() == Status::ok);
    REQUIRE(pieces.init({64, 64}, sr.data<Data>(0.01f)) == Status::ok);
    while (!pieces.state().finished) REQUIRE(pieces.step(7) == Status::ok);
    CHECK(pieces.state().iterations == whole.state().iterations);
    bool same = true;
    pieces.x().for_each_element([&](int i, int j) { same = same && pieces.x()(i, j) == whole.x()(i, j); });
    CHECK(same);
}

/// What every generated solver of the masked super-resolution problem answers to bad input, whatever
/// its algorithm: a status and a sentence naming the field — solve before init, extents the data do
/// not fit, NaN data, a null buffer, a negative weight. The solver `s` is left uninitialized.
template <class Solver>
void check_superres_bad_input(const Superres& sr, Solver& s) {
    using Status = decltype(s.solve());
    using Data = typename Solver::Data;
    CHECK(s.solve() == Status::not_initialized);
    CHECK(s.step(1) == Status::not_initialized);
    CHECK(s.x().data() == nullptr);
    const Data d = sr.data<Data>(0.01f);
    CHECK(s.init({64, 62}, d) == Status::shape_mismatch);  // the data are 32x32 samples
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("'mask' is 32x32"));
    Data nan = d;
    nan.b = d.b.copy();
    nan.b(3, 4) = std::numeric_limits<float>::quiet_NaN();
    CHECK(s.init({64, 64}, nan) == Status::non_finite_input);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("'b'"));
    for (Buffer Data::*field : {&Data::mask, &Data::k}) {
        Data null = d;
        null.*field = Buffer();
        CHECK(s.init({64, 64}, null) == Status::invalid_argument);
        CHECK_THAT(std::string(s.last_error()),
                   Catch::Matchers::Contains(field == &Data::mask ? "'mask'" : "'k'"));
    }
    Data negative = d;
    negative.lambda = -1;
    CHECK(s.init({64, 64}, negative) == Status::invalid_argument);
    CHECK_THAT(std::string(s.last_error()), Catch::Matchers::Contains("lambda"));
}

}  // namespace proxgen::aot_test
