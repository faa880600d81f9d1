"""ProxImaL's module paths (proximal.lin_ops.conv, proximal.prox_fns.norm1, proximal.algorithms.admm,
proximal.utils.utils, ...) as aliases of ProxGen's modules, so that each of ProxImaL's import lines
works with proximal replaced by proxgen. The aliases are entries of sys.modules (not attributes of
the parent module: proxgen.lin_ops.conv stays the class)."""

import sys
import types

# ProxImaL's submodule -> the names it defines, for proxgen.lin_ops and proxgen.prox_fns
_SUBMODULES = {
    "lin_ops": {
        "lin_op": ["LinOp"], "black_box": ["LinOpFactory", "BlackBox"], "conv": ["conv"], "conv_nofft": ["conv_nofft"],
        "constant": ["Constant"], "comp_graph": ["CompGraph", "est_CompGraph_norm"],
        "mul_elemwise": ["mul_elemwise"], "scale": ["scale"], "subsample": ["subsample", "uneven_subsample"],
        "sum": ["sum", "copy"], "variable": ["Variable"], "vstack": ["vstack", "split"], "hstack": ["hstack"],
        "grad": ["grad"], "warp": ["warp"], "mul_color": ["mul_color"], "reshape": ["reshape"],
        "transpose": ["transpose"], "pxwise_matrixmult": ["pxwise_matrixmult"],
    },
    "prox_fns": {
        "prox_fn": ["ProxFn"], "diff_fn": ["diff_fn"], "nonneg": ["nonneg", "weighted_nonneg", "masked_nonneg"],
        "norm1": ["norm1", "weighted_norm1"],
        "sum_squares": ["sum_squares", "weighted_sum_squares", "least_squares", "lsqr_options", "cg_options"],
        "group_norm1": ["group_norm1", "weighted_group_norm1"],
        "poisson_norm": ["poisson_norm", "weighted_poisson_norm"], "patch_NLM": ["patch_NLM"],
        "sum_entries": ["sum_entries", "zero_prox"],
    },
}


class _Package(types.ModuleType):
    """A module that is a package to the import system. Importing a submodule binds it as an attribute
    of its parent; here a name the package already defines keeps its value, so that
    `from proxgen.lin_ops.grad import grad` leaves proxgen.lin_ops.grad the class, as in ProxImaL
    (whose package binds the class after loading the submodule)."""

    def __setattr__(self, name, value):
        if isinstance(value, types.ModuleType) and not isinstance(getattr(self, name, value), types.ModuleType):
            return
        super().__setattr__(name, value)


def install(package):
    """Registers the aliases under package (the proxgen module)."""
    for parent_name in ("lin_ops", "prox_fns", "algorithms", "utils", "halide"):
        # A package to the import system (an empty search path: every submodule is an alias below), so
        # that an importer mapping proximal.X onto proxgen.X can ask for proximal.X.Y
        parent = getattr(package, parent_name)
        parent.__class__ = _Package
        parent.__path__ = []
    for parent_name, table in _SUBMODULES.items():
        parent = getattr(package, parent_name)
        for sub, names in table.items():
            m = types.ModuleType("{}.{}.{}".format(package.__name__, parent_name, sub))
            for n in names:
                setattr(m, n, getattr(parent, n))
            m.__all__ = list(names)
            sys.modules[m.__name__] = m
    algorithms = package.algorithms
    for sub in ("admm", "pock_chambolle", "half_quadratic_splitting", "linearized_admm", "absorb", "merge",
                "problem"):
        sys.modules["{}.algorithms.{}".format(package.__name__, sub)] = getattr(algorithms, sub)
    sys.modules[package.__name__ + ".algorithms.equil"] = sys.modules[package.__name__ + "._equil"]
    package.halide.halide = package.halide  # proximal.halide.halide.Halide
    sys.modules[package.__name__ + ".halide.halide"] = package.halide
    utils = package.utils
    utils.utils = utils  # proximal.utils.utils: ProxImaL's utils package re-exports only Impl
    sys.modules[package.__name__ + ".utils.utils"] = utils
