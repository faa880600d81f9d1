// The rules every user-given value is held to, and the sentences that refuse one: options, weights,
// scale factors, data values and kernel sizes. Header-only and free of fmt and Halide, because the
// generated (ahead-of-time) solvers include it too: pg::solve, the run-time API, Python, the
// command line and a generated solver's init all apply the same range and say the same sentence.
// Each function returns "" when the value is allowed, else the sentence; the caller throws it
// (the library, as proxgen::Error) or returns it with a status (a generated solver), prefixed with
// where the value was given.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace proxgen::rules {

/// The largest finite float32: ProxGen computes in float32, so a larger finite number given as a
/// double (a weight, a step, a float64 sample) would silently become infinity.
inline constexpr double float32_max = double(std::numeric_limits<float>::max());

/// float32's largest value as float32 prints it (the double of the same value needs 17 digits).
inline constexpr const char* float32_max_text = "3.4028235e+38";

/// v as the shortest decimal that reads back as v ("0.002", "-1", "1e+308", "inf", "nan"), as fmt
/// prints a double.
inline std::string number(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[40];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

/// Where flat element `index` of an image with these extents (Halide order: x fastest) lies:
/// "(x, y) = (4, 12)", "(x, y, c) = (4, 12, 1)", and with a fourth axis "(x, y, c, k) = ...".
inline std::string position(const std::vector<int>& extents, std::size_t index) {
    static constexpr const char* axes[] = {"x", "y", "c", "k"};
    std::string names, values;
    for (std::size_t d = 0; d < extents.size(); ++d) {
        const std::size_t e = extents[d] > 0 ? std::size_t(extents[d]) : 1;
        const std::string sep = d ? ", " : "";
        names += sep + (d < 4 ? axes[d] : "axis " + std::to_string(d));
        values += sep + std::to_string(index % e);
        index /= e;
    }
    if (extents.size() == 1) return names + " = " + values;
    return "(" + names + ") = (" + values + ")";
}

/// The index of the first Inf or NaN among data[0 .. n), n when every value is finite. A block of
/// values is tested by its exponent bits (all ones: Inf or NaN) in a loop compilers vectorize; the
/// value-by-value test with its early return stays scalar (3.4 times slower in cache), and a
/// 17-term problem's data is checked before its first iteration, which should start at once.
inline std::size_t first_non_finite(const float* data, std::size_t n) {
    constexpr std::size_t block = 1024;
    for (std::size_t start = 0; start < n; start += block) {
        const std::size_t end = n - start < block ? n : start + block;
        std::uint32_t exponent_all_ones = 0;
        for (std::size_t i = start; i < end; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, data + i, sizeof bits);
            exponent_all_ones |= std::uint32_t((bits & 0x7f800000u) == 0x7f800000u);
        }
        if (exponent_all_ones)
            for (std::size_t i = start; i < end; ++i)
                if (!std::isfinite(data[i])) return i;
    }
    return n;
}

/// "<what> holds a non-finite value, inf, at (x, y) = (4, 12)", or "" when every value of data is
/// finite. `what` names the data as its user wrote it: "input 'b'", "conv: its kernel image".
inline std::string finite_data(const std::string& what, const float* data, const std::vector<int>& extents) {
    std::size_t n = 1;
    for (int e : extents) n *= std::size_t(e > 0 ? e : 0);
    if (const std::size_t i = first_non_finite(data, n); i < n)
        return what + " holds a non-finite value, " + number(data[i]) + ", at " + position(extents, i) +
               " (ProxGen needs finite data: replace NaN and Inf before solving)";
    return {};
}

/// For a finite double too large for float32: ", which float32 (ProxGen's arithmetic) cannot
/// hold: its largest value is 3.4028235e+38"; "" for any other value.
inline std::string float32_overflow_note(double v) {
    return std::isfinite(v) && std::abs(v) > float32_max
               ? std::string(", which float32 (ProxGen's arithmetic) cannot hold: its largest value is ") +
                     float32_max_text
               : std::string();
}

// ---- weights and scale factors ----------------------------------------------------------------

/// A penalty's weight α: finite, >= 0, and within float32's range.
inline std::string weight(double w) {
    if (std::isfinite(w) && w >= 0 && w <= float32_max) return {};
    return "a penalty's weight must be finite and non-negative, got " + number(w) + float32_overflow_note(w);
}

/// A scalar multiple's factor: finite and within float32's range.
inline std::string scale(double s) {
    if (std::isfinite(s) && std::abs(s) <= float32_max) return {};
    return "the scalar must be finite, got " + number(s) + float32_overflow_note(s);
}

// ---- operators --------------------------------------------------------------------------------

/// haar's levels halve the image plane each time: width and height divisible by 2^levels.
inline std::string haar_levels(int levels, const std::vector<int>& operand) {
    if (operand.size() < 2 || levels < 1 || levels > 16) return {};
    const int d = 1 << levels;
    if (operand[0] % d == 0 && operand[1] % d == 0) return {};
    std::string shape;
    for (std::size_t i = 0; i < operand.size(); ++i) shape += (i ? "x" : "") + std::to_string(operand[i]);
    return "haar: " + std::to_string(levels) + " levels need a width and height divisible by 2^" + std::to_string(levels) +
           " = " + std::to_string(d) + ", but its operand is " + shape + " (pad or crop it first)";
}

