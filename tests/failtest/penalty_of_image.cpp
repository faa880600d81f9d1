// Penalties take expressions of a variable, not constant images.
// EXPECT: sum_squares takes a linear or affine expression of a variable
#include <proxgen/proxgen.hpp>
int main() {
    proxgen::Image b(8, 8);
    auto p = proxgen::sum_squares(b);
    (void)p;
}
