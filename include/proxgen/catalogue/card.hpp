// The catalogue: ONE card per operator and per penalty (proxgen/catalogue/ops/<name>.hpp,
// proxgen/catalogue/penalties/<name>.hpp) holding everything about it — its names and arguments
// (the by-name catalogue that the run-time API, the text and JSON problem files and Python read),
// its checks and their sentences, its shape rule, the planner's facts, its norm bound and diagonal
// extrema (formulas written once for the JIT and for generated solvers), its forward and adjoint
// Halide lowering (templates over the back end, instantiated in the library only, so that this
// header and the cards include no Halide.h), and for penalties prox, value and curvature.
//
// A card is a struct of static members. The adapters below turn it into the one object every
// layer looks up: `card<ops::conv>()` is conv's `OpCard` (an ir::OpKind, so IR nodes point to it);
// the planner, the lowering, the run-time catalogue and the generators call its virtual members
// and never switch over operators. A member a card leaves out takes the default documented on
// the interface.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "proxgen/catalogue/facts.hpp"
#include "proxgen/catalogue/formula.hpp"
#include "proxgen/catalogue/transfer.hpp"
#include "proxgen/error.hpp"
#include "proxgen/image.hpp"
#include "proxgen/ir/ir.hpp"

namespace proxgen::catalogue {

// ---- by name ------------------------------------------------------------------------------------

/// A parameter of a by-name entry, for front ends that bind by name (JSON fields) and for help.
struct Parameter {
    enum class Kind {
        expression, image, number, integer, integers, word,
        operand,         ///< an expression or an image
        number_or_word,  ///< a number, or a word naming one ("inf")
    };
    std::string name;
    Kind kind;
    bool optional = false;  ///< may be left out (then the next argument binds to the next parameter)
    bool repeated = false;  ///< the last parameter: any number more of its kind (vstack(a, b, c, ...))
};

/// One operator or penalty the catalogue knows, by name.
struct Signature {
    std::string name;                // "conv"
    std::vector<Parameter> params;   // kernel: image, e: expression, boundary: word (optional)
    bool penalty = false;            // builds a term
    std::string text() const;        // "conv(kernel, e[, boundary])"
};

/// An image argument: the image, and the named input it comes from ("" for anonymous data).
struct ImageArg {
    Image image;
    std::string name;
};

/// One argument of a by-name call: an expression (its IR), an image, a number, an integer list or
/// a word.
using Arg = std::variant<ir::Node, ImageArg, double, std::vector<int>, std::string>;

/// The arguments of one call, bound to a signature's parameters by name (src/catalogue/bind.cpp:
/// argument kinds, counts and integrality are checked there, with sentences naming the entry and
/// the parameter).
class Args {
public:
    Args(const Signature& sig, const std::vector<Arg>& args);
    const Signature& signature() const { return sig_; }
    bool has(std::string_view name) const;
    const ir::Node& expr(std::string_view name) const;
    const ImageArg& image(std::string_view name) const;
    double number(std::string_view name) const;
    int integer(std::string_view name) const;
    const std::vector<int>& integers(std::string_view name) const;
    const std::string& word(std::string_view name) const;
    /// A number_or_word parameter: the number, or the word as a number ("inf", "infinity": ∞).
    double number_or_word(std::string_view name) const;
    const Arg& operand(std::string_view name) const;
    /// Every expression bound to the repeated parameter and the ones before it.
    std::vector<ir::Node> exprs() const;
    /// An image that must not be a named input (data derived from it are part of the node).
    const Image& fixed_image(std::string_view name) const;
    /// A word among `choices`, or `fallback` when the optional parameter is left out; another word
    /// is an Error "<entry>: <what> (by name: a, b or c), got 'w'".
    int choice(std::string_view name, const std::vector<std::string>& choices, int fallback, const char* what) const;

private:
    const Arg* find(std::string_view name) const;
    const Arg& get(std::string_view name) const;
    const Signature& sig_;
    std::vector<std::pair<std::string, const Arg*>> bound_;
};

/// What a by-name entry builds: an expression (operators) or one term (penalties).
using Built = std::variant<ir::Node, ir::Term>;

struct Entry {
    Signature signature;
    Built (*build)(const Args&);
};

/// Parameters, for cards' entry lists.
inline Parameter expr(const char* name) { return {name, Parameter::Kind::expression}; }
inline Parameter image(const char* name) { return {name, Parameter::Kind::image}; }
inline Parameter number(const char* name) { return {name, Parameter::Kind::number}; }
inline Parameter integer(const char* name, bool optional = false) { return {name, Parameter::Kind::integer, optional}; }
inline Parameter integers(const char* name, bool optional = false) {
    return {name, Parameter::Kind::integers, optional};
}
inline Parameter word(const char* name) { return {name, Parameter::Kind::word, true}; }
inline Parameter operand(const char* name) { return {name, Parameter::Kind::operand}; }
inline Parameter more_exprs(const char* name) { return {name, Parameter::Kind::expression, false, true}; }
inline Parameter number_or_word(const char* name) { return {name, Parameter::Kind::number_or_word}; }

// ---- the interfaces every layer looks up ----------------------------------------------------------

/// What a card's norm_exact reads of an operand: whether the operand's own bound is exact, and
/// whether the operand is s·x (+ constants) — most bounds are exact on the variable itself and
/// loose on compositions (‖AB‖ ≤ ‖A‖‖B‖ holds with equality only when singular vectors align).
struct NormTightness {
    bool exact = false;
    bool scalar_identity = false;
};
/// The usual rule: exact when every operand is a multiple of the variable.
inline bool exact_on_scaled_identity(std::span<const NormTightness> a) {
    for (const auto& o : a)
        if (!o.scalar_identity) return false;
    return true;
}

/// An operator's card. The IR knows it as an ir::OpKind.
class OpCard : public ir::OpKind {
public:
    /// A one-line description (the `proxgen ops` listing and docs).
    virtual std::string_view summary() const = 0;
    /// Its by-name entries (aliases and variants included: conv and conv_nofft).
    virtual std::span<const Entry> entries() const = 0;

