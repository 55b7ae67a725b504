"""datamotion: data-parallel communication on MPI.

Process grids, distributed N-d arrays and their distributions, with every
collective call failing the same way on every rank when anything is wrong::

    import numpy as np
    import datamotion as dm

    grid = dm.ProcessGrid(dims=2)                   # a 2-d grid over COMM_WORLD
    a = dm.DistArray.from_global(grid, np.arange(12.0).reshape(3, 4))
    a.local[...] *= 2                               # zero-copy view of the owned block
    print(a.to_global())

Importing a name from the package loads MPI (through mpi4py); importing only
``datamotion.cli`` does not, so the command line can launch MPI jobs itself.
"""

import importlib
from importlib.metadata import PackageNotFoundError, version as _version
from typing import TYPE_CHECKING

try:
    __version__ = _version("datamotion")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "unknown"

# Started by another MPI's launcher, stop now in one line: once MPI starts, every rank
# fails inside it with the library's own screenful.
from ._launchers import check_launcher as _check_launcher  # noqa: E402

_check_launcher()

# Public name -> module that defines it; loaded on first use (PEP 562).
_EXPORTS = {
    "Block": "layout",
    "BlockCyclic": "layout",
    "Cyclic": "layout",
    "Distribution": "layout",
    "ProcessGrid": "layout",
    "Sizes": "layout",
    "descinit": "layout",
    "numroc": "layout",
    "DistArray": "array",
    "Error": "_errors",
    "Exchange": "_exchange",
    "provenance": "_provenance",
    "CShift": "shift",
    "EOShift": "shift",
    "PShift": "shift",
    "Halo": "shift",
    "cshift": "shift",
    "eoshift": "shift",
    "RedistPlan": "redist",
    "redistribute": "redist",
    "Vector": "vector",
    "Segments": "vector",
}

# Public submodules, reachable as attributes (``dm.redist``) without importing them first.
SUBMODULES = ("array", "cli", "layout", "measure", "redist", "shift", "vector")

__all__ = sorted(_EXPORTS) + ["__version__"]

if TYPE_CHECKING:  # type checkers see the lazily loaded names' real types (kept equal to _EXPORTS by a test)
    from ._errors import Error
    from ._exchange import Exchange
    from .array import DistArray
    from .layout import Block, BlockCyclic, Cyclic, Distribution, ProcessGrid, Sizes, descinit, numroc
    from ._provenance import provenance
    from .redist import RedistPlan, redistribute
    from .shift import CShift, EOShift, Halo, PShift, cshift, eoshift
    from .vector import Segments, Vector


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    if name in SUBMODULES:
        return importlib.import_module(f".{name}", __name__)  # the import binds it here too
    raise AttributeError(f"module 'datamotion' has no attribute {name!r}")


def __dir__():
    return sorted(set(__all__) | set(SUBMODULES))
