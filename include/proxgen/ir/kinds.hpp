// What an IR node or a term's penalty *is*, as far as the IR itself needs to know: a name, which
// data a node holds (so the IR can number its data slots), its text and its structure (so the IR
// can print a problem and key compiled pipelines). Everything else about an operator or a penalty
// (checks, facts, norm bounds, lowering, prox, value, ...) is its card's: the catalogue
// (proxgen/catalogue/) defines one kind per card, derived from these bases. The IR includes no
// catalogue, no front end and no Halide.
#pragma once

#include <atomic>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace proxgen::ir {

struct Node;
struct Term;

/// The kind of a node (an operator, a variable, a constant).
class OpKind {
public:
    virtual ~OpKind() = default;
    /// "conv", "grad", ...: the catalogue's name.
    virtual std::string_view name() const = 0;
    /// What the node's image is ("kernel", "weight", ...), or nullptr when the node holds none.
    virtual const char* image_role() const = 0;
    /// The node holds a scale factor bound at solve time (a data slot, not structure).
    virtual bool holds_scalar() const = 0;
    /// The node's text, given its operands' texts: "conv(k[9x9], x, zero)".
    virtual std::string text(const Node& n, const std::vector<std::string>& operands) const = 0;
};

/// The kind of a term's penalty.
class PenaltyKind {
public:
    virtual ~PenaltyKind() = default;
    virtual std::string_view name() const = 0;
    /// What the term's data image is ("counts", "mask"), or nullptr when it takes none.
    virtual const char* data_role() const = 0;
    /// The term's arg_weight weighs whole groups (the argument's last axis), not elements.
    virtual bool weights_groups() const = 0;
    /// The text of the term's structural parameters (Term::ints), "" when it has none: "p=inf".
    virtual std::string parameters_text(const Term& t) const = 0;
};

/// Code a program defines and a node or term carries (a user operator's Halide functions, a
/// diff_fn's smooth function): the IR keys compiled pipelines by its id and prints its name.
struct Opaque {
    virtual ~Opaque() = default;
    std::string name;
    std::size_t id = 0;  ///< unique per definition in this process (next_code_id)
};

/// A fresh Opaque id. One counter for every kind of code (user operators, host operators,
/// diff_fn functions), so that no two definitions in a process share a kernel's key.
inline std::size_t next_code_id() {
    static std::atomic<std::size_t> next{1};
    return next++;
}

}  // namespace proxgen::ir
