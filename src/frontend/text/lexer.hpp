// The text form's tokenizer: identifiers, numbers, "words", punctuation, line ends; `#` comments
// are skipped. Positions are 1-based lines and columns (columns count characters, not bytes).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace proxgen::frontend::text {

enum class Tok {
    identifier,  // x, sum_squares (a `pg::` or `proxgen::` qualifier is dropped)
    number,      // 2, 0.002, 1e-3, 0.5f (a C++ float suffix is accepted)
    word,        // "zero" (no escapes, one line)
    lparen, rparen, lbracket, rbracket, lbrace, rbrace,
    comma, equals, plus, minus, star, slash, semicolon,
    newline,
    end
};

struct Token {
    Tok kind;
    std::string text;  ///< identifiers and words: the name; numbers: as written
    double number = 0;
    int line = 1, column = 1;
};

/// "')'", "the end of the line", "'conv'": how an error message names a token.
std::string describe(const Token& t);
/// "')'": how an error message names a kind of token it expected.
const char* spelling(Tok k);

/// Splits the text into tokens ending with Tok::end. Throws ProblemError at a character that
/// cannot start a token, an unterminated word, or a number out of range.
std::vector<Token> tokenize(std::string_view text);

}  // namespace proxgen::frontend::text
