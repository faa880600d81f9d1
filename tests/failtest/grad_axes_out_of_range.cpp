// EXPECT: grad's axes must be distinct axes of its operand
#include <proxgen/proxgen.hpp>

int main() {
    namespace pg = proxgen;
    auto x = pg::variable(8, 8);
    auto e = pg::grad(x, pg::on_axes<0, 2>);  // a 2-D image has no third axis
    (void)e;
}
