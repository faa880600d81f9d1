// Adding an image to a stack of images (x + grad(x)) is a rank mismatch known at compile time.
// EXPECT: operands of \+ and - must have the same rank
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto e = x + proxgen::grad(x);
    (void)e;
}
