"""Distributed N-d arrays."""

from __future__ import annotations

import hashlib
from typing import Optional, Sequence, Union

import numpy as np

from ._checks import LocalProblems, int64, root_code
from ._errors import DM_ERR_ARG, DM_ERR_TYPE, Error
from ._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ._calls import collective
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
_SUPPORTED = "supported: int32, int64, float32, float64, complex64, complex128, bool"

DistSpec = Union[None, Distribution, Sequence[Distribution]]


def _dtype_name(dtype) -> str:
    try:
        return str(np.dtype(dtype))
    except TypeError:
        return str(dtype)


def _dtype_code(dtype, problems: LocalProblems) -> int:
    """The element type code; an unsupported type is recorded as this rank's problem."""
    try:
        code = _DTYPE_CODES.get(np.dtype(dtype).newbyteorder("="), -1)
    except TypeError:
        code = -1
    if code < 0:
        problems.report(DM_ERR_TYPE, f"unsupported element type '{_dtype_name(dtype)}' ({_SUPPORTED})")
    return code


def _dist_specs(dist: DistSpec, ndim: int, problems: LocalProblems) -> list:
    def specs():
        if dist is None:
            return [Block()._spec()] * ndim
        if isinstance(dist, Distribution):
            return [dist._spec()] * ndim
        if not all(isinstance(d, Distribution) for d in dist):
            raise TypeError(f"expected Block(), Cyclic(), BlockCyclic(r, src), Sizes([...]) or one per axis, "
                            f"got {dist!r}")
        return [d._spec() for d in dist]

    return problems.attempt("distribution", specs, default=[])


def _ghost_widths(ghost: Union[int, Sequence[int]], ndim: int, problems: LocalProblems) -> list:
    def widths():
        if isinstance(ghost, (int, np.integer)):
            return [int64(ghost, "ghost width")] * ndim
        return [int64(g, "ghost width") for g in ghost]

    return problems.attempt("ghost width", widths, default=[])


def _c_order(array, problems: LocalProblems, what: str, dtype=None) -> Optional[np.ndarray]:
    """``array`` as a C-contiguous NumPy array in native byte order (no copy when it
    already is one), keeping its number of axes; converted to ``dtype`` if given as
    NumPy assigns, except complex values into a real array, which would lose their
    imaginary parts; None after recording a problem."""
    def convert():
        data = np.asarray(array, order="C")
        if dtype is not None and data.dtype != dtype:
            if np.issubdtype(data.dtype, np.complexfloating) and not np.issubdtype(dtype, np.complexfloating):
                problems.report(DM_ERR_TYPE, f"{what}: {data.dtype} values into a {np.dtype(dtype)} array would "
                                             f"lose their imaginary parts; pass real values")
                return None
            data = np.asarray(data, dtype=dtype, order="C")
        if not data.dtype.isnative:
            data = data.astype(data.dtype.newbyteorder("="))
        return data

    return problems.attempt(what, convert)


