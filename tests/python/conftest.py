"""pytest set-up: proxgen (the staged package, <build>/python) and proxgen_reference (the C++ side,
<build>/tests/python) come from PYTHONPATH, as the ctest python.pytest.* entries set it."""

import os

import pytest


def pytest_report_header(config):
    import proxgen

    return "proxgen from {}".format(os.path.dirname(proxgen.__file__))


@pytest.fixture(scope="session")
def reference():
    """The C++ reference module (built with the tests)."""
    import proxgen_reference  # a missing module is an error, not a skip

    return proxgen_reference
