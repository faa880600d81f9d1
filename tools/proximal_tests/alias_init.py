"""Installed as proximal/__init__.py beside ProxImaL's tests: `import proximal.X.Y` is answered by
proxgen.X.Y module for module (proximal.tests stays ProxImaL's own)."""
import importlib
import importlib.abc
import importlib.util
import sys


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.startswith("proximal.") and not name.startswith("proximal.tests"):
            return importlib.util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return importlib.import_module("proxgen" + spec.name[len("proximal"):])

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Alias())
import proxgen as _proxgen  # noqa: E402

globals().update({k: getattr(_proxgen, k) for k in dir(_proxgen) if not k.startswith("__")})
