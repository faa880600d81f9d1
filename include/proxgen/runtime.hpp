// proxgen/runtime.hpp — problems built at run time, from values: the same vocabulary as the C++
// DSL (proxgen.hpp), for node editors, the text and JSON front ends, the command line and Python.
//
//   namespace pg = proxgen;
//   pg::rt::Expr x = pg::rt::variable("x", {512, 512});
//   pg::rt::Data b = pg::rt::input("b", blurred);              // replaceable later, by name
//   pg::rt::Scalar lambda = pg::rt::parameter("lambda", 0.002); // likewise
//   pg::rt::Problem prob = pg::rt::sum_squares(pg::rt::conv(k, x) - b)
//                        + lambda * pg::rt::group_norm1(pg::rt::grad(x)) + pg::rt::nonneg(x);
//   pg::Result r = pg::rt::solve(prob, opt);                    // the typed API's Options, Result
//   pg::save_image("x.png", r["x"]);                           // or r[x]
//   prob.set_parameter("lambda", 0.004);                        // data only: no recompilation,
//   r = pg::rt::solve(prob, opt, r);                            // and a warm start
//
// Every name here means what the C++ DSL's name means (docs/operators.md); both front ends hand
// their problem to ONE planner (proxgen/plan/planner.hpp), so a run-time problem plans, describes
// and solves exactly like the same typed problem. Unqualified calls find these functions by
// argument-dependent lookup: sum_squares(conv(k, x) - b) reads as in the DSL.
//
// Checks happen when a node is built: shapes, ranks and argument kinds, with the typed front end's
// sentences (its static_asserts' text, proxgen/messages.hpp), as a proxgen::Error. A graph front end
// names the node it is building with rt::labelled("node 7", [&] { return conv(k, x); }).
//
// Values, not references: Expr and Problem share immutable nodes; copying is cheap; a Problem's
// set_input / set_parameter change that Problem value only. No global state: problems may be built
// and solved from several threads (the JIT cache behind solve is shared and locked).
//
// Not available here: user_operator and diff_fn, which are Halide code (build them in C++ with
// proxgen/user_operator.hpp and proxgen/diff_fn.hpp; by name, rt::call says so). A linear operator
// written as host code is rt::host_operator.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "proxgen/catalogue/card.hpp"
#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/algorithm.hpp"
#include "proxgen/solve/options.hpp"
#include "proxgen/solve/result.hpp"
#include "proxgen/tags.hpp"

namespace proxgen::ir {
struct Problem;
}

namespace proxgen::rt {

namespace detail {
struct ExprNode;
struct ProblemData;
}  // namespace detail

// ---- arguments ----------------------------------------------------------------------------------

/// A scalar argument (a scale factor or a term's weight): a number, or a named parameter whose
/// value Problem::set_parameter replaces later without recompiling anything.
class Scalar {
public:
    template <class T>
        requires std::is_arithmetic_v<T>
    Scalar(T value) : value_(static_cast<double>(value)) {}
    /// A named parameter (see rt::parameter).
    Scalar(std::string name, double value);

    double value() const { return value_; }
    /// "" for a plain number.
    const std::string& name() const { return name_; }

private:
    double value_ = 0;
    std::string name_;
};

/// pg::rt::parameter("lambda", 0.002): a named scalar, replaceable with Problem::set_parameter.
Scalar parameter(std::string name, double value);

/// An image argument (an offset, a kernel, a weight, counts, a mask, a matrix): an image fixed in
/// the problem, or a named input whose image Problem::set_input replaces later (same shape) without
/// recompiling anything.
class Data {
public:
    Data(Image image);  // implicit: any pg::Image is anonymous data
    /// A named input (see rt::input).
    Data(std::string name, Image image);

    const Image& image() const { return image_; }
    /// "" for anonymous data.
    const std::string& name() const { return name_; }

private:
    Image image_;
    std::string name_;
};

/// pg::rt::input("b", image): a named data image, replaceable with Problem::set_input.
Data input(std::string name, Image image);

/// conv's boundary and grad's boundary as run-time values (the DSL's tags pg::circular, ... are
/// accepted too).
enum class ConvBoundary { circular, zero, replicate };
enum class GradBoundary { neumann, periodic };

// ---- expressions --------------------------------------------------------------------------------

/// A linear or affine expression of one or more variables (what the DSL's expression types are):
/// an immutable value sharing its nodes.
class Expr {
public:
    /// An empty expression: using it to build anything is a proxgen::Error (it exists so that
    /// front ends can keep expressions in containers).
    Expr() = default;

