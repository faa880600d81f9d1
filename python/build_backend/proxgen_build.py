"""A PEP 517 build backend for `pip install --no-build-isolation .`: it drives the project's CMake
build (target proxgen_python) and packs the staged package, <build>/python/proxgen, into a wheel.
Standard library only, nothing downloaded.

The build directory is <source>/build (the one tools/build.sh uses, so an existing C++ build is
reused), or $PROXGEN_BUILD_DIR, or `pip install --config-settings build-dir=...`. A fresh build
directory is configured for the interpreter running pip (sys.executable)."""

import base64
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.abspath(os.getcwd())


def _project():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        text = f.read()
    try:
        import tomllib  # Python >= 3.11 (Debian 12)
    except ImportError:  # older Pythons: the few plain `key = "value"` lines of [project] used here
        project, section = {"dependencies": []}, None
        for line in text.decode().splitlines():
            line = line.strip()
            if line.startswith("["):
                section = line
            elif section == "[project]" and "=" in line and line.split("=", 1)[1].strip().startswith('"'):
                key, value = (s.strip() for s in line.split("=", 1))
                project[key] = value.strip('"')
        return project
    return tomllib.loads(text.decode())["project"]


def _log(*words):
    print("proxgen build:", *words, file=sys.stderr, flush=True)


def _run(cmd):
    _log(" ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _build_dir(config_settings):
    settings = config_settings or {}
    return os.path.abspath(settings.get("build-dir") or os.environ.get("PROXGEN_BUILD_DIR")
                           or os.path.join(ROOT, "build"))


def _cmake_build(build):
    cache = os.path.join(build, "CMakeCache.txt")
    if os.path.exists(cache):
        with open(cache) as f:
            python_on = "PROXGEN_BUILD_PYTHON:BOOL=ON" in f.read()
        if not python_on:  # a configured tree with the module on is left as it is (the build re-runs CMake if needed)
            _run(["cmake", "-S", ROOT, "-B", build, "-DPROXGEN_BUILD_PYTHON=ON"])
    else:
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        _run(["cmake", "-S", ROOT, "-B", build, *generator, "-DCMAKE_BUILD_TYPE=Release", "-DPROXGEN_BUILD_PYTHON=ON",
              "-DPython_EXECUTABLE=" + sys.executable])
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 2)
    _run(["cmake", "--build", build, "--target", "proxgen_python", "-j", jobs])
    staged = os.path.join(build, "python", "proxgen")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if not glob.glob(os.path.join(staged, "_core" + suffix)):
        built = [os.path.basename(p) for p in glob.glob(os.path.join(staged, "_core*"))]
        raise RuntimeError("proxgen: {} holds a module built for another Python ({}), not for {} ({}): build in "
                           "another directory (PROXGEN_BUILD_DIR=...) or reconfigure it with "
                           "-DPython_EXECUTABLE={}".format(build, built, sys.executable, suffix, sys.executable))
    return staged


def _tag():
    impl = "cp{}{}".format(*sys.version_info[:2])
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return impl, impl, platform


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return "{},sha256={},{}".format(path, digest, len(data))


def _metadata(project):
    lines = ["Metadata-Version: 2.1", "Name: " + project["name"], "Version: " + project["version"],
             "Summary: " + project.get("description", ""), "Requires-Python: " + project.get("requires-python", "")]
    lines += ["Requires-Dist: " + d for d in project.get("dependencies", [])]
    return "\n".join(lines) + "\n"


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    staged = _cmake_build(_build_dir(config_settings))
    impl, abi, platform = _tag()
    name, version = project["name"], project["version"]
    wheel_name = "{}-{}-{}-{}-{}.whl".format(name, version, impl, abi, platform)
    dist_info = "{}-{}.dist-info".format(name, version)
    files = {}
    for path in sorted(glob.glob(os.path.join(staged, "*"))):
        if path.endswith(".py") or os.path.basename(path).startswith(("_core", "libproxgen_py")):
            with open(path, "rb") as f:
                files["proxgen/" + os.path.basename(path)] = f.read()
    files[dist_info + "/METADATA"] = _metadata(project).encode()
    files[dist_info + "/WHEEL"] = ("Wheel-Version: 1.0\nGenerator: proxgen_build\nRoot-Is-Purelib: false\n"
                                   "Tag: {}-{}-{}\n".format(impl, abi, platform)).encode()
    files[dist_info + "/top_level.txt"] = b"proxgen\n"
    record = [_record_line(p, d) for p, d in files.items()] + [dist_info + "/RECORD,,"]
    os.makedirs(wheel_directory, exist_ok=True)
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as whl:
        for path, data in files.items():
            info = zipfile.ZipInfo(path, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(".so") else 0o644) << 16
            whl.writestr(info, data, zipfile.ZIP_DEFLATED)
        whl.writestr(dist_info + "/RECORD", "\n".join(record) + "\n")
    _log("wrote", wheel_name)
    return wheel_name
