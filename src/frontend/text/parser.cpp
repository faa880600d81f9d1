#include "parser.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "lexer.hpp"

namespace proxgen::frontend::text {

namespace {

constexpr int max_nesting = 100;  // brackets and unary minus signs, well inside the stack

Origin origin_of(const Token& t) {
    Origin o;
    o.line = t.line;
    o.column = t.column;
    return o;
}

class Parser {
public:
    explicit Parser(std::vector<Token> tokens) : t_(std::move(tokens)) {}

    Graph run() {
        for (;;) {
            while (at(Tok::newline) || at(Tok::semicolon)) ++i_;
            if (at(Tok::end)) break;
            statement();
            if (!at(Tok::newline) && !at(Tok::semicolon) && !at(Tok::end))
                error(fmt::format("expected an operator (+ - * /) or the end of the line after the statement, got {}",
                                  describe(cur())));
        }
        g_.end = origin_of(cur());
        check_limits(g_);
        return std::move(g_);
    }

private:
    // ---- tokens ----
    const Token& cur() const { return t_[i_]; }
    /// The token k places ahead (the end token past the end).
    const Token& ahead(std::size_t k) const { return t_[std::min(i_ + k, t_.size() - 1)]; }
    bool at(Tok k) const { return cur().kind == k; }
    /// Inside brackets a line end is only white space.
    void skip_newlines_in_brackets() {
        if (nesting_ > 0)
            while (at(Tok::newline)) ++i_;
    }
    void skip_newlines() {
        while (at(Tok::newline)) ++i_;
    }
    /// A line end followed by a line that starts with one of `ops` continues the expression.
    bool continues_with(std::initializer_list<Tok> ops) {
        std::size_t j = i_;
        while (t_[j].kind == Tok::newline) ++j;
        for (Tok k : ops)
            if (t_[j].kind == k) {
                i_ = j;
                return true;
            }
        return false;
    }
    [[noreturn]] void error(const std::string& message) const { fail_at(origin_of(cur()), message); }
    /// `open`: the bracket k closes, named when the text ends before it.
    void expect(Tok k, const std::string& what, const Token* open = nullptr) {
        skip_newlines_in_brackets();
        if (!at(k))
            error(fmt::format("expected {} {}, got {}{}", spelling(k), what, describe(cur()),
                              open && at(Tok::end) ? fmt::format(" (the {} at {}:{} is not closed)", spelling(open->kind),
                                                                 open->line, open->column)
                                                   : std::string()));
        ++i_;
    }

    struct Nest {
        Parser& p;
        explicit Nest(Parser& parser) : p(parser) {
            if (++p.depth_ > max_nesting)
                p.error(fmt::format("the expression is nested more than {} levels deep", max_nesting));
        }
        ~Nest() { --p.depth_; }
    };
    struct Brackets {
        Parser& p;
        explicit Brackets(Parser& parser) : p(parser) { ++p.nesting_; }
        ~Brackets() { --p.nesting_; }
    };

    // ---- statements ----
    void statement() {
        if (at(Tok::identifier) && cur().text == "auto" && ahead(1).kind == Tok::identifier &&
            ahead(2).kind == Tok::equals)
            ++i_;  // C++'s `auto x = pg::variable(64, 64);`
        if (at(Tok::identifier) && ahead(1).kind == Tok::equals) return definition();
        const Token& start = cur();
        const int node = sum("at the start of an objective line");
        g_.objective.push_back(node);
        g_.objective_origins.push_back(origin_of(start));
    }

