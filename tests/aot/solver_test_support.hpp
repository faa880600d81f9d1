// What the tests of generated solvers share: images as Halide buffers, fixed iteration counts and
// the distance from the JIT's result. (Generated solvers estimate
// ‖K‖ as pg::solve does, so the JIT they are compared with runs with its default, tight norms.)
#pragma once

#include <cmath>
#include <cstdlib>

#include <HalideBuffer.h>
#include <proxgen/aot/generator.hpp>
#include <proxgen/proxgen.hpp>

namespace proxgen::aot_test {

using Buffer = Halide::Runtime::Buffer<float>;

/// An image as a dense Halide buffer of its extents (x fastest, as Image).
inline Buffer to_buffer(const Image& img) {
    Buffer b(img.sizes());
    for (std::size_t i = 0; i < img.size(); ++i) b.data()[i] = img.data()[i];
    return b;
}

/// -img as a dense buffer (the offsets of a generated Data are the values after the rewrite rules:
/// `- b` is offset -b).
inline Buffer negated(const Image& img) {
    Buffer b = to_buffer(img);
    b.for_each_value([](float& v) { v = -v; });
    return b;
}

/// A generated solver's Data for a deconvolution whose problem names its data k, b and lambda
/// (examples/deploy's deblur_problem.hpp, periodic_deblur_problem.hpp), from reference::make_deconv's.
template <class Data, class Deconv>
Data deconv_data(const Deconv& deconv, float lambda) {
    Data d;
    d.k = to_buffer(deconv.kernel);
    d.b = to_buffer(deconv.b);
    d.lambda = lambda;
    return d;
}

/// Options (pg::Options or a generated solver's) for exactly `iterations` iterations: tolerances 0.
template <class Options>
Options fixed(int iterations) {
    Options o;
    o.max_iters = iterations;
    o.eps_abs = o.eps_rel = 0;
    return o;
}

/// The plan a generated solver of algorithm A runs for a typed problem: aot::halide_only of the
/// plan pg::solve makes.
template <Algorithm A, class P>
ir::Problem generated_plan(const P& problem) {
    return aot::halide_only(detail::plan_for<A>(detail::normalized(problem)));
}

/// The objective of a generated solver's x (one variable of rank 2) on that plan, by the JIT's.
inline double objective_of(const ir::Problem& plan, const Buffer& x) {
    Image img({x.width(), x.height()});
    for (std::size_t i = 0; i < img.size(); ++i) img.data()[i] = x.data()[i];
    return detail::objective_ir(plan, img);
}

/// ‖x − x_jit‖ / ‖x_jit‖, x against the values of the JIT's flat state from `offset` (a later
/// variable's in several).
inline double relative_difference(const Buffer& x, const Image& jit, std::size_t offset = 0) {
    double d2 = 0, n2 = 0;
    for (std::size_t i = 0, n = x.number_of_elements(); i < n; ++i) {
        const double diff = double(x.data()[i]) - jit.data()[offset + i];
        d2 += diff * diff;
        n2 += double(jit.data()[offset + i]) * jit.data()[offset + i];
    }
    return std::sqrt(d2 / n2);
}

}  // namespace proxgen::aot_test
