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


@pytest.fixture(autouse=True)
def ctrl_c_raises_keyboard_interrupt():
    """A shell starts background jobs with SIGINT ignored, and Python then installs no handler of its
    own: the tests that send themselves SIGINT would wait for a signal that never arrives. Each test
    runs with Python's usual handler, as in an interactive session."""
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            yield
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
    else:
        yield