class DistArray:
    """A distributed N-d array on a process grid of the same rank.

    Each rank stores the elements it owns, in row-major order, inside an optional
    ghost region. ``local`` is a zero-copy NumPy view of the owned elements.
    Create arrays with :meth:`from_global`, :meth:`zeros`, :meth:`empty` or
    :meth:`adopt` (the caller's memory); all creation and
    movement calls are collective on ``grid.comm``.
    """

    def __init__(self, grid: ProcessGrid, core):
        self._grid = grid
        self._a = core

    @classmethod
    @collective("DistArray.zeros")
    def zeros(cls, grid: ProcessGrid, shape: Sequence[int], dtype=np.float64, dist: DistSpec = None,
              ghost: Union[int, Sequence[int]] = 0) -> "DistArray":
        """Collective. A zero-filled array of global ``shape``.

        Args:
            dist: one distribution for every axis or one per axis (default ``Block()``).
            ghost: ghost width, one for every axis or one per axis (default 0).
        """
        return cls._create(grid, shape, dtype, dist, ghost, zero=True)

    @classmethod
    @collective("DistArray.empty")
    def empty(cls, grid: ProcessGrid, shape: Sequence[int], dtype=np.float64, dist: DistSpec = None,
              ghost: Union[int, Sequence[int]] = 0) -> "DistArray":
        """Collective. As :meth:`zeros`, but the storage is not initialised (like
        ``numpy.empty``): for arrays whose every element is written before it is read."""
        return cls._create(grid, shape, dtype, dist, ghost, zero=False)

    @classmethod
    @collective("DistArray.adopt")
    def adopt(cls, grid: ProcessGrid, memory: np.ndarray, shape: Sequence[int], dist: DistSpec = None,
              ghost: Union[int, Sequence[int]] = 0) -> "DistArray":
        """Collective. An array of global ``shape`` whose local storage is ``memory``,
        without a copy: a writeable, C-contiguous NumPy array of this rank's storage
        (``local_shape`` plus twice the ghost width per axis, row-major; its first
        bytes are used), whose dtype is the element type. The array keeps ``memory``
        alive; writes through either are seen by both.

        Example::

            block = np.ones((n // grid.size, m))      # this rank's rows, already computed
            a = DistArray.adopt(grid, block, (n, m))  # no copy
        """
        problems = LocalProblems()

        def check():
            if not isinstance(memory, np.ndarray):
                raise TypeError(f"memory must be a NumPy array, got {type(memory).__name__}")
            if not (memory.flags.c_contiguous and memory.flags.writeable and memory.dtype.isnative):
                raise TypeError("memory must be a writeable, C-contiguous NumPy array in native byte order "
                                "(adopting it must not copy)")
            return memory

        adopted = problems.attempt("memory", check)
        return cls._create(grid, shape, adopted.dtype if adopted is not None else np.float64, dist, ghost,
                           zero=False, memory=adopted, problems=problems)

    @classmethod
    def _to_overwrite(cls, grid, shape, dtype, dist, ghost) -> "DistArray":
        """A new array whose owned elements are all about to be written (the result
        of a shift or redistribution): uninitialised, unless it has ghost regions,
        which start zero as in :meth:`zeros`."""
        try:
            has_ghosts = any(g != 0 for g in ([ghost] if isinstance(ghost, (int, np.integer)) else ghost))
        except TypeError:  # not ghost widths at all: _create reports that on every rank
            has_ghosts = True
        return cls._create(grid, shape, dtype, dist, ghost, zero=has_ghosts)

    @classmethod
    def _create(cls, grid, shape, dtype, dist, ghost, zero, memory=None, problems=None) -> "DistArray":
        problems = problems or LocalProblems()
        shape = problems.attempt("shape", lambda: [int64(n, "extent") for n in shape], default=[])
        code = _dtype_code(dtype, problems)
        dists = _dist_specs(dist, len(shape), problems)
        ghosts = _ghost_widths(ghost, len(shape), problems)
        _core.agree(grid.comm, *(problems.problem or (DM_ERR_ARG, None)))
        return cls(grid, _core.Array(grid._grid, code, shape, dists, ghosts, zero, memory))

    @classmethod
    @collective("DistArray.from_global")
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
        problems = LocalProblems()
        c_root = root_code(root, grid.size, problems)
        data, code = None, -1
        if root is None or grid.rank == c_root:
            data = _c_order(array, problems, "global array")
            if data is not None:
                code = _dtype_code(data.dtype, problems)
        ndim = data.ndim if data is not None else grid.ndim
        dists = _dist_specs(dist, ndim, problems)
        ghosts = _ghost_widths(ghost, ndim, problems)
        core = _core.Array.from_global(grid._grid, data if code >= 0 else None, code, dists, ghosts, c_root,
                                       problems.problem)
        if root is None and _core.checked_mode():
            # Each rank kept its own block of its own copy: the copies must be equal.
            digest = hashlib.blake2b(data.tobytes(), digest_size=8).digest()
            _core.require_same(grid.comm, [*data.shape, int.from_bytes(digest, "little", signed=True)],
                               "global array (root=None: every rank must pass the same array)", array=True)
        return cls(grid, core)

    @collective("DistArray.to_global")
    def to_global(self, root: Optional[int] = None) -> Optional[np.ndarray]:
        """Collective. The global array on every rank (``root=None``), or on
        ``root`` only (``None`` elsewhere)."""
        problems = LocalProblems()
        c_root = root_code(root, self._grid.size, problems)
        out = None
        if root is None or self._grid.rank == c_root:
            out = problems.attempt("to_global", lambda: np.empty(self.shape, self.dtype))
        self._a.gather(out, c_root, problems.problem)
        return out

    @collective("DistArray.scatter")
    def scatter(self, array, root: Optional[int] = None) -> None:
        """Collective. Overwrites the owned elements from a global array of the same
        shape and type, held by every rank (``root=None``) or by ``root``."""
        problems = LocalProblems()
        c_root = root_code(root, self._grid.size, problems)
        data = None
        if root is None or self._grid.rank == c_root:
            data = _c_order(array, problems, "global array", dtype=self.dtype)
        self._a.scatter(data, c_root, problems.problem)

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
        try:
            axis = int64(axis, "axis")
        except (TypeError, ValueError) as exc:
            raise Error(DM_ERR_ARG, f"axis_map: {exc}") from None
        if not 0 <= axis < self.ndim:
            raise Error(DM_ERR_ARG, f"axis_map: axis {axis} out of range [0, {self.ndim})")
        return self._a.axis_map(axis)

    def __repr__(self) -> str:
        return (f"DistArray(shape={self.shape}, dtype={self.dtype}, grid={self._grid.dims}, "
                f"dist={self.dist}, ghost={self.ghost})")
