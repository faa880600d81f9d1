// The masked super-resolution problem's test data (superres_problem.hpp): a 64² image blurred by a
// 5x5 box, subsampled 2x2, three samples in four kept by a fixed pseudo-random mask.
#pragma once

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

}  // namespace proxgen::aot_test
