"""Process grids and axis distributions."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Optional, Sequence, Union

import numpy as np

from ._checks import LocalProblems, int64
from ._errors import DM_ERR_ARG, Error
from ._mpi import MPI, _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ._calls import collective

__all__ = ["ProcessGrid", "Block", "Cyclic", "BlockCyclic", "Sizes", "Distribution", "numroc", "descinit"]

_ORDERS = {"send": 0, "news": 1, "shuffle": 2}


class ProcessGrid:
    """Ranks of a communicator arranged on a Cartesian grid of 1 to 7 axes.

    Collective on ``comm``. The grid works on its own duplicate of ``comm``
    (``grid.comm``), whose ranks are those of ``comm``.

    Args:
        comm: an mpi4py communicator (default ``MPI.COMM_WORLD``).
        dims: extents of the axes. An int gives the number of axes, all chosen;
            zeros in a sequence are chosen as by ``MPI_Dims_create``. ``None``
            means one axis over all ranks.
        order: which rank sits at which coordinate: ``"send"`` (the default:
            row-major, as ``MPI_Cart_create`` without reordering, so on a 1-d
            grid rank r holds coordinate r and owns block r), ``"news"``
            (binary-reflected Gray code per axis: on power-of-two axes
            neighbours differ in one bit of rank) or ``"shuffle"`` (coordinate
            bits interleaved).
        periods: periodic flag per axis (default none periodic).

    Raises:
        datamotion.Error: on every rank, if the extents do not multiply to the
            size of ``comm``, an argument is invalid or arguments differ across ranks.
    """

    @collective("ProcessGrid")
    def __init__(self, comm: Optional[MPI.Comm] = None, dims: Union[None, int, Sequence[int]] = None,
                 order: str = "send", periods: Optional[Sequence[bool]] = None):
        comm = MPI.COMM_WORLD if comm is None else comm
        if comm == MPI.COMM_NULL:  # nobody to agree with: every rank holding it fails alone
            raise Error(DM_ERR_ARG, "process grid: communicator is MPI.COMM_NULL")
        problems = LocalProblems()
        if dims is None:
            dims = [0]
        elif isinstance(dims, (int, np.integer)):
            dims = [0] * int(dims)
        dims = problems.attempt("process grid dims", lambda: [int(d) for d in dims], default=[])
        periods = problems.attempt("process grid periods",
                                   lambda: [] if periods is None else [int(bool(p)) for p in periods], default=[])
        if order not in _ORDERS:
            problems.report(DM_ERR_ARG, f"unknown grid order {order!r} (choose one of 'send', 'news', 'shuffle')")
        _core.agree(comm, *(problems.problem or (DM_ERR_ARG, None)))
        self._grid = _core.Grid(comm, dims, periods, _ORDERS[order])
        self._comm = self._grid.comm
        self.order = order

    @classmethod
    def _wrap(cls, core_grid) -> "ProcessGrid":
        self = cls.__new__(cls)
        self._grid = core_grid
        self._comm = core_grid.comm
        self.order = {v: k for k, v in _ORDERS.items()}[core_grid.order]
        return self

    comm = property(lambda self: self._comm, doc="The grid's communicator (a duplicate of the one given).")
    rank = property(lambda self: self._grid.rank, doc="Rank of this process in ``comm``.")
    size = property(lambda self: self._grid.size, doc="Number of ranks.")
    ndim = property(lambda self: self._grid.ndims, doc="Number of axes.")
    dims = property(lambda self: tuple(self._grid.dims), doc="Extent of each axis.")
    periods = property(lambda self: tuple(bool(p) for p in self._grid.periods), doc="Periodic flag of each axis.")
    coords = property(lambda self: tuple(self._grid.coords), doc="Coordinates of this rank.")

    def rank_of(self, coords: Sequence[int]) -> int:
        """Local. Rank at ``coords`` (wrapping on periodic axes)."""
        return self._grid.rank_of(list(coords))

    def coords_of(self, rank: int) -> tuple:
        """Local. Coordinates of ``rank``."""
        return tuple(self._grid.coords_of(rank))

    def axis_comm(self, axis: int) -> MPI.Comm:
        """Local. Communicator of the ranks sharing all coordinates but ``axis``,
        ranked along it (a row or column communicator). Owned by the grid."""
        return self._grid.axis_comm(axis)

    def __repr__(self) -> str:
        return f"ProcessGrid(dims={self.dims}, order={self.order!r}, periods={self.periods})"


@dataclass(frozen=True)
class Distribution:
    """Base of the axis distributions."""

    kind = -1

    def _spec(self) -> tuple:
        """(kind, block, src, sizes) as the library takes them."""
        return (self.kind, 0, 0, [])

    def axis_map(self, n: int, nprocs: int) -> "_core.AxisMap":
        """Local. The index map of an axis of ``n`` elements over ``nprocs`` coordinates,
        with ``owner(g)``, ``local_index(g)``, ``global_index(coord, l)``, ``extent(coord)``."""
        return _core.AxisMap(*self._spec(), n, nprocs)

    def local_extent(self, n: int, nprocs: int, coord: int) -> int:
        """Local. Number of the ``n`` elements that coordinate ``coord`` of ``nprocs`` owns."""
        return self.axis_map(n, nprocs).extent(coord)


@dataclass(frozen=True)
class Block(Distribution):
    """Blocks of ceil(n / nprocs): trailing coordinates short or empty (CM canonical)."""

    kind = 0


@dataclass(frozen=True)
class Cyclic(Distribution):
    """Element g on coordinate g mod nprocs."""

    kind = 1


@dataclass(frozen=True)
class BlockCyclic(Distribution):
    """Blocks of ``r`` elements dealt round-robin from coordinate ``src`` (ScaLAPACK).
    ``r`` must be positive; it is checked, collectively, when an array is created."""

    r: int = 1
    src: int = 0
    kind = 2

    def _spec(self) -> tuple:
        return (self.kind, int(self.r), int(self.src), [])


@dataclass(frozen=True, init=False, repr=False)
class Sizes(Distribution):
    """Irregular blocks: coordinate ``c`` holds ``sizes[c]`` consecutive elements, in
    coordinate order (PETSc's ownership ranges, COSTA's grid2D). One size per grid
    coordinate of the axis, each >= 0, summing to the axis length: checked,
    collectively, when an array is created (``axis_map`` checks them locally)."""

    sizes: tuple
    kind = 3

    def __init__(self, sizes: Sequence[int]):
        # A value, equal and hashed by its integers (NumPy's become ints); what is not
        # a sequence of integers is kept as given and reported, on every rank, where used.
        try:
            sizes = tuple(operator.index(s) for s in sizes)
        except TypeError:
            pass
        object.__setattr__(self, "sizes", sizes)

    def __repr__(self) -> str:
        return f"Sizes({list(self.sizes) if isinstance(self.sizes, tuple) else self.sizes!r})"

    def _spec(self) -> tuple:
        if not isinstance(self.sizes, tuple):
            raise TypeError(f"Sizes takes a sequence of integers, got {self.sizes!r}")
        return (self.kind, 0, 0, [int64(s, "size") for s in self.sizes])


def _from_spec(spec: tuple) -> Distribution:
    kind, block, src, sizes = spec
    if kind == Sizes.kind:
        return Sizes(sizes)
    return {0: Block, 1: Cyclic}[kind]() if kind != 2 else BlockCyclic(block, src)


def numroc(n: int, block: int, coord: int, src: int, nprocs: int) -> int:
    """Local. ScaLAPACK's NUMROC with 0-based coordinates: elements of an axis of ``n``
    in blocks of ``block`` that coordinate ``coord`` of ``nprocs`` owns when the first
    block is on ``src``."""
    return _core.numroc(n, block, coord, src, nprocs)


def descinit(m: int, n: int, mb: int, nb: int, rsrc: int, csrc: int, ctxt: int,
             nprow: int, npcol: int, myrow: int, lld: int) -> list:
    """Local. A ScaLAPACK 9-integer array descriptor after DESCINIT's checks."""
    return _core.descinit(m, n, mb, nb, rsrc, csrc, ctxt, nprow, npcol, myrow, lld)

