// grad adds an axis; ProxGen's expressions have at most 4 axes.
// EXPECT: grad adds an axis, and the result would exceed ProxGen's maximum rank of 4
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto g = proxgen::grad(proxgen::grad(proxgen::grad(x)));
    (void)g;
}
