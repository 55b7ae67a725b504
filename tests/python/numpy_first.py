"""pytest plugin (``-p numpy_first``) for the static-runtime run of ``./dev test``:
imports NumPy, which loads the system's libstdc++.so.6, before anything imports
datamotion, as in the process where an extension linked with its own static
libstdc++ crashed in describe(). At the start of the session it checks that the
datamotion then imported is the build under test, $DM_TEST_DATAMOTION_FROM.
"""

import os
import sys

import numpy  # noqa: F401  (first: the point of this plugin)

if "datamotion" in sys.modules:
    raise ImportError("numpy_first: datamotion was imported before NumPy; load this plugin first")


def _mapped(name):
    try:
        with open("/proc/self/maps") as maps:
            return any(name in line for line in maps)
    except OSError:
        return False


_SYSTEM_RUNTIME = _mapped("/libstdc++.so")


def pytest_sessionstart(session):
    import datamotion

    where = os.environ.get("DM_TEST_DATAMOTION_FROM", "")
    if where and not os.path.abspath(datamotion.__file__).startswith(os.path.abspath(where) + os.sep):
        raise RuntimeError(f"numpy_first: datamotion came from {datamotion.__file__}, not from {where}")


def pytest_report_header(config):
    import datamotion

    loaded = "loaded" if _SYSTEM_RUNTIME else "did not load"
    return (f"numpy_first: NumPy {numpy.__version__} imported first ({loaded} a shared libstdc++); "
            f"datamotion from {os.path.dirname(datamotion.__file__)}")
