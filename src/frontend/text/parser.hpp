// The text form's parser: a hand-written recursive descent over the tokens of lexer.hpp, producing
// the front ends' graph (../graph.hpp). It knows the syntax — definitions, arithmetic, calls by
// name, literals — and no operator: names of operators and penalties stay strings until the
// graph is built through the run-time API's catalogue. Grammar (docs/problem-files.md):
//
//   program    := { statement ( NEWLINE | ';' ) } END
//   statement  := [ 'auto' ] NAME '=' definition     (a variable, a parameter, or a sub-expression)
//               | sum                                (an objective line: penalties, added up)
//   definition := 'variable' '(' [ sizes ] ')' | [ '-' ] NUMBER | sum
//   sum        := product { ( '+' | '-' ) product }
//   product    := unary { ( '*' | '/' ) unary }
//   unary      := '-' unary | primary
//   primary    := NUMBER | WORD | list | NAME [ '(' [ sum { ',' sum } ] ')' ] | '(' sum ')'
//   list       := '[' [ integer { ',' integer } ] ']'  (or braces, as in C++)
//
// Newlines inside brackets are ignored; a line that ends with an operator or a comma, or whose
// next line starts with + - * /, continues on the next line.
#pragma once

#include <string_view>

#include "../graph.hpp"

namespace proxgen::frontend::text {

/// Parses a problem text into a graph (objective = the objective lines, in order), checking the
/// graph's limits. Throws ProblemError "line:column: ..." for syntax errors.
Graph parse(std::string_view text);

}  // namespace proxgen::frontend::text
