// Run-time expressions (proxgen/runtime.hpp): each operator's node is built by its card's factory
// (proxgen/catalogue/ops/*.hpp: the checks and sentences the typed front end uses too); an
// expression keeps the names (variables, inputs, parameters) it uses.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nodes.hpp"
#include "../lower/host_operator.hpp"
#include "proxgen/catalogue/all.hpp"
#include "proxgen/messages.hpp"

namespace proxgen::rt {

// ---- arguments --------------------------------------------------------------------------------

namespace {
void check_name(const std::string& name, const char* what) {
    if (name.empty()) fail("{}: the name is empty", what);
}
}  // namespace

Scalar::Scalar(std::string name, double value) : value_(value), name_(std::move(name)) {
    check_name(name_, "parameter");
}
Scalar parameter(std::string name, double value) { return Scalar(std::move(name), value); }

Data::Data(Image image) : image_(std::move(image)) {}
Data::Data(std::string name, Image image) : image_(std::move(image)), name_(std::move(name)) {
    check_name(name_, "input");
}
Data input(std::string name, Image image) { return Data(std::move(name), std::move(image)); }

// ---- names ------------------------------------------------------------------------------------

namespace detail {

const char* Names::kind_of(const std::string& name) const {
    if (variable_index(name) >= 0) return "variable";
    if (inputs.count(name)) return "input";
    if (parameters.count(name)) return "parameter";
    return nullptr;
}

int Names::variable_index(const std::string& name) const {
    for (std::size_t i = 0; i < variables.size(); ++i)
        if (variables[i].name == name) return int(i);
    return -1;
}

namespace {
void require_unused(const Names& n, const std::string& name, const char* kind) {
    const char* other = n.kind_of(name);
    if (other && std::string(other) != kind) fail("'{}' names both a {} and an {}", name, other, kind);
}
}  // namespace

void Names::add_variable(const std::string& name, const std::vector<int>& shape) {
    require_unused(*this, name, "variable");
    const int i = variable_index(name);
    if (i < 0) variables.push_back({name, shape});
    else if (variables[i].shape != shape)
        fail("variable '{}': one problem uses the same variable with two sizes, {} and {}", name,
             shape_string(variables[i].shape), shape_string(shape));
}

void Names::add_input(const std::string& name, const Image& image, const catalogue::PenaltyCard* data_of) {
    if (name.empty()) return;
    require_unused(*this, name, "input");
    auto it = inputs.find(name);
    if (it == inputs.end()) {
        inputs.emplace(name, Input{image, data_of});
        return;
    }
    if (it->second.image.data() != image.data() || it->second.image.sizes() != image.sizes())
        fail("input '{}' names two different images ({} and {})", name, it->second.image.shape_string(),
             image.shape_string());
    if (data_of) it->second.data_of = data_of;
}

void Names::add_parameter(const std::string& name, double value, bool weight, bool scale) {
    if (name.empty()) return;
    require_unused(*this, name, "parameter");
    auto it = parameters.find(name);
    if (it == parameters.end()) {
        parameters.emplace(name, Parameter{value, weight, scale});
        return;
    }
    if (it->second.value != value) fail("parameter '{}' has two values, {} and {}", name, it->second.value, value);
    it->second.weight = it->second.weight || weight;
    it->second.scale = it->second.scale || scale;
}

void Names::merge(const Names& other) {
    for (const auto& v : other.variables) add_variable(v.name, v.shape);
    for (const auto& [name, in] : other.inputs) add_input(name, in.image, in.data_of);
    for (const auto& [name, p] : other.parameters) add_parameter(name, p.value, p.weight, p.scale);
}

const ExprNode& node_of(const Expr& e, const char* op) {
    if (e.empty()) fail("{}: the expression is empty (a default-constructed rt::Expr)", op);
    return *e.node();
}

Expr with_label(Expr e, const std::string& label) {
    auto n = std::make_shared<ExprNode>(node_of(e, "labelled"));
    n->label = label;
    return Expr(std::move(n));
}

void rethrow_labelled(const std::string& label, const Error& e) {
    throw Error(fmt::format("node '{}': {}", label, e.what()));
}

}  // namespace detail

// ---- Expr -------------------------------------------------------------------------------------

using detail::ExprNode;
using detail::node_of;

namespace ops = catalogue::ops;

namespace {
const std::vector<int> no_shape;
const std::string no_name;

/// A new node over the operands' names, built by `make` from their IR.
template <class Make>
Expr node(const char* op, std::initializer_list<const Expr*> operands, Make make) {
    auto n = std::make_shared<ExprNode>();
    std::vector<const ir::Node*> irs;
    for (const Expr* e : operands) {
        const ExprNode& a = node_of(*e, op);
        n->names.merge(a.names);
        irs.push_back(&a.ir);
    }
    n->ir = make(irs, n->names);
    return Expr(std::move(n));
}

/// A node whose image comes from d: registers d's name (if any) and marks the node with it.
ir::Node bound(ir::Node n, const Data& d, detail::Names& names) {
    names.add_input(d.name(), d.image());
    n.name = d.name();
    return n;
}
}  // namespace

const std::vector<int>& Expr::shape() const { return node_ ? node_->ir.shape : no_shape; }
bool Expr::is_variable() const { return node_ && node_->ir.is_variable(); }
const std::string& Expr::variable_name() const { return is_variable() ? node_->ir.name : no_name; }
std::vector<std::string> Expr::variables() const {
    std::vector<std::string> out;
    if (node_)
        for (const auto& v : node_->names.variables) out.push_back(v.name);
    return out;
}
std::string Expr::to_string() const { return node_ ? ir::to_string(node_->ir) : "(empty)"; }
const std::string& Expr::label() const { return node_ ? node_->label : no_name; }

Expr variable(std::string name, std::vector<int> shape) {
    check_name(name, "variable");
    auto n = std::make_shared<ExprNode>();
    n->ir = ops::variable::make(0, name, std::move(shape));
    n->names.add_variable(name, n->ir.shape);
    return Expr(std::move(n));
}

// ---- operators --------------------------------------------------------------------------------

Expr conv(const Data& kernel, const Expr& e, ConvBoundary boundary) {
    return node("conv", {&e}, [&](auto& a, detail::Names& names) {
        const auto b = boundary == ConvBoundary::zero        ? ops::conv::Boundary::zero
                       : boundary == ConvBoundary::replicate ? ops::conv::Boundary::replicate
                                                             : ops::conv::Boundary::circular;
        return bound(ops::conv::make(*a[0], kernel.image(), b), kernel, names);
    });
}
Expr conv(const Data& kernel, const Expr& e, dsl::circular_t) { return conv(kernel, e, ConvBoundary::circular); }
Expr conv(const Data& kernel, const Expr& e, dsl::zero_boundary_t) { return conv(kernel, e, ConvBoundary::zero); }
Expr conv(const Data& kernel, const Expr& e, dsl::replicate_t) { return conv(kernel, e, ConvBoundary::replicate); }
Expr conv_nofft(const Data& kernel, const Expr& e) { return conv(kernel, e, ConvBoundary::replicate); }

Expr grad(const Expr& e, const std::vector<int>& axes, GradBoundary boundary) {
    return node("grad", {&e}, [&](auto& a, detail::Names&) {
        return ops::grad::make(*a[0], axes, boundary == GradBoundary::periodic);
    });
}
Expr grad(const Expr& e, GradBoundary boundary) { return grad(e, {0, 1}, boundary); }
Expr grad(const Expr& e, dsl::neumann_t) { return grad(e, GradBoundary::neumann); }
Expr grad(const Expr& e, dsl::periodic_t) { return grad(e, GradBoundary::periodic); }

Expr mul_elemwise(const Data& weight, const Expr& e) {
    return node("mul_elemwise", {&e}, [&](auto& a, detail::Names& names) {
        return bound(ops::mul_elemwise::make(*a[0], weight.image()), weight, names);
    });
}

Expr subsample(const Expr& e, int step_x, int step_y) {
    return node("subsample", {&e}, [&](auto& a, detail::Names&) { return ops::subsample::make(*a[0], step_x, step_y); });
}

Expr uneven_subsample(const Expr& e, const Image& ix, const Image& iy) {
    return node("uneven_subsample", {&e}, [&](auto& a, detail::Names&) { return ops::uneven_subsample::make(*a[0], ix, iy); });
}

Expr warp(const Expr& e, const Image& H, int out_width, int out_height) {
    return node("warp", {&e}, [&](auto& a, detail::Names&) { return ops::warp::make(*a[0], H, out_width, out_height); });
}

Expr crop(const Expr& e, int x0, int y0, int width, int height) {
    return node("crop", {&e}, [&](auto& a, detail::Names&) { return ops::crop::make(*a[0], x0, y0, width, height); });
}

Expr pad(const Expr& e, int left, int top, int right, int bottom) {
    return node("pad", {&e}, [&](auto& a, detail::Names&) { return ops::pad::make(*a[0], left, top, right, bottom); });
}

Expr transpose(const Expr& e, std::vector<int> perm) {
    return node("transpose", {&e}, [&](auto& a, detail::Names&) { return ops::transpose::make(*a[0], perm); });
}

Expr reshape(const Expr& e, std::vector<int> shape, int rank) {
    return node("reshape", {&e}, [&](auto& a, detail::Names&) {
        return ops::reshape::make(*a[0], ops::reshape::shape(a[0]->shape, shape, rank));
    });
}
Expr reshape(const Expr& e, std::vector<int> shape) {
    const int rank = int(shape.size());
    return reshape(e, std::move(shape), rank);
}

Expr merge_last_axes(const Expr& e) {
    return node("merge_last_axes", {&e}, [&](auto& a, detail::Names&) {
        return ops::reshape::make(*a[0], ops::reshape::merged_last_axes(a[0]->shape));
    });
}

Expr concat(const Expr& a, const Expr& b, int axis) {
    return node("concat", {&a, &b}, [&](auto& x, detail::Names&) { return ops::concat::make(*x[0], *x[1], axis); });
}

namespace {
Expr stack(const std::vector<Expr>& parts, int axis, const char* op) {
    if (parts.size() < 2) fail("{}: needs at least two expressions, got {}", op, parts.size());
    Expr out = parts[0];
    for (std::size_t i = 1; i < parts.size(); ++i) out = concat(out, parts[i], axis);
    return out;
}
}  // namespace

Expr vstack(const Expr& a, const Expr& b) { return concat(a, b, 1); }
Expr vstack(const std::vector<Expr>& parts) { return stack(parts, 1, "vstack"); }
Expr hstack(const Expr& a, const Expr& b) { return concat(a, b, 0); }
Expr hstack(const std::vector<Expr>& parts) { return stack(parts, 0, "hstack"); }

Expr mul_color(const Expr& e, const Data& matrix) {
    return node("mul_color", {&e}, [&](auto& a, detail::Names& names) {
        return bound(ops::mul_color::make(*a[0], matrix.image()), matrix, names);
    });
}

Expr pxwise_matmul(const Data& matrices, const Expr& e) {
    return node("pxwise_matmul", {&e}, [&](auto& a, detail::Names& names) {
        return bound(ops::pxwise_matmul::make(*a[0], matrices.image()), matrices, names);
    });
}

Expr host_operator(const HostOperator& op, const Expr& e) {
    return node("host_operator", {&e}, [&](auto& a, detail::Names&) {
        if (a[0]->shape != op.in_shape)
            fail("host operator '{}': its input shape is {}, applied to an expression of shape {}", op.name,
                 shape_string(op.in_shape), shape_string(a[0]->shape));
        auto code = std::static_pointer_cast<const ops::UserOperatorData>(lower::host_operator_code(op));
        return ops::user_operator::make(*a[0], std::move(code));
    });
}

// ---- arithmetic (as the typed front end's operators) -----------------------------------------------

Expr operator+(const Expr& a, const Expr& b) {
    return node("+", {&a, &b}, [&](auto& x, detail::Names&) { return ops::sum::make(*x[0], *x[1]); });
}

Expr operator*(const Scalar& s, const Expr& e) {
    return node("scalar * expression", {&e}, [&](auto& a, detail::Names& names) {
        ir::Node n = ops::scale::make(*a[0], s.value());
        names.add_parameter(s.name(), s.value(), false, true);
        n.name = s.name();
        return n;
    });
}
Expr operator*(const Expr& e, const Scalar& s) { return s * e; }
Expr operator-(const Expr& e) { return -1.0f * e; }
Expr operator-(const Expr& a, const Expr& b) { return a + (-1.0f * b); }

namespace {
Expr offset(const Expr& e, const Data& b, float sign, const char* op) {
    return node(op, {&e}, [&](auto& a, detail::Names& names) {
        ir::Node n = ops::sum::offset(*a[0], b.image(), sign, op, b.name());  // the constant node holds the name
        names.add_input(b.name(), b.image());
        return n;
    });
}
}  // namespace

Expr operator+(const Expr& e, const Data& b) { return offset(e, b, +1.0f, "+"); }
Expr operator-(const Expr& e, const Data& b) { return offset(e, b, -1.0f, "-"); }
Expr operator+(const Data& b, const Expr& e) { return offset(e, b, +1.0f, "+"); }
Expr operator-(const Data& b, const Expr& e) { return offset(-e, b, +1.0f, "-"); }

}  // namespace proxgen::rt
