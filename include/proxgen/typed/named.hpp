// Names for a typed problem's data, as ProxImaL's and the run-time front end's:
//     pg::sum_squares(pg::conv(pg::input("k", k), x) - pg::input("b", b))
//         + pg::parameter("lambda", 0.002f) * pg::group_norm1(pg::grad(x))
// pg::input("b", b) is b (its storage shared) under the name "b"; pg::parameter("lambda", v) weighs
// a term by v under the name "lambda". Solving ignores the names. A solver generated ahead of time
// from the problem (proxgen/aot/generator.hpp) takes the named data as its Data fields of those
// names, as the user has them (`data.b = b`, not the −b the planner makes of `… − b`), and applies
// the rewrite rules itself.
//
// Both are function objects, not functions: an unqualified input("b", b) in code that uses
// proxgen::rt would otherwise also find this one through the image's namespace and be ambiguous.
#pragma once

#include <string>
#include <utility>

#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/typed/penalty.hpp"

namespace proxgen {

namespace dsl {

/// A named weight: pg::parameter("lambda", 0.002f) * penalty.
struct parameter_t {
    std::string name;
    double value = 0;
};

struct input_fn {
    Image operator()(std::string name, const Image& image) const {
        if (name.empty()) fail("input: the name is empty");
        if (image.empty()) fail("input '{}': the image is empty", name);
        return image.named(std::move(name));
    }
};

struct parameter_fn {
    parameter_t operator()(std::string name, double value) const {
        if (name.empty()) fail("parameter: the name is empty");
        return {std::move(name), value};
    }
};

template <class K, class E, bool W>
auto operator*(const parameter_t& s, penalty_t<K, E, W> p) {
    p.weight = scaled_weight<K>(p.weight, s.value);
    p.parameters.emplace_back(s.name, s.value);
    return p;
}
template <class K, class E, bool W>
auto operator*(penalty_t<K, E, W> p, const parameter_t& s) { return s * std::move(p); }

template <class... T>
auto operator*(const parameter_t& s, problem_t<T...> p) { return scale_terms(s, std::move(p)); }
template <class... T>
auto operator*(problem_t<T...> p, const parameter_t& s) { return s * std::move(p); }

template <Expression E>
auto operator*(const parameter_t&, E) {
    static_assert(sizeof(E) == 0, "pg::parameter names a penalty's weight (parameter(\"lambda\", 0.1f) * norm1(e)); "
                                  "scale an expression by a number, or use the run-time front end's rt::parameter");
}
template <Expression E>
auto operator*(E e, const parameter_t& s) { return s * std::move(e); }

}  // namespace dsl

/// pg::input("b", b): the image b under the name "b" (see the top of this file).
inline constexpr dsl::input_fn input{};
/// pg::parameter("lambda", 0.002f): a named weight for a penalty (see the top of this file).
inline constexpr dsl::parameter_fn parameter{};

}  // namespace proxgen
