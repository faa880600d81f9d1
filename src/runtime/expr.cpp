// Run-time expressions (proxgen/runtime.hpp): each operator checks its arguments with the checks
// the typed DSL uses (dsl/checks.hpp) and writes its node with the factory the typed front end uses
// (ir/build.hpp).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nodes.hpp"
#include "proxgen/dsl/checks.hpp"
#include "proxgen/ir/build.hpp"
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

void Names::add_input(const std::string& name, const Image& image, bool counts) {
    if (name.empty()) return;
    require_unused(*this, name, "input");
    auto it = inputs.find(name);
    if (it == inputs.end()) {
        inputs.emplace(name, Input{image, counts});
        return;
    }
    if (it->second.image.data() != image.data() || it->second.image.sizes() != image.sizes())
        fail("input '{}' names two different images ({} and {})", name, it->second.image.shape_string(),
             image.shape_string());
    it->second.counts = it->second.counts || counts;
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
    for (const auto& [name, in] : other.inputs) add_input(name, in.image, in.counts);
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
bool Expr::is_variable() const { return node_ && node_->ir.op == ir::Op::variable; }
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
    shape = check::variable(std::move(shape));
    auto n = std::make_shared<ExprNode>();
    n->names.add_variable(name, shape);
    n->ir = ir::make::variable(0, name, shape);
    return Expr(std::move(n));
}

// ---- operators --------------------------------------------------------------------------------

Expr conv(const Data& kernel, const Expr& e, ConvBoundary boundary) {
    return node("conv", {&e}, [&](auto& a, detail::Names& names) {
        std::vector<int> shape = check::conv(kernel.image(), a[0]->shape);
        const ir::ConvBoundary b = boundary == ConvBoundary::zero        ? ir::ConvBoundary::zero
                                   : boundary == ConvBoundary::replicate ? ir::ConvBoundary::replicate
                                                                         : ir::ConvBoundary::circular;
        return bound(ir::make::conv(*a[0], kernel.image(), b, std::move(shape)), kernel, names);
    });
}
Expr conv(const Data& kernel, const Expr& e, dsl::circular_t) { return conv(kernel, e, ConvBoundary::circular); }
Expr conv(const Data& kernel, const Expr& e, dsl::zero_boundary_t) { return conv(kernel, e, ConvBoundary::zero); }
Expr conv(const Data& kernel, const Expr& e, dsl::replicate_t) { return conv(kernel, e, ConvBoundary::replicate); }
Expr conv_nofft(const Data& kernel, const Expr& e) { return conv(kernel, e, ConvBoundary::replicate); }

Expr grad(const Expr& e, const std::vector<int>& axes, GradBoundary boundary) {
    return node("grad", {&e}, [&](auto& a, detail::Names&) {
        return ir::make::grad(*a[0], axes, boundary == GradBoundary::periodic, check::grad(a[0]->shape, axes));
    });
}
Expr grad(const Expr& e, GradBoundary boundary) { return grad(e, {0, 1}, boundary); }
Expr grad(const Expr& e, dsl::neumann_t) { return grad(e, GradBoundary::neumann); }
Expr grad(const Expr& e, dsl::periodic_t) { return grad(e, GradBoundary::periodic); }

Expr mul_elemwise(const Data& weight, const Expr& e) {
    return node("mul_elemwise", {&e}, [&](auto& a, detail::Names& names) {
        std::vector<int> shape = check::mul_elemwise(weight.image(), a[0]->shape);
        return bound(ir::make::mul_elemwise(*a[0], weight.image(), std::move(shape)), weight, names);
    });
}

Expr subsample(const Expr& e, int step_x, int step_y) {
    return node("subsample", {&e}, [&](auto& a, detail::Names&) {
        return ir::make::subsample(*a[0], step_x, step_y, check::subsample(a[0]->shape, step_x, step_y));
    });
}

Expr uneven_subsample(const Expr& e, const Image& ix, const Image& iy) {
    return node("uneven_subsample", {&e}, [&](auto& a, detail::Names&) {
        check::Gather g = check::uneven_subsample(a[0]->shape, ix, iy);
        return ir::make::uneven_subsample(*a[0], g.index, g.multiplicity, std::move(g.shape));
    });
}

