"""Distributed N-d arrays."""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from . import _mpi  # noqa: F401  (MPI through mpi4py first, then a same-MPI check)
from . import _core
from .layout import Block, Distribution, ProcessGrid, _from_spec

__all__ = ["DistArray"]

# NumPy dtype -> datamotion element type code (dm_dtype).
_DTYPE_CODES = {
    np.dtype(np.int32): 0,
    np.dtype(np.int64): 1,
    np.dtype(np.float32): 2,
    np.dtype(np.float64): 3,
    np.dtype(np.complex64): 4,
    np.dtype(np.complex128): 5,
    np.dtype(np.bool_): 6,
}
_DTYPES = {code: dtype for dtype, code in _DTYPE_CODES.items()}
_ALL_RANKS = -1
_DM_ERR_TYPE = 2
_SUPPORTED = "supported: int32, int64, float32, float64, complex64, complex128, bool"

DistSpec = Union[None, Distribution, Sequence[Distribution]]


def _dtype_code(dtype) -> int:
    """The element type code, or -1 (refused collectively by the C++ core)."""
    try:
        return _DTYPE_CODES.get(np.dtype(dtype).newbyteorder("="), -1)
    except TypeError:
        return -1


def _dist_specs(dist: DistSpec, ndim: int) -> list:
    if dist is None:
        dist = Block()
    if isinstance(dist, Distribution):
        return [dist._spec()] * ndim
    return [d._spec() for d in dist]


def _ghost_widths(ghost: Union[int, Sequence[int]], ndim: int) -> list:
    if isinstance(ghost, (int, np.integer)):
        return [int(ghost)] * ndim
    return [int(g) for g in ghost]


def _root_code(root: Optional[int]) -> int:
    return _ALL_RANKS if root is None else int(root)


class DistArray:
    """A distributed N-d array on a process grid of the same rank.

    Each rank stores the elements it owns, in row-major order, inside an optional
    ghost region. ``local`` is a zero-copy NumPy view of the owned elements.
    Create arrays with :meth:`from_global` or :meth:`zeros`; all creation and
    movement calls are collective on ``grid.comm``.
    """

    def __init__(self, grid: ProcessGrid, core):
        self._grid = grid
        self._a = core

    @classmethod
    def zeros(cls, grid: ProcessGrid, shape: Sequence[int], dtype=np.float64, dist: DistSpec = None,
              ghost: Union[int, Sequence[int]] = 0) -> "DistArray":
        """Collective. A zero-filled array of global ``shape``.

        Args:
            dist: one distribution for every axis or one per axis (default ``Block()``).
            ghost: ghost width, one for every axis or one per axis (default 0).
        """
        shape = [int(s) for s in shape]
        code = _dtype_code(dtype)
        problem = None if code >= 0 else f"unsupported element type {dtype!r} ({_SUPPORTED})"
        _core.agree(grid.comm, _DM_ERR_TYPE, problem)
        core = _core.Array(grid._grid, code, shape, _dist_specs(dist, len(shape)),
                           _ghost_widths(ghost, len(shape)))
        return cls(grid, core)

    @classmethod
    def from_global(cls, grid: ProcessGrid, array, dist: DistSpec = None, root: Optional[int] = None,
                    ghost: Union[int, Sequence[int]] = 0) -> "DistArray":
        """Collective. Distributes a global NumPy array.

        Args:
            array: the global array: on every rank (``root=None``, nothing moves
                between ranks), or on ``root`` only (ignored elsewhere).
            dist: one distribution for every axis or one per axis (default ``Block()``).
            root: the rank holding ``array``, or ``None`` for all ranks.
            ghost: ghost width, one for every axis or one per axis.
        """
        root_code = _root_code(root)
        reads = root is None or grid.rank == root
        data, code, name = None, -1, ""
        if reads:
            data = np.ascontiguousarray(array)
            code = _dtype_code(data.dtype)
            name = str(data.dtype)
            if code < 0:
                data = None
            elif not data.dtype.isnative:
                data = data.astype(data.dtype.newbyteorder("="))
        ndim = data.ndim if data is not None else grid.ndim
        core = _core.Array.from_global(grid._grid, data, code, name, _dist_specs(dist, ndim),
                                       _ghost_widths(ghost, ndim), root_code)
        return cls(grid, core)

    def to_global(self, root: Optional[int] = None) -> Optional[np.ndarray]:
        """Collective. The global array on every rank (``root=None``), or on
        ``root`` only (``None`` elsewhere)."""
        receives = root is None or self._grid.rank == root
        out = np.empty(self.shape, self.dtype) if receives else None
        self._a.gather(out, _root_code(root))
        return out

    def scatter(self, array, root: Optional[int] = None) -> None:
        """Collective. Overwrites the owned elements from a global array of the same
        shape and type, held by every rank (``root=None``) or by ``root``."""
        reads = root is None or self._grid.rank == root
        data = np.ascontiguousarray(array, dtype=self.dtype) if reads else None
        self._a.scatter(data, _root_code(root))

    @property
    def local(self) -> np.ndarray:
        """Zero-copy view of the elements this rank owns (writes go to the array).
        Assigning to it (``a.local = x``, ``a.local *= 2``) writes into the owned elements."""
        return self._a.local

    @local.setter
    def local(self, value) -> None:
        self._a.local[...] = value  # after `a.local *= 2` this copies the view onto itself

    @property
    def local_with_ghosts(self) -> np.ndarray:
        """Zero-copy view of the local storage including the ghost regions."""
        return self._a.storage

    grid = property(lambda self: self._grid, doc="The process grid.")
    shape = property(lambda self: tuple(self._a.shape), doc="Global shape.")
    ndim = property(lambda self: len(self._a.shape), doc="Number of axes.")
    dtype = property(lambda self: _DTYPES[self._a.dtype], doc="Element type (a NumPy dtype).")
    ghost = property(lambda self: tuple(self._a.ghost), doc="Ghost width of each axis.")
    local_shape = property(lambda self: tuple(self._a.local_shape), doc="Shape of the owned block.")

    @property
    def dist(self) -> tuple:
        """Distribution of each axis, with block sizes resolved (``Block`` stays ``Block``)."""
        return tuple(_from_spec(s) for s in self._a.dists)

    def axis_map(self, axis: int):
        """Local. The index map of ``axis`` (owner, local and global indices, extents)."""
        kind, block, src = self._a.dists[axis]
        return _core.AxisMap(kind, block, src, self.shape[axis], self._grid.dims[axis])

    def __repr__(self) -> str:
        return (f"DistArray(shape={self.shape}, dtype={self.dtype}, grid={self._grid.dims}, "
                f"dist={self.dist}, ghost={self.ghost})")
