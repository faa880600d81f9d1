// group_norm1 groups over the last axis; a plain 2-D image has no group axis.
// EXPECT: group_norm1 groups over the last axis, so its argument needs a group axis
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto p = proxgen::group_norm1(x);
    (void)p;
}