Expr warp(const Expr& e, const Image& H, int out_width, int out_height) {
    return node("warp", {&e}, [&](auto& a, detail::Names&) {
        check::Warp w = check::warp(a[0]->shape, H, out_width, out_height);
        return ir::make::warp(*a[0], w.homography, w.norm, a[0]->shape, std::move(w.shape));
    });
}

Expr crop(const Expr& e, int x0, int y0, int width, int height) {
    return node("crop", {&e}, [&](auto& a, detail::Names&) {
        return ir::make::crop(*a[0], x0, y0, check::crop(a[0]->shape, x0, y0, width, height));
    });
}

Expr pad(const Expr& e, int left, int top, int right, int bottom) {
    return node("pad", {&e}, [&](auto& a, detail::Names&) {
        return ir::make::pad(*a[0], left, top, a[0]->shape, check::pad(a[0]->shape, left, top, right, bottom));
    });
}

Expr transpose(const Expr& e, std::vector<int> perm) {
    return node("transpose", {&e}, [&](auto& a, detail::Names&) {
        std::vector<int> shape = check::transpose(a[0]->shape, perm);
        return ir::make::transpose(*a[0], perm, std::move(shape));
    });
}

Expr reshape(const Expr& e, std::vector<int> shape, int rank) {
    return node("reshape", {&e}, [&](auto& a, detail::Names&) {
        return ir::make::reshape(*a[0], check::reshape(a[0]->shape, shape, rank));
    });
}
Expr reshape(const Expr& e, std::vector<int> shape) {
    const int rank = int(shape.size());
    return reshape(e, std::move(shape), rank);
}

Expr merge_last_axes(const Expr& e) {
    return node("merge_last_axes", {&e},
                [&](auto& a, detail::Names&) { return ir::make::reshape(*a[0], check::merge_last_axes(a[0]->shape)); });
}

Expr concat(const Expr& a, const Expr& b, int axis) {
    return node("concat", {&a, &b}, [&](auto& x, detail::Names&) {
        return ir::make::concat(*x[0], *x[1], axis, check::concat(x[0]->shape, x[1]->shape, axis));
    });
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
        std::vector<int> shape = check::mul_color(a[0]->shape, matrix.image());
        return bound(ir::make::mul_color(*a[0], matrix.image(), std::move(shape)), matrix, names);
    });
}

Expr pxwise_matmul(const Data& matrices, const Expr& e) {
    return node("pxwise_matmul", {&e}, [&](auto& a, detail::Names& names) {
        std::vector<int> shape = check::pxwise_matmul(matrices.image(), a[0]->shape);
        return bound(ir::make::pxwise_matmul(*a[0], matrices.image(), std::move(shape)), matrices, names);
    });
}

// ---- arithmetic (as dsl/linear.hpp's operators) -----------------------------------------------

Expr operator+(const Expr& a, const Expr& b) {
    return node("+", {&a, &b}, [&](auto& x, detail::Names&) {
        return ir::make::sum(*x[0], *x[1], check::sum(x[0]->shape, x[1]->shape));
    });
}

Expr operator*(const Scalar& s, const Expr& e) {
    return node("scalar * expression", {&e}, [&](auto& a, detail::Names& names) {
        const float factor = check::scale(s.value());
        names.add_parameter(s.name(), s.value(), false, true);
        ir::Node n = ir::make::scale(*a[0], factor, a[0]->shape);
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
        std::vector<int> shape = check::offset(a[0]->shape, b.image(), op);
        names.add_input(b.name(), b.image());
        ir::Node n = ir::make::offset(*a[0], b.image(), sign, std::move(shape));
        n.args[1].args[0].name = b.name();  // the constant node holds the image
        return n;
    });
}
}  // namespace

Expr operator+(const Expr& e, const Data& b) { return offset(e, b, +1.0f, "+"); }
Expr operator-(const Expr& e, const Data& b) { return offset(e, b, -1.0f, "-"); }
Expr operator+(const Data& b, const Expr& e) { return offset(e, b, +1.0f, "+"); }
Expr operator-(const Data& b, const Expr& e) { return offset(-e, b, +1.0f, "-"); }

}  // namespace proxgen::rt
