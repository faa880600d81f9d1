#include "values.hpp"

#include <fmt/format.h>

namespace proxgen::frontend {

const char* value_name(const Value& v) {
    switch (v.index()) {
    case 0: return "an expression";
    case 1: return "an image";
    case 2: return std::get<Scalar>(v).plain() ? "a number" : "a parameter";
    case 3: return "a list of integers";
    case 4: return "a word";
    default: return "a penalty";
    }
}

std::vector<int> shape_of(const Value& v) {
    if (auto* e = std::get_if<rt::Expr>(&v)) return e->shape();
    if (auto* d = std::get_if<rt::Data>(&v)) return d->image().sizes();
    return {};
}

double value_of(const Scalar& s, const ParameterValues& parameters) {
    double v = s.number;
    for (const auto& p : s.parameters) v *= parameters.at(p);
    return v;
}

namespace {
/// s * value through the run-time API: each parameter a named factor, then the number.
template <class T>
T scaled(const Scalar& s, T value, const ParameterValues& parameters) {
    for (const auto& p : s.parameters) value = rt::parameter(p, parameters.at(p)) * value;
    if (s.number != 1) value = rt::Scalar(s.number) * value;
    return value;
}
}  // namespace

Value add(const Value& a, const Value& b, bool plus) {
    const auto* ea = std::get_if<rt::Expr>(&a);
    const auto* eb = std::get_if<rt::Expr>(&b);
    const auto* da = std::get_if<rt::Data>(&a);
    const auto* db = std::get_if<rt::Data>(&b);
    if (ea && eb) return plus ? *ea + *eb : *ea - *eb;
    if (ea && db) return plus ? *ea + *db : *ea - *db;
    if (da && eb) return plus ? *da + *eb : *da - *eb;
    const auto* pa = std::get_if<rt::Problem>(&a);
    const auto* pb = std::get_if<rt::Problem>(&b);
    if (pa && pb) {
        if (!plus) throw Error("penalties are added, not subtracted (a negative penalty is not convex)");
        return *pa + *pb;
    }
    const auto* sa = std::get_if<Scalar>(&a);
    const auto* sb = std::get_if<Scalar>(&b);
    if (sa && sb && sa->plain() && sb->plain()) return Scalar{plus ? sa->number + sb->number : sa->number - sb->number, {}};
    const char* verb = plus ? "add" : "subtract";
    if (da && db) throw Error(fmt::format("cannot {} two images: one side must be an expression of a variable", verb));
    if (pa || pb)
        throw Error(fmt::format("cannot {} {} and {}: penalties are added to penalties (the objective)", verb,
                                value_name(a), value_name(b)));
    throw Error(fmt::format("cannot {} {} and {}: expressions are added to expressions or images (an offset is an "
                            "image; parameters and numbers multiply)",
                            verb, value_name(a), value_name(b)));
}

Value negate(const Value& v) {
    if (auto* e = std::get_if<rt::Expr>(&v)) return -*e;
    if (auto* s = std::get_if<Scalar>(&v)) return Scalar{-s->number, s->parameters};
    if (std::holds_alternative<rt::Problem>(v)) throw Error("a penalty cannot be negated (it would not be convex)");
    throw Error(fmt::format("cannot negate {}: write the difference the other way round (b - x)", value_name(v)));
}

Value multiply(const Value& a, const Value& b, const ParameterValues& parameters) {
    const auto* sa = std::get_if<Scalar>(&a);
    const auto* sb = std::get_if<Scalar>(&b);
    if (sa && sb) {
        Scalar s{sa->number * sb->number, sa->parameters};
        s.parameters.insert(s.parameters.end(), sb->parameters.begin(), sb->parameters.end());
        return s;
    }
    const Scalar* s = sa ? sa : sb;
    const Value& other = sa ? b : a;
    if (s) {
        if (auto* e = std::get_if<rt::Expr>(&other)) return scaled(*s, *e, parameters);
        if (auto* p = std::get_if<rt::Problem>(&other)) return scaled(*s, *p, parameters);
    }
    throw Error(fmt::format("cannot multiply {} by {}: one side of a product is a number or a parameter (an image "
                            "weights an expression with mul_elemwise(w, e))",
                            value_name(a), value_name(b)));
}

Value divide(const Value& a, const Value& b, const ParameterValues& parameters) {
    const auto* d = std::get_if<Scalar>(&b);
    if (!d) throw Error(fmt::format("cannot divide by {}: the divisor is a number", value_name(b)));
    if (!d->plain()) throw Error("cannot divide by a parameter: define its reciprocal as the parameter instead");
    if (d->number == 0) throw Error("division by zero");
    return multiply(a, Scalar{1 / d->number, {}}, parameters);
}

}  // namespace proxgen::frontend