    /// The facts of node n given its operands' (default: an operator nothing is known of).
    virtual LinearFacts facts(const ir::Node& n, std::span<const LinearFacts> operands) const = 0;
    /// An upper bound on ‖K‖₂ of n's linear part, given its operands' bounds (default: ∞, unknown).
    virtual double norm_bound(const ir::Node& n, std::span<const double> operands) const = 0;
    /// The same bound as C++ code over a generated solver's data slots (an Error where none is known).
    virtual Code norm_bound_code(const ir::Node& n, std::span<const Code> operands) const = 0;
    /// norm_bound(n) equals ‖K‖₂ of n's linear part (within rounding, or O(1/N²) for Neumann
    /// differences), given whether its operands' are and what they are (default: false, a bound
    /// that may be loose). Where it is not, the solver estimates ‖K‖ on the data
    /// (src/solve/norm_estimate.cpp); an exact bound spares that estimate.
    virtual bool norm_exact(const ir::Node& n, std::span<const NormTightness> operands) const = 0;
    /// For a diagonal operator, a lower bound on min |d| given its operands' (default: 0, unknown).
    virtual double diagonal_min_abs(const ir::Node& n, std::span<const double> operands) const = 0;
    virtual Code diagonal_min_abs_code(const ir::Node& n, std::span<const Code> operands) const = 0;
    /// n's output extents as C++ code, given its operands' (default: the first operand's).
    virtual std::vector<Code> extents_code(const ir::Node& n, std::span<const std::vector<Code>> operands) const = 0;
    /// The extents n's image must have as code (empty: any, e.g. a kernel; default: n's output's).
    virtual std::vector<Code> image_extents_code(const ir::Node& n, const std::vector<Code>& out) const = 0;
    /// A C++ expression a generated solver evaluates to check n's image against its operand's
    /// extents (given as a std::vector<int> expression): "" when it fits, else the sentence
    /// (default: none, "").
    virtual std::string image_check_code(const ir::Node& n, const std::string& operand_extents) const = 0;
    /// A C++ expression a generated solver evaluates at init to check the structure's rule on n's
    /// operand extents (a std::vector<int> expression) that the JIT checks when it builds n: "" when
    /// it holds, else the JIT's sentence (default: none, "").
    virtual std::string shape_check_code(const ir::Node& n, const std::string& operand_extents) const = 0;
    /// The same for a rule between n's operands (every operand's extents as such an expression), which
    /// the structure fixes for one variable but not between variables whose extents come at init
    /// (a + b of two variables: one shape). Default: none, "".
    virtual std::string operands_check_code(const ir::Node& n, std::span<const std::string> operand_extents) const = 0;

