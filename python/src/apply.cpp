// proxgen._core: expressions and one-term problems as functions on NumPy arrays
// (proxgen/runtime_apply.hpp): K x, Kᵀ y, the value K x + o, ‖K‖ and the prox. The Python package
// builds ProxImaL's LinOp.forward / adjoint, CompGraph, est_CompGraph_norm and ProxFn.prox on these.
// The GIL is released while a kernel runs (the first call of a structure compiles it).
#include <map>
#include <string>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "binding.hpp"
#include "proxgen/runtime_apply.hpp"

namespace proxgen::python {

namespace {

/// {name: array} as images (copies where the layout differs; the arrays outlive the call).
std::map<std::string, Image> values_of(const py::dict& values, const char* what) {
    std::map<std::string, Image> out;
    for (auto item : values) {
        const std::string name = item.first.cast<std::string>();
        out.emplace(name, to_data(item.second, fmt::format("{}: the value of '{}'", what, name)).data.image());
    }
    return out;
}

}  // namespace

void bind_apply(py::module_& m) {
    m.def("apply_linear", [](const PyExpr& e, const py::dict& values) {
        const auto v = values_of(values, "apply_linear");
        Image out;
        {
            py::gil_scoped_release release;
            out = rt::apply_linear(e.expr, v);
        }
        return to_numpy(out);
    }, py::arg("expr"), py::arg("values"),
          "apply_linear(expr, {name: array}): K x, the expression's linear part (constants read as 0).");
    m.def("evaluate", [](const PyExpr& e, const py::dict& values) {
        const auto v = values_of(values, "evaluate");
        Image out;
        {
            py::gil_scoped_release release;
            out = rt::evaluate(e.expr, v);
        }
        return to_numpy(out);
    }, py::arg("expr"), py::arg("values"), "evaluate(expr, {name: array}): K x + o, the expression's value.");
    m.def("apply_adjoint", [](const PyExpr& e, const py::object& y) {
        const Image img = to_data(y, "apply_adjoint: y").data.image();
        std::map<std::string, Image> out;
        {
            py::gil_scoped_release release;
            out = rt::apply_adjoint(e.expr, img);
        }
        py::dict d;
        for (const auto& [name, value] : out) d[py::str(name)] = to_numpy(value);
        return d;
    }, py::arg("expr"), py::arg("y"), "apply_adjoint(expr, y): {variable name: K^T y}.");
    m.def("norm_bound", [](const PyExpr& e) { return rt::norm_bound(e.expr); }, py::arg("expr"),
          "An upper bound on ||K|| from the operators' cards.");
    m.def("norm_estimate", [](const PyExpr& e) {
        py::gil_scoped_release release;
        return rt::norm_estimate(e.expr);
    }, py::arg("expr"), "||K|| estimated on the operator (Lanczos, as the solvers' step rules; ~0.3 % above).");
    m.def("operator_facts", [](const PyExpr& e) {
        const rt::OperatorFacts f = rt::operator_facts(e.expr);
        return py::dict(py::arg("diagonal") = f.diagonal, py::arg("gram_diagonal") = f.gram_diagonal,
                        py::arg("fft_diagonal") = f.fft_diagonal);
    }, py::arg("expr"), "What the planner knows of K: {'diagonal', 'gram_diagonal', 'fft_diagonal'}.");
    m.def("prox", [](const PyProblem& p, double rho, const py::object& v) {
        const Image img = to_data(v, "prox: v").data.image();
        Image out;
        {
            py::gil_scoped_release release;
            out = rt::prox(p.problem, rho, img);
        }
        return to_numpy(out);
    }, py::arg("problem"), py::arg("rho"), py::arg("v"),
          "prox(problem, rho, v): argmin_z problem(z) + rho/2 ||z - v||^2 for one penalty of one variable.");
}

}  // namespace proxgen::python
