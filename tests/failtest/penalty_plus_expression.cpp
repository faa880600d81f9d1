// A problem is a sum of penalties; adding a bare expression is a mistake.
// EXPECT: a problem is a sum of penalties: wrap the expression in a penalty
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto prob = proxgen::sum_squares(x) + x;
    (void)prob;
}