    /// The extent of n's last axis when its structure fixes it (grad stacks its components), else
    /// 0 (default: its first operand's, for operators that keep the operand's axes).
    virtual int static_last_extent(const ir::Node& n, std::span<const int> operands) const = 0;
    /// n reads its operands only near each output pixel, so a fused kernel computes it per strip
    /// of rows (under temporal blocking: inside a sliding window) (default: false).
    virtual bool local(const ir::Node& n, bool blocking) const = 0;
    /// The circulant operator that stands in for n (operands still n's) in the preconditioner of
    /// conjugate gradient, which inverts it by FFT; nullopt where none does (default).
    virtual std::optional<ir::Node> circulant(const ir::Node& n) const = 0;
    /// n is diagonal in basis b given whether its operands are (`operand(node, inside_grad)`),
    /// inside_grad when n is under a grad (default: false).
    virtual bool diagonal_in(const ir::Node& n, Basis b, bool inside_grad,
                             const std::function<bool(const ir::Node&, bool)>& operand) const = 0;
    /// Tables n's transfer function needs, computed once per grid (default: none).
    virtual void prepare_transfer(const ir::Node& n, TransferTables& t) const = 0;
    /// The components of n's transfer function on spectral row ky (see transfer.hpp); false for a
    /// node without linear part.
    virtual bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) const = 0;
};

/// A penalty's card. The IR knows it as an ir::PenaltyKind.
class PenaltyCard : public ir::PenaltyKind {
public:
    virtual std::string_view summary() const = 0;
    virtual std::span<const Entry> entries() const = 0;
    virtual PenaltyFacts facts() const = 0;
    /// The rank of the objective's summand (the card's lowering writes it, src/lower/card_lowering.hpp):
    /// the argument's, or less where the card reduces its last axes first (a group's norm, a
    /// pixel's matrix norm). f at the argument is the summand's float64 sum over its elements.
    virtual int summand_rank(int argument_rank) const = 0;
    /// f at the whole argument (`argument()` makes it) where host code computes it (a host
    /// diff_fn); nullopt for every other card, whose value is the sum of its summand.
    virtual std::optional<double> host_value(const ir::Term& t, const std::function<Image()>& argument) const = 0;
    /// Its part of the step-size scale Σ α β² ‖K‖² c (c its curvature bound: 2 max|w|² for
    /// ‖·‖², 0 for non-smooth penalties (default)).
    virtual double curvature(const ir::Term& t) const = 0;
    virtual Code curvature_code(const ir::Term& t) const = 0;
    /// A new image for the term's data (Problem::set_input) passes the penalty's checks.
    virtual void check_data(const Image& data, const std::vector<int>& shape) const = 0;
    /// Its prox reads only near each pixel, so a fused kernel computes it per strip of rows (under
    /// temporal blocking: in a sliding window); group_extent is the argument's last axis when the
    /// structure fixes it, else 0 (default: true).
    virtual bool local(const ir::Term& t, bool blocking, int group_extent) const = 0;
};

// ---- the adapters ---------------------------------------------------------------------------------

namespace detail {
template <class V>
std::vector<V> first_operand(std::span<const std::vector<V>> operands) {
    return operands.empty() ? std::vector<V>{} : operands[0];
}
}  // namespace detail