    void definition() {
        const Token name = cur();
        i_ += 2;
        skip_newlines();
        if (auto d = defined_.find(name.text); d != defined_.end())
            fail_at(origin_of(name), fmt::format("'{}' is already defined at {}", name.text, d->second.where()));
        if (auto u = used_.find(name.text); u != used_.end())
            fail_at(origin_of(name), fmt::format("'{}' is used at {} before this definition; define names on lines "
                                                 "before the lines that use them",
                                                 name.text, u->second.where()));
        if (name.text == "variable")
            fail_at(origin_of(name), "'variable' names the declaration variable(...); choose another name");
        int defined = -1;
        if (at(Tok::identifier) && cur().text == "variable" && ahead(1).kind == Tok::lparen) {
            defined = variable_declaration(name);
        } else if (const std::size_t sign = at(Tok::minus) ? 1 : 0;
                   ahead(sign).kind == Tok::number && ends_statement(i_ + sign + 1)) {
            Node p = node(Node::Kind::parameter, name);
            p.name = name.text;
            p.value = sign ? -ahead(1).number : cur().number;
            i_ += sign + 1;
            defined = g_.add(std::move(p));
        } else {
            defined = sum(fmt::format("after '{} ='", name.text));
        }
        defined_[name.text] = origin_of(name);
        definitions_[name.text] = defined;
        g_.defined_names.emplace_back(name.text, origin_of(name));
    }

    bool ends_statement(std::size_t j) const {
        const Tok k = t_[j].kind;
        if (k != Tok::newline && k != Tok::semicolon && k != Tok::end) return false;
        // a next line starting with an operator continues the expression
        while (t_[j].kind == Tok::newline) ++j;
        const Tok n = t_[j].kind;
        return n != Tok::plus && n != Tok::minus && n != Tok::star && n != Tok::slash;
    }

    int variable_declaration(const Token& name) {
        Node v = node(Node::Kind::variable, name);
        v.name = name.text;
        const Token open = ahead(1);
        i_ += 2;
        Brackets b(*this);
        skip_newlines_in_brackets();
        if (at(Tok::lbracket) || at(Tok::lbrace) || at(Tok::lparen)) {  // variable([64, 64]) or variable((64, 64))
            const Tok close = at(Tok::lbracket) ? Tok::rbracket : at(Tok::lbrace) ? Tok::rbrace : Tok::rparen;
            const Token inner = cur();
            ++i_;
            v.integers = integers(close, inner, "a size");
            v.has_shape = true;
        } else if (!at(Tok::rparen)) {
            v.integers = integers(Tok::rparen, open, "a size", /*closes=*/false);
            v.has_shape = true;
        }
        expect(Tok::rparen, fmt::format("after the sizes of variable '{}' (variable(width, height[, channels]))",
                                        name.text));
        return g_.add(std::move(v));
    }

    /// Integers separated by commas up to (and, when `closes`, including) `close`.
    std::vector<int> integers(Tok close, const Token& open, const char* what, bool closes = true) {
        std::vector<int> out;
        Brackets b(*this);
        skip_newlines_in_brackets();
        if (closes && at(close)) {
            ++i_;
            return out;
        }
        for (;;) {
            skip_newlines_in_brackets();
            const bool negative = at(Tok::minus);
            if (negative) ++i_;
            if (!at(Tok::number)) error(fmt::format("expected {} (an integer), got {}", what, describe(cur())));
            const double v = negative ? -cur().number : cur().number;
            if (v != std::floor(v) || std::abs(v) > 1e9)
                error(fmt::format("expected {} (an integer of at most 1e9 in magnitude), got {}", what,
                                  (negative ? "-" : "") + cur().text));
            out.push_back(int(v));
            ++i_;
            skip_newlines_in_brackets();
            if (at(Tok::comma)) {
                ++i_;
                continue;
            }
            if (!closes) return out;
            if (!at(close))
                error(fmt::format("expected ',' or {} to close the list opened at {}:{}, got {}", spelling(close),
                                  open.line, open.column, describe(cur())));
            ++i_;
            return out;
        }
    }

    // ---- expressions ----
    /// A node of `kind` written at `at`.
    static Node node(Node::Kind kind, const Token& at) {
        Node n;
        n.kind = kind;
        n.origin = origin_of(at);
        return n;
    }

    int binary(Node::Kind kind, const Token& op, int a, int b) {
        Node n = node(kind, op);
        n.args = {a, b};
        return g_.add(std::move(n));
    }

