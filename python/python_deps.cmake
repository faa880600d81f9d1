# Python and pybind11 for the module (python/) and the tests' reference module (tests/python/):
# their imported targets are per directory, so each includes this.
#
# The interpreter is Debian's /usr/bin/python3 (with python3-numpy) unless -DPython_EXECUTABLE=...
# says otherwise: a python3 earlier on PATH (pyenv, conda) would otherwise be found first, and the
# module only imports into the interpreter it was built for.
if(NOT DEFINED Python_EXECUTABLE AND EXISTS /usr/bin/python3)
  set(Python_EXECUTABLE /usr/bin/python3 CACHE FILEPATH "Python interpreter for the proxgen module")
endif()
find_package(Python 3.8 REQUIRED COMPONENTS Interpreter Development.Module)
set(PYBIND11_FINDPYTHON ON)
find_package(pybind11 2.6 CONFIG)
if(NOT pybind11_FOUND)
  message(FATAL_ERROR "PROXGEN_BUILD_PYTHON needs pybind11 (Debian: apt-get install pybind11-dev python3-pybind11, "
                      "or run tools/setup.sh), or configure with -DPROXGEN_BUILD_PYTHON=OFF")
endif()