/// The card struct C as an OpCard. What C may define (all static): name, summary, entries (a
/// function returning a span of Entry), image_role, holds_scalar, text(n, operands),
/// facts(n, operand facts), norm_bound<D>(n, operand bounds, D), norm_exact(n, operand tightness),
/// diagonal_min_abs<D>(...),
/// extents<V, D>(n, operand extents, D), image_extents<V>(n, output extents), static_last_extent,
/// local, circulant, diagonal_in, prepare_transfer, transfer_row; and for the back end
/// forward / adjoint / extents templates over it (src/lower).
template <class C>
class OpCardOf final : public OpCard {
public:
    std::string_view name() const override { return C::name; }
    std::string_view summary() const override { return C::summary; }
    const char* image_role() const override {
        if constexpr (requires { C::image_role; }) return C::image_role;
        else return nullptr;
    }
    bool holds_scalar() const override {
        if constexpr (requires { C::holds_scalar; }) return C::holds_scalar;
        else return false;
    }
    std::string text(const ir::Node& n, const std::vector<std::string>& operands) const override {
        if constexpr (requires { C::text(n, operands); }) return C::text(n, operands);
        else {
            std::string s = std::string(C::name) + "(";
            for (std::size_t i = 0; i < operands.size(); ++i) s += (i ? ", " : "") + operands[i];
            return s + ")";
        }
    }
    std::span<const Entry> entries() const override {
        if constexpr (requires { C::entries(); }) return C::entries();
        else return {};
    }
    LinearFacts facts(const ir::Node& n, std::span<const LinearFacts> a) const override {
        if constexpr (requires { C::facts(n, a); }) return C::facts(n, a);
        else return a.empty() ? LinearFacts{} : moving_facts(a[0], false);
    }
    double norm_bound(const ir::Node& n, std::span<const double> a) const override {
        if constexpr (requires { C::norm_bound(n, a, Numbers{}); }) return C::norm_bound(n, a, Numbers{});
        else return std::numeric_limits<double>::infinity();
    }
    Code norm_bound_code(const ir::Node& n, std::span<const Code> a) const override {
        if constexpr (requires { C::norm_bound(n, a, Emitter{}); }) return C::norm_bound(n, a, Emitter{});
        else fail("ahead-of-time solvers: {} has no norm bound a generated solver can compute", C::name);
    }
    bool norm_exact(const ir::Node& n, std::span<const NormTightness> a) const override {
        if constexpr (requires { C::norm_exact(n, a); }) return C::norm_exact(n, a);
        else return false;
    }
    double diagonal_min_abs(const ir::Node& n, std::span<const double> a) const override {
        if constexpr (requires { C::diagonal_min_abs(n, a, Numbers{}); }) return C::diagonal_min_abs(n, a, Numbers{});
        else return 0.0;
    }
    Code diagonal_min_abs_code(const ir::Node& n, std::span<const Code> a) const override {
        if constexpr (requires { C::diagonal_min_abs(n, a, Emitter{}); }) return C::diagonal_min_abs(n, a, Emitter{});
        else return Code(0.0);
    }
    std::vector<Code> extents_code(const ir::Node& n, std::span<const std::vector<Code>> a) const override {
        if constexpr (requires { C::template extents<Code>(n, a, Emitter{}); })
            return C::template extents<Code>(n, a, Emitter{});
        else return detail::first_operand(a);
    }
    std::vector<Code> image_extents_code(const ir::Node& n, const std::vector<Code>& out) const override {
        if constexpr (requires { C::template image_extents<Code>(n, out); }) return C::template image_extents<Code>(n, out);
        else return out;
    }
    std::string image_check_code(const ir::Node& n, const std::string& operand_extents) const override {
        if constexpr (requires { C::image_check_code(n, operand_extents); }) return C::image_check_code(n, operand_extents);
        else return {};
    }
    std::string shape_check_code(const ir::Node& n, const std::string& operand_extents) const override {
        if constexpr (requires { C::shape_check_code(n, operand_extents); }) return C::shape_check_code(n, operand_extents);
        else return {};
    }
    std::string operands_check_code(const ir::Node& n, std::span<const std::string> operand_extents) const override {
        if constexpr (requires { C::operands_check_code(n, operand_extents); })
            return C::operands_check_code(n, operand_extents);
        else return {};
    }
    int static_last_extent(const ir::Node& n, std::span<const int> a) const override {
        if constexpr (requires { C::static_last_extent(n, a); }) return C::static_last_extent(n, a);
        else return a.empty() ? 0 : a[0];
    }
    bool local(const ir::Node& n, bool blocking) const override {
        if constexpr (requires { C::local(n, blocking); }) return C::local(n, blocking);
        else return false;
    }
    std::optional<ir::Node> circulant(const ir::Node& n) const override {
        if constexpr (requires { C::circulant(n); }) return C::circulant(n);
        else return std::nullopt;
    }
    bool diagonal_in(const ir::Node& n, Basis b, bool inside_grad,
                     const std::function<bool(const ir::Node&, bool)>& operand) const override {
        if constexpr (requires { C::diagonal_in(n, b, inside_grad, operand); })
            return C::diagonal_in(n, b, inside_grad, operand);
        else return false;
    }
    void prepare_transfer(const ir::Node& n, TransferTables& t) const override {
        if constexpr (requires { C::prepare_transfer(n, t); }) C::prepare_transfer(n, t);
    }
    bool transfer_row(const ir::Node& n, const TransferTables& t, int ky, std::vector<Row>& out) const override {
        if constexpr (requires { C::transfer_row(n, t, ky, out); }) return C::transfer_row(n, t, ky, out);
        else fail("{} has no transfer function (it is not diagonal in a spectral basis)", C::name);
    }
};

