// Problems in two variables are not supported yet: the plan rejects them.
// EXPECT: ProxGen solves problems in one variable for now
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto y = proxgen::variable(8, 8);
    auto prob = proxgen::sum_squares(x) + proxgen::norm1(y);
    proxgen::solve(prob);
}