    bool empty() const { return node_ == nullptr; }
    /// Output shape, Halide order (width, height[, channels[, stacked axis]]).
    const std::vector<int>& shape() const;
    int rank() const { return int(shape().size()); }
    /// This expression is a variable (rt::variable); its name.
    bool is_variable() const;
    const std::string& variable_name() const;
    /// The names of the variables it depends on, in order of first use.
    std::vector<std::string> variables() const;
    /// "conv(k[9x9], x)"-style text, as describe prints it.
    std::string to_string() const;
    /// The node label attached by rt::labelled ("" if none).
    const std::string& label() const;

    /// For the implementation (src/runtime): the shared node.
    const std::shared_ptr<const detail::ExprNode>& node() const { return node_; }
    explicit Expr(std::shared_ptr<const detail::ExprNode> node) : node_(std::move(node)) {}

private:
    std::shared_ptr<const detail::ExprNode> node_;
};

/// pg::rt::variable("x", {w, h}) or {w, h, c}: an unknown image. Variables are identified by name:
/// using one name with two shapes in one problem is an error.
Expr variable(std::string name, std::vector<int> shape);

/// Runs build() (which builds one node) and prefixes any proxgen::Error it throws with
/// "node '<label>': "; the node it returns carries the label (Expr::label). For graph front ends
/// whose users know nodes by id.
template <class F>
auto labelled(const std::string& label, F&& build) -> decltype(build());

// Linear operators: the DSL's (docs/operators.md), same arguments, same checks.
Expr conv(const Data& kernel, const Expr& e, ConvBoundary boundary = ConvBoundary::circular);
Expr conv(const Data& kernel, const Expr& e, dsl::circular_t);
Expr conv(const Data& kernel, const Expr& e, dsl::zero_boundary_t);
Expr conv(const Data& kernel, const Expr& e, dsl::replicate_t);
Expr conv_nofft(const Data& kernel, const Expr& e);
/// grad along x and y.
Expr grad(const Expr& e, GradBoundary boundary = GradBoundary::neumann);
Expr grad(const Expr& e, dsl::neumann_t);
Expr grad(const Expr& e, dsl::periodic_t);
/// grad along the given axes (the DSL's pg::on_axes<...>), e.g. {0, 1, 2} for a volume.
Expr grad(const Expr& e, const std::vector<int>& axes, GradBoundary boundary = GradBoundary::neumann);
/// The DSL's spelling: grad(e, pg::on_axes<0, 1, 2>[, pg::periodic]).
template <int... A>
Expr grad(const Expr& e, dsl::axes_t<A...>, GradBoundary boundary = GradBoundary::neumann) {
    return grad(e, std::vector<int>{A...}, boundary);
}
template <int... A>
Expr grad(const Expr& e, dsl::axes_t<A...> axes, dsl::neumann_t) { return grad(e, axes, GradBoundary::neumann); }
template <int... A>
Expr grad(const Expr& e, dsl::axes_t<A...> axes, dsl::periodic_t) { return grad(e, axes, GradBoundary::periodic); }
Expr mul_elemwise(const Data& weight, const Expr& e);
Expr subsample(const Expr& e, int step_x, int step_y);
/// ix, iy: 2-D integer index images (fixed when the node is built: its adjoint's data derive from them).
Expr uneven_subsample(const Expr& e, const Image& ix, const Image& iy);
/// H: 3 × 3 (fixed when the node is built: the adjoint's gather window, which is structure, derives from it).
Expr warp(const Expr& e, const Image& H, int out_width = 0, int out_height = 0);
Expr crop(const Expr& e, int x0, int y0, int width, int height);
Expr pad(const Expr& e, int left, int top, int right, int bottom);
Expr transpose(const Expr& e, std::vector<int> perm);
/// The DSL's reshape<R>(e, shape), R = shape.size().
Expr reshape(const Expr& e, std::vector<int> shape);
/// The DSL's spelling, with the rank given: reshape<R>(e, shape).
Expr reshape(const Expr& e, std::vector<int> shape, int rank);
template <int R>
Expr reshape(const Expr& e, std::vector<int> shape) {
    return reshape(e, std::move(shape), R);
}
Expr merge_last_axes(const Expr& e);
Expr concat(const Expr& a, const Expr& b, int axis);
Expr vstack(const Expr& a, const Expr& b);
Expr vstack(const std::vector<Expr>& parts);
Expr hstack(const Expr& a, const Expr& b);
Expr hstack(const std::vector<Expr>& parts);
/// The DSL's variadic spelling: vstack(a, b, c, ...).
template <class... More>
    requires(sizeof...(More) > 0 && (std::is_convertible_v<More, Expr> && ...))
Expr vstack(const Expr& a, const Expr& b, const More&... more) {
    return vstack(std::vector<Expr>{a, b, more...});
}
template <class... More>
    requires(sizeof...(More) > 0 && (std::is_convertible_v<More, Expr> && ...))
Expr hstack(const Expr& a, const Expr& b, const More&... more) {
    return hstack(std::vector<Expr>{a, b, more...});
}
Expr mul_color(const Expr& e, const Data& matrix);
Expr pxwise_matmul(const Data& matrices, const Expr& e);

/// A linear operator given by host functions on whole images: a black box (ProxImaL's
/// LinOpFactory), for code that is not Halide (a Python function, a library call). `forward` maps
/// an image of `in_shape` to one of `out_shape` (same rank, Halide order), `adjoint` maps back;
/// both must be linear and thread-compatible (solves on several threads call them concurrently).
/// The kernels that read the operator compute its operand whole, call the function once per
/// application on the thread running the kernel, and go on with its result: a slow path (no fusion,
/// whole images), correct in every algorithm. host_operator checks the adjoint once, with the
/// dot-product test on random images (an Error saying by how much they disagree), and without a
/// norm bound (0) estimates ‖K‖ by 30 power iterations on the functions, times 1.1. An exception
/// from a function fails the solve with its message. Ahead-of-time solvers cannot carry one.
struct HostOperator {
    std::string name;
    std::vector<int> in_shape, out_shape;
    std::function<Image(const Image&)> forward, adjoint;
    double norm_bound = 0;
};
/// op applied to e (e's shape must be op.in_shape). Each call defines a new operator, checked
/// and compiled on its own.
Expr host_operator(const HostOperator& op, const Expr& e);

// Arithmetic, as in the DSL: sums of expressions of one shape, scalar multiples, and affine
// offsets (an image added or subtracted).
Expr operator+(const Expr& a, const Expr& b);
Expr operator-(const Expr& a, const Expr& b);
Expr operator-(const Expr& e);
Expr operator*(const Scalar& s, const Expr& e);
Expr operator*(const Expr& e, const Scalar& s);
Expr operator+(const Expr& e, const Data& b);
Expr operator-(const Expr& e, const Data& b);
Expr operator+(const Data& b, const Expr& e);
Expr operator-(const Data& b, const Expr& e);

// ---- problems -----------------------------------------------------------------------------------

/// One variable of a problem.
struct VariableInfo {
    std::string name;
    std::vector<int> shape;
};

/// A sum of weighted penalties (a lone penalty is a one-term problem): a value.
class Problem {
public:
    /// No terms (solving it is an error; add terms with +).
    Problem();