/// The card struct C as a PenaltyCard. What C may define (all static): name, summary, entries,
/// facts (a constexpr PenaltyFacts), data_role, weights_groups, parameters_text(t),
/// summand_rank(r), host_value(t, argument), curvature<D>(t, D), check_data(data, shape),
/// local(t, blocking, group_extent); and for the back end its prox and summand (src/lower).
template <class C>
class PenaltyCardOf final : public PenaltyCard {
public:
    std::string_view name() const override { return C::name; }
    std::string_view summary() const override { return C::summary; }
    const char* data_role() const override {
        if constexpr (requires { C::data_role; }) return C::data_role;
        else return nullptr;
    }
    bool weights_groups() const override {
        if constexpr (requires { C::weights_groups; }) return C::weights_groups;
        else return false;
    }
    std::string parameters_text(const ir::Term& t) const override {
        if constexpr (requires { C::parameters_text(t); }) return C::parameters_text(t);
        else return {};
    }
    std::span<const Entry> entries() const override {
        if constexpr (requires { C::entries(); }) return C::entries();
        else return {};
    }
    PenaltyFacts facts() const override { return C::facts; }
    int summand_rank(int argument_rank) const override {
        if constexpr (requires { C::summand_rank(argument_rank); }) return C::summand_rank(argument_rank);
        else return argument_rank;
    }
    std::optional<double> host_value(const ir::Term& t, const std::function<Image()>& argument) const override {
        if constexpr (requires { C::host_value(t, argument); }) return C::host_value(t, argument);
        else return std::nullopt;
    }
    double curvature(const ir::Term& t) const override {
        if constexpr (requires { C::curvature(t, Numbers{}); }) return C::curvature(t, Numbers{});
        else return 0.0;
    }
    Code curvature_code(const ir::Term& t) const override {
        if constexpr (requires { C::curvature(t, Emitter{}); }) return C::curvature(t, Emitter{});
        else return Code(0.0);
    }
    void check_data(const Image& data, const std::vector<int>& shape) const override {
        if constexpr (requires { C::check_data(data, shape); }) C::check_data(data, shape);
    }
    bool local(const ir::Term& t, bool blocking, int group_extent) const override {
        if constexpr (requires { C::local(t, blocking, group_extent); }) return C::local(t, blocking, group_extent);
        else return true;
    }
};

/// What a penalty card's prox_vjp returns (gradients, docs/gradients.md): for an upstream gradient g
/// of p = prox(u, τ), du = (∂p/∂u)ᵀ g and dtau = ⟨∂p/∂τ, g⟩ per element (for penalties on groups,
/// each element's share of its group's), and where the penalty has them d(data) per element and
/// d(group weight) at the group's axes. E is the back end's expression type. At a kink the cards
/// take the derivative of the branch their prox selects there (a derivative almost everywhere).
template <class E>
struct ProxVJP {
    E du, dtau;
    std::optional<E> ddata, dweight;
};

