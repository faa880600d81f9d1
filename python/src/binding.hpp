// The Python module proxgen._core: the run-time problem API (proxgen/runtime.hpp) for Python.
// Expressions and problems carry the NumPy arrays whose memory their images use without copying
// (`keep`), so an array lives as long as any expression or problem built from it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "arrays.hpp"
#include "proxgen/runtime.hpp"

namespace proxgen::python {

namespace py = pybind11;

/// Arrays borrowed without copying by what is built from them.
using Keep = std::vector<py::object>;

/// An image argument: rt::Data plus the array it borrows (None when it was copied).
struct PyData {
    rt::Data data;
    py::object owner;
};

struct PyExpr {
    rt::Expr expr;
    Keep keep;
};

struct PyProblem {
    rt::Problem problem;
    Keep keep;
};

/// Appends b's borrowed arrays to a's.
void keep_also(Keep& a, const Keep& b);

/// Image arguments: a PyData, or an array converted (and borrowed where its layout allows).
PyData to_data(const py::handle& value, const std::string& what);

/// A Python number, also NumPy scalars (np.float32(2)), as a double; nullopt otherwise.
std::optional<double> number_of(const py::handle& v);

/// Binds Result, IterationInfo, solve(), objective() and describe() (solve.cpp).
void bind_solve(py::module_& m);
/// Binds apply_linear, apply_adjoint, evaluate, the norms and prox (apply.cpp).
void bind_apply(py::module_& m);

}  // namespace proxgen::python
