// ADMM solves its x-update as a linear system; with every term behind grad it is singular.
// EXPECT: ADMM and HQS solve the x-update as a linear system, which is singular when every term applies grad
#include <proxgen/proxgen.hpp>
int main() {
    auto x = proxgen::variable(8, 8);
    proxgen::solve<proxgen::Algorithm::hqs>(proxgen::group_norm1(proxgen::grad(x)) + proxgen::norm1(proxgen::grad(x)));
}