    /// Number of terms, as written (before the planner merges any).
    std::size_t size() const;
    /// The variables, in order of first use (declared ones after them).
    std::vector<VariableInfo> variables() const;
    /// Names of the named inputs and parameters.
    std::vector<std::string> inputs() const;
    std::vector<std::string> parameters() const;
    const Image& input(const std::string& name) const;
    double parameter(const std::string& name) const;

    /// Replaces a named input's image (it must keep its shape: new sizes mean a new problem, which
    /// compiles nothing new either) or a named parameter's value. Data only: the plan's structure
    /// is unchanged, so solving again recompiles nothing, and a Result of this problem warm-starts
    /// it.
    void set_input(const std::string& name, const Image& image);
    void set_parameter(const std::string& name, double value);

    /// Declares a variable the problem must use: describe and solve then reject the problem if no
    /// term uses it (a front end's "x = variable(64, 64)" line that the objective forgot).
    void declare(const Expr& variable);

    /// "sum_squares(conv(k[9x9], x) - b) + 0.002 * group_norm1(grad(x))"-style text.
    std::string to_string() const;

    Problem& operator+=(const Problem& other);
    friend Problem operator+(Problem a, const Problem& b) { return a += b; }
    /// Multiplies every term's weight (finite, >= 0), as the DSL's s * problem.
    friend Problem operator*(const Scalar& s, const Problem& p);
    friend Problem operator*(const Problem& p, const Scalar& s) { return s * p; }

