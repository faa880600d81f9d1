// A typed named parameter weighs a penalty; it is not a scale factor inside an expression.
// EXPECT: pg::parameter names a penalty's weight
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    auto p = proxgen::norm1(proxgen::parameter("lambda", 0.1) * x);
    (void)p;
}
