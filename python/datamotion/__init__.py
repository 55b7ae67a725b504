"""datamotion: data-parallel communication on MPI.

Process grids, distributed N-d arrays and their distributions, with every
collective call failing the same way on every rank when anything is wrong::

    import numpy as np
    import datamotion as dm

    grid = dm.ProcessGrid(dims=[0, 0])            # a 2-d grid over COMM_WORLD
    a = dm.DistArray.from_global(grid, np.arange(12.0).reshape(3, 4))
    a.local *= 2                                    # zero-copy view of the owned block
    print(a.to_global())
"""

from . import _mpi  # noqa: F401  (loads MPI through mpi4py before the extension)
from ._core import version as __version__
from ._errors import Error
from .array import DistArray
from .layout import Block, BlockCyclic, Cyclic, ProcessGrid, numroc, descinit
from .provenance import provenance

__all__ = [
    "Block",
    "BlockCyclic",
    "Cyclic",
    "DistArray",
    "Error",
    "ProcessGrid",
    "descinit",
    "numroc",
    "provenance",
    "__version__",
]
