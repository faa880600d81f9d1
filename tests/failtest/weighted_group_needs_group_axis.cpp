// weighted_group_norm1, like group_norm1, groups over the last axis.
// EXPECT: weighted_group_norm1 groups over the last axis, so its argument needs a group axis
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto p = proxgen::weighted_group_norm1(proxgen::Image(8, 8), x);
    (void)p;
}
