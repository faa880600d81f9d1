// proxgen apply (a linear expression at a value of its variable: synthetic measurements) and
// proxgen compare (PSNR against a reference).
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "commands.hpp"

namespace proxgen::cli {

int apply(const ApplyOptions& o) {
    if (o.at.size() != 1) throw Stop(bad_input, "--at: give the variable's value once, --at NAME=FILE");
    if (!(o.noise >= 0)) throw Stop(bad_input, fmt::format("--noise must be >= 0, got {}", o.noise));
    frontend::Bindings b = load_bindings({o.inputs, {}});
    const auto [name, file] = split_assignment(o.at.front(), "--at");
    const Image x = stage(bad_input, [&] { return load_image(file); });
    b.variables[name] = x.sizes();
    const rt::Expr e = stage(bad_input, [&] {
        try {
            return frontend::parse_expression(o.expression, b);
        } catch (const frontend::ProblemError& err) {
            throw Error(fmt::format("expression {}", err.what()));
        }
    });
    // (an expression with an offset is refused here: bad input, like the rest of the expression)
    Image y = stage(bad_input, [&] { return frontend::apply_linear(e, x); });
    if (o.noise > 0) {
        std::mt19937 rng(o.seed);
        std::normal_distribution<float> n(0.0f, float(o.noise));
        float* p = y.data();
        for (std::size_t i = 0; i < y.size(); ++i) p[i] += n(rng);
    }
    stage(failed, [&] { save_image(o.output, y); });
    fmt::print(stderr, "wrote {} ({}) to {}\n", e.to_string(), y.shape_string(), o.output);
    return ok;
}

namespace {

/// "x=3, y=2" (and the channel) of flat index i in img's layout.
std::string position(const Image& img, std::size_t i) {
    const std::size_t W = std::size_t(img.width()), H = std::size_t(img.height());
    std::string s = fmt::format("x={}, y={}", i % W, i / W % H);
    if (img.dimensions() > 2) s += fmt::format(", c={}", i / (W * H));
    return s;
}

}  // namespace

int compare(const CompareOptions& o) {
    const Image ref = stage(bad_input, [&] { return load_image(o.reference); });
    auto first_non_finite = [](const Image& img) {
        for (std::size_t i = 0; i < img.size(); ++i)
            if (!std::isfinite(img.data()[i])) return i;
        return img.size();
    };
    // a NaN or an infinity makes PSNR and RMSE meaningless and std::max would skip a NaN: refuse
    if (const std::size_t i = first_non_finite(ref); i < ref.size())
        throw Stop(bad_input, fmt::format("the reference {} has a non-finite sample ({} at {}); nothing to compare against",
                                          o.reference, ref.data()[i], position(ref, i)));
    int status = ok;
    for (const auto& file : o.images) {
        const Image img = stage(bad_input, [&] { return load_image(file); });
        if (img.sizes() != ref.sizes())
            throw Stop(bad_input, fmt::format("{} is {} but the reference {} is {}", file, img.shape_string(), o.reference,
                                              ref.shape_string()));
        if (const std::size_t i = first_non_finite(img); i < img.size()) {
            std::size_t count = 0;
            for (std::size_t k = i; k < img.size(); ++k) count += std::isfinite(img.data()[k]) ? 0 : 1;
            fmt::print("{}: not comparable: {} non-finite sample{} (the first {} at {})\n", file, count,
                       count == 1 ? "" : "s", img.data()[i], position(img, i));
            status = bad_input;
            continue;
        }
        double se = 0, worst = 0;
        for (std::size_t i = 0; i < ref.size(); ++i) {
            const double d = double(img.data()[i]) - ref.data()[i];
            se += d * d;
            worst = std::max(worst, std::abs(d));
        }
        const double mse = se / double(ref.size());
        fmt::print("{}: PSNR {:.2f} dB, RMSE {:.5f}, max |difference| {:.5f}\n", file, 10 * std::log10(1.0 / mse),
                   std::sqrt(mse), worst);
    }
    return status;
}

}  // namespace proxgen::cli
