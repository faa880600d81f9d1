// EXPECT: mul_color transforms the channels of a W x H x 3 colour image
#include <proxgen/proxgen.hpp>

int main() {
    namespace pg = proxgen;
    auto x = pg::variable(8, 8);
    auto e = pg::mul_color(x, pg::color::opponent());
    (void)e;
}
