// proxgen._core: expressions, problems and the by-name catalogue of the run-time API, with NumPy
// arrays as images (arrays.hpp maps the axes). The Python package (python/proxgen) builds the
// ProxImaL-compatible names on top of this module and re-exports it as proxgen.rt.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "binding.hpp"
#include "proxgen/error.hpp"
#include "proxgen/io/image_io.hpp"

namespace proxgen::python {

void keep_also(Keep& a, const Keep& b) { a.insert(a.end(), b.begin(), b.end()); }

PyData to_data(const py::handle& value, const std::string& what) {
    if (py::isinstance<PyData>(value)) return value.cast<PyData>();
    Borrowed b = to_image(value, what);
    return {rt::Data(std::move(b.image)), std::move(b.owner)};
}

namespace {

Keep keep_of(const PyData& d) {
    if (d.owner.is_none()) return {};
    return {d.owner};
}

bool is_number(const py::handle& v) {
    return (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) && !py::isinstance<py::bool_>(v);
}

/// A Python callable for host code: held, called and released with the GIL (solves release it and
/// may call from their worker threads).
std::shared_ptr<py::function> held(const py::function& f) {
    return std::shared_ptr<py::function>(new py::function(f), [](py::function* p) {
        py::gil_scoped_acquire gil;
        delete p;
    });
}

/// f as a function image -> image; `what` names its result in a conversion error.
std::function<Image(const Image&)> image_function(std::shared_ptr<py::function> f, std::string what) {
    return [f = std::move(f), what = std::move(what)](const Image& in) {
        py::gil_scoped_acquire gil;
        Borrowed b = to_image((*f)(to_numpy(in.copy())), what);
        return b.owner.is_none() ? b.image : b.image.copy();  // no view of Python's memory outlives the GIL
    };
}

}  // namespace

std::optional<double> number_of(const py::handle& v) {
    if (is_number(v)) return v.cast<double>();
    if (py::isinstance<py::array>(v) || py::hasattr(v, "dtype")) {
        py::array a = py::array::ensure(v);
        if (a && a.ndim() == 0 && (a.dtype().kind() == 'f' || a.dtype().kind() == 'i' || a.dtype().kind() == 'u'))
            return py::reinterpret_borrow<py::object>(v).attr("__float__")().cast<double>();
    }
    return std::nullopt;
}

namespace {

/// An image operand of `e`'s shape: an array, a PyData, or a number (filled in, as NumPy broadcasts).
PyData operand_like(const PyExpr& e, const py::handle& value, const char* op) {
    if (auto n = number_of(value)) {
        Image img(e.expr.shape());
        std::fill(img.data(), img.data() + img.size(), float(*n));
        return {rt::Data(std::move(img)), py::none()};
    }
    return to_data(value, fmt::format("{}: the constant operand", op));
}

PyExpr with(rt::Expr e, Keep keep) { return {std::move(e), std::move(keep)}; }

PyExpr add(const PyExpr& a, const py::handle& b, int sign) {
    if (py::isinstance<PyExpr>(b)) {
        const PyExpr& o = b.cast<const PyExpr&>();
        Keep k = a.keep;
        keep_also(k, o.keep);
        return with(sign > 0 ? a.expr + o.expr : a.expr - o.expr, std::move(k));
    }
    PyData d = operand_like(a, b, sign > 0 ? "e + b" : "e - b");
    Keep k = a.keep;
    keep_also(k, keep_of(d));
    return with(sign > 0 ? a.expr + d.data : a.expr - d.data, std::move(k));
}

rt::Scalar scalar_of(const py::handle& s, const char* what) {
    if (py::isinstance<rt::Scalar>(s)) return s.cast<rt::Scalar>();
    if (auto n = number_of(s)) return rt::Scalar(*n);
    throw py::type_error(fmt::format("{}: can only multiply by a scalar (a number or proxgen.rt.parameter), got {}; "
                                     "for an elementwise weight use mul_elemwise(w, e)",
                                     what, std::string(py::str(py::type::of(s).attr("__name__")))));
}

py::tuple shape_tuple(const std::vector<int>& halide_sizes) { return py::cast(numpy_shape(halide_sizes)); }

// ---- the by-name catalogue ---------------------------------------------------------------------

const char* kind_name(rt::Parameter::Kind k) {
    using K = rt::Parameter::Kind;
    switch (k) {
    case K::expression: return "expression";
    case K::image: return "image";
    case K::number: return "number";
    case K::integer: return "integer";
    case K::integers: return "integers";
    case K::word: return "word";
    case K::operand: return "operand";
    case K::number_or_word: return "number_or_word";
    }
    return "?";
}

const rt::Signature& signature_of(const std::string& name) {
    for (const auto& s : rt::catalogue())
        if (s.name == name) return s;
    fail("unknown operator or penalty '{}'", name);
}

/// One Python argument as an rt::Argument, by its Python type (images may be any array).
rt::Argument argument(const py::handle& v, const std::string& what, Keep& keep) {
    if (py::isinstance<PyExpr>(v)) {
        const PyExpr& e = v.cast<const PyExpr&>();
        keep_also(keep, e.keep);
        return e.expr;
    }
    if (py::isinstance<py::str>(v)) return v.cast<std::string>();
    // no catalogue argument is a truth value: a bool would otherwise become a 0-d image
    if (py::isinstance<py::bool_>(v) || (py::hasattr(v, "dtype") && py::array::ensure(v) &&
                                          py::array::ensure(v).dtype().kind() == 'b'))
        throw py::type_error(fmt::format("{}: got a bool ({}); no argument of a ProxGen operator or penalty is a "
                                         "truth value (give a number, a word, an image or an expression)",
                                         what, std::string(py::str(v))));
    if (auto n = number_of(v)) return *n;
    if ((py::isinstance<py::list>(v) || py::isinstance<py::tuple>(v)) && py::len(v) > 0) {
        bool ints = true;
        for (auto item : v) ints = ints && py::isinstance<py::int_>(item) && !py::isinstance<py::bool_>(item);
        if (ints) return v.cast<std::vector<int>>();
    }
    PyData d = to_data(v, what);
    keep_also(keep, keep_of(d));
    return d.data;
}

/// name(*args, **kwargs): keyword arguments go after the positional ones, in the signature's order.
py::object call(const std::string& name, const py::args& args, const py::kwargs& kwargs) {
    const rt::Signature& sig = signature_of(name);
    Keep keep;
    std::vector<rt::Argument> list;
    for (std::size_t i = 0; i < args.size(); ++i)
        list.push_back(argument(args[i], fmt::format("{}: argument {}", name, i + 1), keep));
    std::size_t used = 0;
    for (std::size_t i = 0; i < sig.params.size(); ++i) {
        const rt::Parameter& p = sig.params[i];
        if (!kwargs.contains(p.name.c_str())) continue;
        if (i < args.size())
            throw py::type_error(fmt::format("{}() got argument '{}' both by position and by keyword", name, p.name));
        // an earlier optional parameter of the same kind left out would take this value
        for (std::size_t j = args.size(); j < i; ++j)
            if (sig.params[j].optional && sig.params[j].kind == p.kind && !kwargs.contains(sig.params[j].name.c_str()))
                throw py::type_error(fmt::format("{}(): give '{}' too when giving '{}' by keyword; {} takes {}", name,
                                                 sig.params[j].name, p.name, name, sig.text()));
        list.push_back(argument(kwargs[p.name.c_str()], fmt::format("{}: argument '{}'", name, p.name), keep));
        ++used;
    }
    if (used != kwargs.size())
        for (auto item : kwargs) {
            const std::string key = item.first.cast<std::string>();
            bool known = false;
            for (const auto& p : sig.params) known = known || p.name == key;
            if (!known)
                throw py::type_error(
                    fmt::format("{}() got an unexpected keyword argument '{}'; {} takes {}", name, key, name, sig.text()));
        }
    rt::Value v = rt::call(name, list);
    if (auto* e = std::get_if<rt::Expr>(&v)) return py::cast(PyExpr{std::move(*e), std::move(keep)});
    return py::cast(PyProblem{std::get<rt::Problem>(std::move(v)), std::move(keep)});
}

// ---- bindings ----------------------------------------------------------------------------------

void bind_expr(py::module_& m) {
    py::class_<PyData>(m, "Data", "An image argument (a kernel, a weight, an offset, counts): a NumPy array "
                                  "converted to float32, used without copying where its layout allows.")
        .def(py::init([](const py::object& array, const std::string& name) {
                 PyData d = to_data(array, name.empty() ? std::string("Data") : fmt::format("input '{}'", name));
                 if (!name.empty()) d.data = rt::Data(name, d.data.image());
                 return d;
             }),
             py::arg("array"), py::arg("name") = "")
        .def_property_readonly("name", [](const PyData& d) { return d.data.name(); })
        .def_property_readonly("shape", [](const PyData& d) { return shape_tuple(d.data.image().sizes()); })
        .def_property_readonly("borrowed", [](const PyData& d) { return !d.owner.is_none(); },
                               "True when the image uses the array's memory (no copy was made).")
        .def_property_readonly("value", [](const PyData& d) { return to_numpy(d.data.image()); })
        .def("__repr__", [](const PyData& d) {
            return fmt::format("Data({}{}{})", d.data.name().empty() ? "" : d.data.name() + ", ",
                               d.data.image().shape_string(), d.owner.is_none() ? "" : ", borrowed");
        });

    py::class_<rt::Scalar>(m, "Scalar", "A number, or a named parameter (proxgen.rt.parameter).")
        .def_property_readonly("value", &rt::Scalar::value)
        .def_property_readonly("name", &rt::Scalar::name)
        .def("__repr__", [](const rt::Scalar& s) {
            return s.name().empty() ? fmt::format("{}", s.value()) : fmt::format("parameter('{}', {})", s.name(), s.value());
        });

    py::class_<PyExpr> expr(m, "Expr", "A linear or affine expression of variables.");
    expr.def_property_readonly("shape", [](const PyExpr& e) { return shape_tuple(e.expr.shape()); },
                               "NumPy shape (H, W[, C, ...]).")
        .def_property_readonly("ndim", [](const PyExpr& e) { return e.expr.rank(); })
        .def_property_readonly("is_variable", [](const PyExpr& e) { return e.expr.is_variable(); })
        .def_property_readonly("name", [](const PyExpr& e) { return e.expr.variable_name(); })
        .def("variables", [](const PyExpr& e) { return e.expr.variables(); })
        .def("__repr__", [](const PyExpr& e) { return e.expr.to_string(); })
        .def("__add__", [](const PyExpr& a, const py::object& b) { return add(a, b, +1); }, py::is_operator())
        .def("__radd__", [](const PyExpr& a, const py::object& b) { return add(a, b, +1); }, py::is_operator())
        .def("__sub__", [](const PyExpr& a, const py::object& b) { return add(a, b, -1); }, py::is_operator())
        .def("__rsub__", [](const PyExpr& a, const py::object& b) {
                PyData d = operand_like(a, b, "b - e");
                Keep k = a.keep;
                keep_also(k, keep_of(d));
                return with(d.data - a.expr, std::move(k));
            }, py::is_operator())
        .def("__neg__", [](const PyExpr& a) { return with(-a.expr, a.keep); })
        .def("__pos__", [](const PyExpr& a) { return a; })
        .def("__mul__", [](const PyExpr& a, const py::object& s) { return with(scalar_of(s, "e * s") * a.expr, a.keep); },
             py::is_operator())
        .def("__rmul__", [](const PyExpr& a, const py::object& s) { return with(scalar_of(s, "s * e") * a.expr, a.keep); },
             py::is_operator())
        .def("__truediv__", [](const PyExpr& a, const py::object& s) {
                const rt::Scalar d = scalar_of(s, "e / s");
                if (!d.name().empty()) throw py::type_error("e / s: divide by a number, not by a named parameter");
                return with(rt::Scalar(1.0 / d.value()) * a.expr, a.keep);
            }, py::is_operator());
    // NumPy defers to Expr's reflected operators (array - e) instead of broadcasting over it.
    py::setattr(expr, "__array_ufunc__", py::none());

    m.def("variable", [](const std::string& name, const py::object& shape) {
        std::vector<int> s;
        if (py::isinstance<py::int_>(shape)) s = {shape.cast<int>()};
        else s = shape.cast<std::vector<int>>();
        return PyExpr{rt::variable(name, halide_shape(s)), {}};
    }, py::arg("name"), py::arg("shape"), "variable(name, (H, W[, C])): an unknown image.");
    m.def("input", [](const std::string& name, const py::object& array) {
        PyData d = to_data(array, fmt::format("input '{}'", name));
        d.data = rt::input(name, d.data.image());
        return d;
    }, py::arg("name"), py::arg("array"), "input(name, array): a named image, replaceable by Problem.set_input.");
    m.def("parameter", &rt::parameter, py::arg("name"), py::arg("value"),
          "parameter(name, value): a named scalar, replaceable by Problem.set_parameter.");
    m.def("call", &call, py::arg("name"), "call(name, *args, **kwargs): builds the catalogue's operator or penalty.");
    m.def("host_diff_fn", [](const PyExpr& e, const std::string& name, const py::function& value,
                             const py::function& gradient) {
        auto f = [v = held(value)](const Image& a) {
            py::gil_scoped_acquire gil;
            return (*v)(to_numpy(a.copy())).cast<double>();
        };
        return PyProblem{rt::host_diff_fn(e.expr, name, f,
                                          image_function(held(gradient), fmt::format("diff_fn '{}': the gradient's result", name))),
                         e.keep};
    }, py::arg("expr"), py::arg("name"), py::arg("value"), py::arg("gradient"),
       "host_diff_fn(expr, name, value, gradient): f(expr) for a smooth convex f given by Python functions of the "
       "whole argument (NumPy shape): value(a) -> float, gradient(a) -> array.");
    m.def("host_operator", [](const std::string& name, const py::object& in_shape, const py::object& out_shape,
                              const py::function& forward, const py::function& adjoint, double norm_bound,
                              const PyExpr& e) {
        rt::HostOperator op;
        op.name = name;
        op.in_shape = halide_shape(in_shape.cast<std::vector<int>>());
        op.out_shape = halide_shape(out_shape.cast<std::vector<int>>());
        op.forward = image_function(held(forward), fmt::format("host operator '{}': the forward's result", name));
        op.adjoint = image_function(held(adjoint), fmt::format("host operator '{}': the adjoint's result", name));
        op.norm_bound = norm_bound;
        return PyExpr{rt::host_operator(op, e.expr), e.keep};
    }, py::arg("name"), py::arg("in_shape"), py::arg("out_shape"), py::arg("forward"), py::arg("adjoint"),
       py::arg("norm_bound"), py::arg("expr"),
       "host_operator(name, in_shape, out_shape, forward, adjoint, norm_bound, expr): a linear operator given by "
       "Python functions array -> array (NumPy shapes), applied to expr; norm_bound 0: estimated.");
    m.def("catalogue", [] {
        py::list out;
        for (const auto& s : rt::catalogue()) {
            py::list params;
            for (const auto& p : s.params)
                params.append(py::dict(py::arg("name") = p.name, py::arg("kind") = kind_name(p.kind),
                                       py::arg("optional") = p.optional, py::arg("repeated") = p.repeated));
            out.append(py::dict(py::arg("name") = s.name, py::arg("params") = params, py::arg("penalty") = s.penalty,
                                py::arg("text") = s.text()));
        }
        return out;
    }, "Every operator and penalty of the run-time API: name, parameters, penalty or not, signature text.");
    m.def("halide_axis", &halide_axis, py::arg("axis"), py::arg("rank"),
          "The Halide axis of NumPy axis `axis` (swaps 0 and 1 for rank >= 2).");
    m.def("load_image", [](const std::string& path) { return to_numpy(load_image(path)); }, py::arg("path"),
          "An image file (.npy, .png, .jpg, .pfm) as float32 (H, W[, C]); PNG/JPEG scaled to [0, 1].");
    m.def("save_image", [](const std::string& path, const py::object& a) {
        save_image(path, to_data(a, "save_image").data.image());
    }, py::arg("path"), py::arg("image"), "Writes (H, W[, C]): .npy/.pfm keep floats, .png/.jpg clamp to [0, 1].");
    m.def("to_numpy_roundtrip", [](const py::object& a) { return to_numpy(to_data(a, "array").data.image()); },
          "The array as ProxGen stores it, back in NumPy order (for tests of the conversion).");
}

void bind_problem(py::module_& m) {
    py::class_<PyProblem> prob(m, "Problem", "A sum of weighted penalties.");
    prob.def(py::init([] { return PyProblem{}; }))
        .def("__len__", [](const PyProblem& p) { return p.problem.size(); })
        .def("__repr__", [](const PyProblem& p) { return p.problem.to_string(); })
        .def("__add__", [](const PyProblem& a, const PyProblem& b) {
                Keep k = a.keep;
                keep_also(k, b.keep);
                return PyProblem{a.problem + b.problem, std::move(k)};
            }, py::is_operator())
        .def("__radd__", [](const PyProblem& a, const py::object& b) -> py::object {
                // sum([...]) starts from 0
                if (auto n = number_of(b); n && *n == 0) return py::cast(a);
                return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            }, py::is_operator())
        .def("__mul__", [](const PyProblem& a, const py::object& s) {
                return PyProblem{scalar_of(s, "problem * s") * a.problem, a.keep};
            }, py::is_operator())
        .def("__rmul__", [](const PyProblem& a, const py::object& s) {
                return PyProblem{scalar_of(s, "s * problem") * a.problem, a.keep};
            }, py::is_operator())
        .def("variables", [](const PyProblem& p) {
            py::list out;
            for (const auto& v : p.problem.variables()) out.append(py::make_tuple(v.name, shape_tuple(v.shape)));
            return out;
        }, "[(name, NumPy shape)] in order of first use.")
        .def("inputs", [](const PyProblem& p) { return p.problem.inputs(); })
        .def("parameters", [](const PyProblem& p) { return p.problem.parameters(); })
        .def("input", [](const PyProblem& p, const std::string& n) { return to_numpy(p.problem.input(n)); })
        .def("parameter", [](const PyProblem& p, const std::string& n) { return p.problem.parameter(n); })
        .def("set_input", [](PyProblem& p, const std::string& name, const py::object& array) {
            PyData d = to_data(array, fmt::format("set_input('{}')", name));
            p.problem.set_input(name, d.data.image());
            keep_also(p.keep, keep_of(d));
        }, py::arg("name"), py::arg("array"))
        .def("set_parameter", [](PyProblem& p, const std::string& name, double v) { p.problem.set_parameter(name, v); },
             py::arg("name"), py::arg("value"))
        .def("declare", [](PyProblem& p, const PyExpr& v) { p.problem.declare(v.expr); })
        // a Problem is a value (runtime.hpp): a copy's set_input / set_parameter leave this one as it is
        .def("copy", [](const PyProblem& p) { return p; },
             "An independent copy: set_input / set_parameter on it leave this problem unchanged.")
        .def("__copy__", [](const PyProblem& p) { return p; });
    py::setattr(prob, "__array_ufunc__", py::none());
}

}  // namespace

}  // namespace proxgen::python

PYBIND11_MODULE(_core, m) {
    namespace py = pybind11;
    using namespace proxgen::python;
    m.doc() = "ProxGen's run-time problem API (proxgen/runtime.hpp) with NumPy images.";
    py::register_exception<proxgen::Error>(m, "Error", PyExc_ValueError);
    bind_expr(m);
    bind_problem(m);
    bind_solve(m);
    bind_apply(m);
}
