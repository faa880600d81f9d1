// libproxgen_py.so: the static library proxgen, whole, as one shared object for the Python module
// and the tests' reference module (python/CMakeLists.txt says why). Nothing of its own.