/// What an operator card's data_vjp returns (gradients, docs/gradients.md): the derivative of
/// ⟨g, K(e)⟩ with respect to the node's data at the operand e. With `reduce` false, `contribution`
/// is a Func over the data image's axes (an elementwise weight); with `reduce` true, a Func over
/// (the data's axes..., the output's axes...) that the caller sums over the output's axes (a
/// kernel's taps; a scalar factor has no data axes). F is the back end's Func.
template <class F>
struct DataVJP {
    F contribution;
    int data_rank = 0;
    bool reduce = false;
};

template <class C>
concept PenaltyCardType = requires { C::facts.indicator; };

/// The one card object of card struct C (an OpCard or a PenaltyCard).
template <class C>
const auto& card() {
    if constexpr (PenaltyCardType<C>) {
        static const PenaltyCardOf<C> c;
        return static_cast<const PenaltyCard&>(c);
    } else {
        static const OpCardOf<C> c;
        return static_cast<const OpCard&>(c);
    }
}

/// n's kind is card C. By name: a shared object built with hidden symbols (a Python extension
/// module) holds a copy of each card object, which is the same card.
template <class C>
bool is(const ir::Node& n) {
    return n.op && n.op->name() == C::name;
}
/// t's penalty is card C.
template <class C>
bool is(const ir::Term& t) {
    return t.penalty && t.penalty->name() == C::name;
}

/// The card of a node or a term (every kind is a card's).
inline const OpCard& card_of(const ir::Node& n) { return static_cast<const OpCard&>(*n.op); }
inline const PenaltyCard& card_of(const ir::Term& t) { return static_cast<const PenaltyCard&>(*t.penalty); }

/// A node of card C with the given operands and output shape (a card's `make` fills the rest).
template <class C>
ir::Node node(std::vector<int> shape, std::vector<ir::Node> operands = {}) {
    ir::Node n;
    n.op = &card<C>();
    n.shape = std::move(shape);
    n.args = std::move(operands);
    return n;
}

/// A term of penalty card C on expression e.
template <class C>
ir::Term term(ir::Node e) {
    ir::Term t;
    t.penalty = &card<C>();
    t.expr = std::move(e);
    return t;
}

// ---- shared checks (their sentences are the ones both front ends give) ----------------------------

namespace check {
/// A non-empty image: "<op>: the <what> image is empty".
void image(const Image& img, std::string_view op, std::string_view what);
/// Equal shapes: "<op>: <left> is AxB but <right> is CxD".
void same_shape(std::string_view op, std::string_view left_name, const std::vector<int>& left,
                std::string_view right_name, const std::vector<int>& right);
/// Operators that work on the image plane need x and y.
void plane(std::string_view op, const std::vector<int>& operand);
/// A penalty's weight (finite, >= 0, at most float32's largest value), as float.
float weight(double w);
/// The same for the value of a named parameter (named in the sentence; "" for a plain number).
float weight(double w, const std::string& parameter);
/// A term's weight after its factors were multiplied (in double): refused where float32 cannot
/// hold the product although each factor fits ("the weights of norm1 multiply to 1e+60 ...").
float weight_product(double w, std::string_view penalty);
/// A scalar multiple's factor, as float.
float scale(double factor);
/// A variable's shape: rank 2 or 3, every size positive.
std::vector<int> variable(std::vector<int> shape);
}  // namespace check

/// The largest rank of any expression: Halide layout x, y, channel, stacked axis.
inline constexpr int max_rank = 4;

}  // namespace proxgen::catalogue

namespace proxgen::typed {
/// A typed expression or penalty of a card that has no node type of its own (the typed front end
/// defines them, proxgen/typed/card_node.hpp): how a card offers its typed spelling, pg::haar(x, 3).
/// Rank, where given, is the result's rank (reshape's is the user's); else Card::typed_rank of the
/// operand's, or the operand's.
template <class Card, int Rank = 0, class E, class... A>
auto apply_card(E e, A&&... args);
template <class Card, class E, class... A>
auto apply_penalty(E e, A&&... args);
/// weighted_<name>(w, e) of a penalty card: its term weighted by w (of weight_shape), as op.
template <class Card, class E, class... A>
auto apply_weighted_penalty(std::string_view op, const Image& w, const std::vector<int>& weight_shape, E e,
                            A&&... args);
}  // namespace proxgen::typed
