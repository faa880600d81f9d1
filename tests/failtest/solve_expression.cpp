// solve() takes a problem (a penalty or a sum of penalties), not an expression.
// EXPECT: pg::solve takes a problem
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    proxgen::solve(proxgen::grad(x));
}
