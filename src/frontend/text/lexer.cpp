#include "lexer.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "../graph.hpp"

namespace proxgen::frontend::text {

const char* spelling(Tok k) {
    switch (k) {
    case Tok::identifier: return "a name";
    case Tok::number: return "a number";
    case Tok::word: return "a quoted word";
    case Tok::lparen: return "'('";
    case Tok::rparen: return "')'";
    case Tok::lbracket: return "'['";
    case Tok::rbracket: return "']'";
    case Tok::lbrace: return "'{'";
    case Tok::rbrace: return "'}'";
    case Tok::comma: return "','";
    case Tok::equals: return "'='";
    case Tok::plus: return "'+'";
    case Tok::minus: return "'-'";
    case Tok::star: return "'*'";
    case Tok::slash: return "'/'";
    case Tok::semicolon: return "';'";
    case Tok::newline: return "the end of the line";
    case Tok::end: return "the end of the text";
    }
    return "?";
}

std::string describe(const Token& t) {
    switch (t.kind) {
    case Tok::identifier:
    case Tok::number: return fmt::format("'{}'", t.text);
    case Tok::word: return fmt::format("\"{}\"", t.text);
    default: return spelling(t.kind);
    }
}

namespace {

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// A character for an error message: printable ASCII as itself, anything else as \xNN.
std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    return fmt::format("\\x{:02x}", unsigned(u));
}

class Lexer {
public:
    explicit Lexer(std::string_view s) : s_(s) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        for (;;) {
            skip_blanks();
            Token t{Tok::end, {}, 0, line_, column_};
            if (pos_ >= s_.size()) {
                out.push_back(t);
                return out;
            }
            const char c = s_[pos_];
            if (c == '\n') {
                advance();
                t.kind = Tok::newline;
            } else if (is_alpha(c)) {
                identifier(t);
            } else if (is_digit(c) || (c == '.' && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1]))) {
                number(t);
            } else if (c == '"') {
                word(t);
            } else {
                t.kind = punctuation(c, t);
                advance();
            }
            out.push_back(std::move(t));
        }
    }

private:
    char peek(std::size_t ahead = 0) const { return pos_ + ahead < s_.size() ? s_[pos_ + ahead] : '\0'; }

    void advance() {
        const char c = s_[pos_++];
        if (c == '\n') {
            ++line_;
            column_ = 1;
        } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
            ++column_;  // UTF-8 continuation bytes do not start a character
        }
    }

    void skip_blanks() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == ' ' || c == '\t' || c == '\r') advance();
            else if (c == '#')
                while (pos_ < s_.size() && s_[pos_] != '\n') advance();
            else break;
        }
    }

    [[noreturn]] void error(const Token& at, const std::string& message) const {
        Origin o;
        o.line = at.line;
        o.column = at.column;
        fail_at(o, message);
    }

    void identifier(Token& t) {
        t.kind = Tok::identifier;
        for (;;) {
            const std::size_t start = pos_;
            while (is_alpha(peek()) || is_digit(peek())) advance();
            t.text.assign(s_.substr(start, pos_ - start));
            // C++ spellings read the same: pg::conv, proxgen::conv
            if ((t.text == "pg" || t.text == "proxgen") && peek() == ':' && peek(1) == ':' && is_alpha(peek(2))) {
                advance();
                advance();
                continue;
            }
            return;
        }
    }

    void number(Token& t) {
        t.kind = Tok::number;
        const std::size_t start = pos_;
        while (is_digit(peek())) advance();
        if (peek() == '.') {
            advance();
            while (is_digit(peek())) advance();
        }
        if ((peek() == 'e' || peek() == 'E') &&
            (is_digit(peek(1)) || ((peek(1) == '+' || peek(1) == '-') && is_digit(peek(2))))) {
            advance();
            if (peek() == '+' || peek() == '-') advance();
            while (is_digit(peek())) advance();
        }
        t.text.assign(s_.substr(start, pos_ - start));
        if (peek() == 'f' || peek() == 'F') advance();  // 0.002f, as in C++
        if (is_alpha(peek()) || is_digit(peek()))
            error(t, fmt::format("a number cannot be followed by '{}' (names start with a letter)", printable(peek())));
        errno = 0;
        t.number = std::strtod(t.text.c_str(), nullptr);
        if (errno == ERANGE && std::isinf(t.number)) error(t, fmt::format("number out of range: {}", t.text));
        if (errno == ERANGE) t.number = 0;  // underflow: as small as a float can tell, 0
    }

    void word(Token& t) {
        t.kind = Tok::word;
        advance();
        const std::size_t start = pos_;
        while (pos_ < s_.size() && s_[pos_] != '"' && s_[pos_] != '\n') advance();
        if (pos_ >= s_.size() || s_[pos_] != '"') error(t, "unterminated word: a closing '\"' is missing on this line");
        t.text.assign(s_.substr(start, pos_ - start));
        advance();
    }

    Tok punctuation(char c, const Token& t) const {
        switch (c) {
        case '(': return Tok::lparen;
        case ')': return Tok::rparen;
        case '[': return Tok::lbracket;
        case ']': return Tok::rbracket;
        case '{': return Tok::lbrace;
        case '}': return Tok::rbrace;
        case ',': return Tok::comma;
        case '=': return Tok::equals;
        case '+': return Tok::plus;
        case '-': return Tok::minus;
        case '*': return Tok::star;
        case '/': return Tok::slash;
        case ';': return Tok::semicolon;
        default: break;
        }
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x80) error(t, "unexpected non-ASCII character (names are ASCII letters, digits and '_')");
        error(t, fmt::format("unexpected character '{}'", printable(c)));
    }

    std::string_view s_;
    std::size_t pos_ = 0;
    int line_ = 1, column_ = 1;
};

}  // namespace

std::vector<Token> tokenize(std::string_view text) { return Lexer(text).run(); }

}  // namespace proxgen::frontend::text