    /// For the implementation (src/runtime).
    const std::shared_ptr<const detail::ProblemData>& data() const { return data_; }
    explicit Problem(std::shared_ptr<const detail::ProblemData> data) : data_(std::move(data)) {}

private:
    std::shared_ptr<const detail::ProblemData> data_;
};

// Penalties: each returns a one-term problem.
Problem sum_squares(const Expr& e);
Problem least_squares(const Expr& e);
Problem norm1(const Expr& e);
Problem group_norm1(const Expr& e);
Problem nonneg(const Expr& e);
Problem sum_entries(const Expr& e);
Problem patch_nlm(const Expr& e);
/// diff_fn with host code: f(e) for a smooth convex f given as host functions of the whole
/// argument (Halide order, e's shape) — its value and its gradient, not necessarily separable
/// (ProxImaL's diff_fn). Its prox, argmin τ f(t) + ½‖t − t₀‖², runs L-BFGS on the host inside
/// the kernels (a slow path). A step that makes f non-finite is backtracked (f may have a domain,
/// as −Σ log t). An exception from a function fails the solve with its message.
Problem host_diff_fn(const Expr& e, std::string name, std::function<double(const Image&)> value,
                     std::function<Image(const Image&)> gradient);
Problem poisson_norm(const Expr& e, const Data& counts);
Problem masked_nonneg(const Expr& e, const Data& mask);
Problem box(const Expr& e, double lo, double hi);
Problem huber(const Expr& e, double threshold);
Problem weighted_sum_squares(const Data& weight, const Expr& e);
Problem weighted_norm1(const Data& weight, const Expr& e);
Problem weighted_nonneg(const Data& weight, const Expr& e);
Problem weighted_group_norm1(const Data& weight, const Expr& e);
Problem weighted_poisson_norm(const Data& weight, const Expr& e, const Data& counts);

// ---- planning and solving (the typed API's describe / solve / objective) ------------------------

/// A problem planned for one algorithm, as rt::plan returns it: what describe, solve and objective
/// run without planning again. A front end that plans first (to report an unplannable problem as
/// the user's error) hands the Plan on, and the problem is planned once. A Plan is a value sharing
/// its immutable planned IR (copies are cheap); it keeps the data the problem held when it was
/// planned: after Problem::set_input / set_parameter, plan again.
class Plan {
public:
    /// The algorithm the problem was planned for: the one solve(plan, ...) runs.
    Algorithm algorithm() const;
    /// The planned IR (include proxgen/ir/ir.hpp to read it), e.g. for the ahead-of-time generator
    /// (proxgen/aot/generator.hpp).
    const ir::Problem& ir() const { return *ir_; }
    /// A copy of the planned IR, for code that stores an ir::Problem (include proxgen/ir/ir.hpp).
    operator ir::Problem() const;

private:
    friend Plan plan(const Problem& prob, Algorithm a);
    explicit Plan(std::shared_ptr<const ir::Problem> planned) : ir_(std::move(planned)) {}
    std::shared_ptr<const ir::Problem> ir_;
};

/// Plans the problem for algorithm a: the plan describe and solve run. Throws proxgen::Error when
/// the problem cannot be planned (see docs/runtime.md).
Plan plan(const Problem& prob, Algorithm a);

/// The plan's text for algorithm a, exactly as pg::describe prints it for the same typed problem.
std::string describe(const Problem& prob, Algorithm a = Algorithm::pock_chambolle);
std::string describe(const Plan& planned);
/// Solves the problem (plans it for opt.algorithm); results by variable name: res["x"] or res[x].
Result solve(const Problem& prob, const Options& opt = {});
/// Warm start from an earlier result of this problem or of an edited copy (same structure and
/// algorithm: continues from its x and dual state; otherwise from its x alone).
Result solve(const Problem& prob, const Options& opt, const Result& warm);
/// Solves a planned problem with the plan's algorithm (opt.algorithm is not read): the same result
/// as solve(prob, opt) with opt.algorithm = planned.algorithm(), without planning again.
Result solve(const Plan& planned, const Options& opt = {});
Result solve(const Plan& planned, const Options& opt, const Result& warm);
/// The objective at res (float64; indicators: 0 or +inf), as pg::objective.
double objective(const Problem& prob, const Result& res);
/// The objective at x, for a problem in one variable.
double objective(const Problem& prob, const Image& x);
/// The objective at each variable's value, by name (every variable of the problem).
double objective(const Problem& prob, const std::map<std::string, Image>& values);
/// The same on a planned problem, without planning again. The objective does not depend on the
/// algorithm; its float64 sum may differ from objective(prob, ...) in the last bits where the plan
/// merged terms differently (objective(prob, ...) plans for Pock–Chambolle).
double objective(const Plan& planned, const Result& res);
double objective(const Plan& planned, const Image& x);
double objective(const Plan& planned, const std::map<std::string, Image>& values);

// ---- batches: many problems of one structure in one call ---------------------------------------

/// One member of a batch: the named inputs and parameters it replaces in the batch's problem (as
/// Problem::set_input / set_parameter would); the others are the problem's own, shared by every
/// member.
struct BatchMember {
    std::map<std::string, Image> inputs;
    std::map<std::string, double> parameters;
};

/// Solves one problem per member — prob with that member's data — in one call: the structure is
/// planned and compiled once, and the members run side by side, one per core, each member's
/// kernels on its own thread (small images, where handing one image's rows to several cores costs
/// more than it saves), or one after another with every core on each (large ones). Every member
/// gets its own Result, as solve(prob-with-its-data, opt) returns it: its own iterations, step
/// sizes, stopping and status. A member that cannot be solved (an input of another size, NaN data,
/// an unknown name, divergence) gets Status::failed and a message beginning "batch member <i>:",
/// and the other members are solved all the same; an error of the problem itself (it cannot be
/// planned) is thrown. With opt.verbose or opt.callback the members run one at a time, so the
/// table and the callback see one member at a time.
std::vector<Result> solve_batch(const Problem& prob, const std::vector<BatchMember>& members, const Options& opt = {});
/// The same, member i warm-started from warm[i] (warm.size() == members.size()).
std::vector<Result> solve_batch(const Problem& prob, const std::vector<BatchMember>& members, const Options& opt,
                                const std::vector<Result>& warm);

namespace detail {
/// How many times this process has planned a run-time problem (rt::plan, and describe / solve /
/// objective of a Problem, each of which plans): lets tests check that a front end plans once.
std::size_t plans_made();
}  // namespace detail

// ---- by name: one catalogue for the text, JSON and Python front ends ----------------------------

/// One argument of a by-name call: an expression, an image, a number, an integer list (axes,
/// permutations, shapes) or a word (boundaries: "circular", "zero", "replicate", "neumann",
/// "periodic").
using Argument = std::variant<Expr, Data, double, std::vector<int>, std::string>;
/// What a call builds: an expression (operators) or a one-term problem (penalties).
using Value = std::variant<Expr, Problem>;

/// A parameter of a catalogue entry, for front ends that bind by name (JSON fields) and for help;
/// one operator or penalty the catalogue knows (each card's entries, proxgen/catalogue/card.hpp).
using Parameter = catalogue::Parameter;
using Signature = catalogue::Signature;
/// Every operator and penalty of the DSL, by name (user_operator and diff_fn are listed: calling
/// them is an Error that says they need Halide code).
const std::vector<Signature>& catalogue();
/// Builds name(args...) with the DSL's checks and sentences; unknown names, wrong argument counts
/// and argument kinds are proxgen::Errors naming the operator and the parameter.
Value call(std::string_view name, const std::vector<Argument>& args);

// ---- implementation of the template above ------------------------------------------------------

namespace detail {
[[noreturn]] void rethrow_labelled(const std::string& label, const Error& e);
Expr with_label(Expr e, const std::string& label);
}  // namespace detail

template <class F>
auto labelled(const std::string& label, F&& build) -> decltype(build()) {
    try {
        if constexpr (std::is_same_v<decltype(build()), Expr>) return detail::with_label(build(), label);
        else return build();
    } catch (const Error& e) {
        detail::rethrow_labelled(label, e);
    }
}

}  // namespace proxgen::rt