/// Extents as the sentences write them: "16x16", "empty".
inline std::string shape_text(const std::vector<int>& e) {
    if (e.empty()) return "empty";
    std::string s;
    for (std::size_t i = 0; i < e.size(); ++i) s += (i ? "x" : "") + std::to_string(e[i]);
    return s;
}

/// The operands of an elementwise operator (op: "+") must have one shape.
inline std::string same_shape(std::string_view op, std::string_view left_name, const std::vector<int>& left,
                              std::string_view right_name, const std::vector<int>& right) {
    if (left == right) return {};
    return std::string(op) + ": " + std::string(left_name) + " is " + shape_text(left) + " but " + std::string(right_name) +
           " is " + shape_text(right);
}

/// conv's kernel must fit in its operand's image plane (a larger kernel would wrap onto itself).
inline std::string conv_kernel(const std::vector<int>& kernel, const std::vector<int>& operand) {
    auto text = [](const std::vector<int>& e) {
        std::string s;
        for (std::size_t i = 0; i < e.size(); ++i) s += (i ? "x" : "") + std::to_string(e[i]);
        return s;
    };
    if (kernel.size() < 2 || operand.size() < 2 || (kernel[0] <= operand[0] && kernel[1] <= operand[1])) return {};
    return "conv: the kernel is " + text(kernel) + " but its operand is only " + text(operand);
}

// ---- options ----------------------------------------------------------------------------------

/// One option's range. Options are named as in pg::Options (the command line's --iters is
/// max_iters, Python's keywords use these names).
struct OptionRule {
    const char* name;
    double lo, hi;
    bool lo_inclusive, hi_inclusive;
    bool integer;
    bool zero_is_automatic;  ///< 0 is allowed besides [lo, hi] and means "from the plan"
    const char* range;       ///< the range in words, for the sentence
};

inline constexpr double int_max = double(std::numeric_limits<int>::max());

/// Every option with a range (the booleans, x0 and the callback have none).
inline constexpr OptionRule option_rules[] = {
    {"max_iters", 0, int_max, true, true, true, false, "an integer from 0 to 2147483647"},
    {"check_every", 1, int_max, true, true, true, false, "an integer from 1 to 2147483647"},
    {"iterations_per_call", 0, 16, true, true, true, false, "an integer from 0 (automatic) to 16"},
    {"eps_abs", 0, float32_max, true, true, false, false, "a finite number >= 0"},
    {"eps_rel", 0, float32_max, true, true, false, false, "a finite number >= 0"},
    {"tau", 0, float32_max, false, true, false, true, "0 (automatic) or a positive number up to 3.4028235e+38 (float32)"},
    {"sigma", 0, float32_max, false, true, false, true, "0 (automatic) or a positive number up to 3.4028235e+38 (float32)"},
    {"lambda", 0, float32_max, false, true, false, true, "0 (automatic) or a positive number up to 3.4028235e+38 (float32)"},
    {"mu", 0, float32_max, false, true, false, true, "0 (automatic) or a positive number up to 3.4028235e+38 (float32)"},
    {"rho", 0, float32_max, false, true, false, true, "0 (automatic) or a positive number up to 3.4028235e+38 (float32)"},
    {"hqs_growth", 1, float32_max, false, true, false, false, "a finite number > 1"},
    {"hqs_every", 1, int_max, true, true, true, false, "an integer from 1 to 2147483647"},
    {"hqs_max_ratio", 1, float32_max, true, true, false, false, "a finite number >= 1"},
    {"cg_tol", 0, 1, true, false, false, false, "a number >= 0 and < 1 (the factor CG reduces its residual by)"},
    {"cg_max_iters", 1, int_max, true, true, true, false, "an integer from 1 to 2147483647"},
};

inline const OptionRule* option_rule(std::string_view name) {
    for (const auto& r : option_rules)
        if (name == r.name) return &r;
    return nullptr;
}

/// "" when `value` is allowed for option `name`, else "max_iters must be an integer from 0 to
/// 2147483647, got 1099511627776". Integer options are taken as doubles so that a front end can
/// pass what it was given before narrowing it to int. An unknown name is allowed (no rule).
inline std::string option(std::string_view name, double value) {
    const OptionRule* r = option_rule(name);
    if (r == nullptr) return {};
    const bool above = r->lo_inclusive ? value >= r->lo : value > r->lo;
    const bool below = r->hi_inclusive ? value <= r->hi : value < r->hi;
    const bool whole = !r->integer || value == std::floor(value);
    if ((above && below && whole) || (r->zero_is_automatic && value == 0)) return {};
    return std::string(r->name) + " must be " + r->range + ", got " + number(value) + float32_overflow_note(value);
}

/// The same for a value given as text that is no number or no integer at all (a front end that
/// could not convert what it was given), e.g. option_text("max_iters", "2**80").
inline std::string option_text(std::string_view name, const std::string& given) {
    const OptionRule* r = option_rule(name);
    return std::string(name) + " must be " + (r ? r->range : "a number") + ", got " + given;
}

}  // namespace proxgen::rules