    /// One level of left-associative binary operators: next { op next }, op one of two tokens.
    struct Level {
        Tok op1, op2;
        Node::Kind kind1, kind2;
    };
    int chain(const Level& level, int (Parser::*next)(const std::string&), const std::string& context) {
        int left = (this->*next)(context);
        for (;;) {
            skip_newlines_in_brackets();
            if (at(Tok::newline) && !continues_with({level.op1, level.op2})) return left;
            if (!at(level.op1) && !at(level.op2)) return left;
            const Token op = cur();
            ++i_;
            skip_newlines();
            const int right = (this->*next)(fmt::format("after {}", spelling(op.kind)));
            left = binary(op.kind == level.op1 ? level.kind1 : level.kind2, op, left, right);
        }
    }

    int sum(const std::string& context) {
        skip_newlines_in_brackets();
        return chain({Tok::plus, Tok::minus, Node::Kind::add, Node::Kind::subtract}, &Parser::product, context);
    }

    int product(const std::string& context) {
        return chain({Tok::star, Tok::slash, Node::Kind::multiply, Node::Kind::divide}, &Parser::unary, context);
    }

    int unary(const std::string& context) {
        Nest nest(*this);
        skip_newlines_in_brackets();
        if (at(Tok::minus)) {
            const Token op = cur();
            ++i_;
            skip_newlines();
            Node n = node(Node::Kind::negate, op);
            n.args = {unary("after '-'")};
            return g_.add(std::move(n));
        }
        return primary(context);
    }

    int primary(const std::string& context) {
        skip_newlines_in_brackets();
        const Token tok = cur();
        switch (tok.kind) {
        case Tok::number: {
            ++i_;
            Node n = node(Node::Kind::number, tok);
            n.value = tok.number;
            return g_.add(std::move(n));
        }
        case Tok::word: {
            ++i_;
            Node n = node(Node::Kind::word, tok);
            n.name = tok.text;
            return g_.add(std::move(n));
        }
        case Tok::lbracket:
        case Tok::lbrace: {
            ++i_;
            Node n = node(Node::Kind::integers, tok);
            n.integers = integers(tok.kind == Tok::lbracket ? Tok::rbracket : Tok::rbrace, tok, "a list element");
            return g_.add(std::move(n));
        }
        case Tok::lparen: {
            ++i_;
            Brackets b(*this);
            const int inner = sum("after '('");
            expect(Tok::rparen, fmt::format("to close the '(' at {}:{}", tok.line, tok.column));
            return inner;
        }
        case Tok::identifier: {
            ++i_;
            if (at(Tok::lparen)) return call(tok);
            return reference(tok);
        }
        default: break;
        }
        error(fmt::format("expected an expression {}, got {}", context, describe(tok)));
    }

    int call(const Token& name) {
        if (name.text == "variable")
            fail_at(origin_of(name), "variable(...) declares a variable on a line of its own: x = variable(64, 64)");
        Node n = node(Node::Kind::call, name);
        n.name = name.text;
        const Token open = cur();
        ++i_;
        Brackets b(*this);
        skip_newlines_in_brackets();
        if (!at(Tok::rparen)) {
            for (;;) {
                n.args.push_back(sum(fmt::format("as argument {} of {}", n.args.size() + 1, name.text)));
                skip_newlines_in_brackets();
                if (!at(Tok::comma)) break;
                ++i_;
            }
        }
        expect(Tok::rparen, fmt::format("after the arguments of {}", name.text), &open);
        return g_.add(std::move(n));
    }

    int reference(const Token& name) {
        if (auto d = definitions_.find(name.text); d != definitions_.end()) return d->second;
        used_.emplace(name.text, origin_of(name));
        Node n = node(Node::Kind::name, name);
        n.name = name.text;
        return g_.add(std::move(n));
    }

    std::vector<Token> t_;
    std::size_t i_ = 0;
    int depth_ = 0;    // recursion: unary minus signs and brackets
    int nesting_ = 0;  // open brackets: line ends inside are white space
    Graph g_;
    std::map<std::string, Origin> defined_, used_;
    std::map<std::string, int> definitions_;
};

}  // namespace

Graph parse(std::string_view text) { return Parser(tokenize(text)).run(); }

}  // namespace proxgen::frontend::text
