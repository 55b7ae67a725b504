"""PSHIFT: many circular and end-off shifts of distributed arrays in one step.

Semantics are Fortran's: ``CShift(s, axis=k)`` gives ``r[i] = a[(i + s) mod n]``
(``numpy.roll(a, -s, k)``); ``EOShift(s, axis=k, boundary=b)`` gives
``r[i] = a[i + s]`` where that index exists and the boundary elsewhere. Every
entry point takes the distance before the axis, as ``numpy.roll(a, shift, axis)``
and Fortran's ``CSHIFT(array, shift, dim)`` do.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Union

import numpy as np

from ._checks import LocalProblems, int64
from ._errors import DM_ERR_ARG, Error
from ._exchange import Exchange, executor_name, message_shapes
from ._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ._calls import collective
from ._plans import cached, layout_key
from .array import DistArray

__all__ = ["CShift", "EOShift", "Halo", "PShift", "cshift", "eoshift"]

_CSHIFT, _EOSHIFT = 0, 1
_ZERO, _ONE, _SCALAR, _ARRAY = 0, 1, 2, 3
_DM_ERR_STATE = 6


def _shift_and_axis(kind: str, shift, old_order: tuple, axis, others: Sequence[str] = ()) -> tuple:
    """(shift, axis, rest) of ``kind(shift, axis=...)``, or of the deprecated
    ``kind(axis, shift, *others)``: with ``axis`` keyword-only, two positional
    arguments can only be the old order."""
    if len(old_order) > 1 + len(others) or (old_order and axis is not None):
        raise TypeError(f"{kind}() takes the shift and then keywords: {kind}(shift, axis=k"
                        + "".join(f", {name}=..." for name in others) + ")")
    if not old_order:
        if axis is None:
            raise TypeError(f"{kind}() needs axis=, e.g. {kind}({shift!r}, axis=0)")
        return shift, axis, ()
    warnings.warn(f"{kind}(axis, shift) is deprecated: write {kind}({old_order[0]!r}, axis={shift!r}), "
                  "the order of cshift(a, shift, axis) and numpy.roll", DeprecationWarning, stacklevel=3)
    return old_order[0], shift, old_order[1:]


@dataclass(frozen=True, init=False)
class CShift:
    """A circular shift by ``shift`` along ``axis``: ``r[i] = a[(i + shift) mod n]``,
    ``CShift(shift, axis=k)``. ``axis`` is keyword-only: ``CShift(k, shift)``, the
    order of earlier versions, still works and warns (``DeprecationWarning``)."""

    shift: int
    axis: int

    def __init__(self, shift: int, *old_order, axis: Optional[int] = None):
        shift, axis, _ = _shift_and_axis("CShift", shift, old_order, axis)
        object.__setattr__(self, "shift", shift)
        object.__setattr__(self, "axis", axis)


@dataclass(frozen=True, eq=False, init=False)
class EOShift:
    """An end-off shift by ``shift`` along ``axis``: ``r[i] = a[i + shift]`` where that
    index exists, else ``boundary``: a number, or an array (NumPy or DistArray) of
    the shifted array's shape without ``axis`` (one value per line along the axis).
    ``EOShift(shift, axis=k, boundary=b)``; ``EOShift(k, shift[, b])``, the order of
    earlier versions, still works and warns (``DeprecationWarning``)."""

    shift: int
    axis: int
    boundary: Any = 0.0

    def __init__(self, shift: int, *old_order, axis: Optional[int] = None, boundary: Any = 0.0):
        shift, axis, rest = _shift_and_axis("EOShift", shift, old_order, axis, ("boundary",))
        object.__setattr__(self, "shift", shift)
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "boundary", rest[0] if rest else boundary)


Shift = Union[CShift, EOShift]


def _boundary_kind(shift: Shift) -> int:
    if isinstance(shift, CShift):
        return _ZERO
    b = shift.boundary
    if isinstance(b, DistArray) or np.ndim(b) > 0:
        return _ARRAY
    if b == 0:
        return _ZERO
    if b == 1:
        return _ONE
    return _SCALAR


class PShift:
    """A polyshift plan: the shifts ``shifts`` of arrays laid out like ``prototype``.

    Collective on ``prototype.grid.comm``. Setup computes partners, message
    boxes and local copies once, and joins every shift's pieces for one rank into
    one message; each :meth:`execute` then starts every message at once, does the
    local copies and boundary fills while they travel, and waits once
    (:meth:`start` returns instead, to compute meanwhile). Any axis may be
    shifted, whatever its distribution. ``executor`` (``"auto"`` or a name of ``Exchange.EXECUTORS``, docs/exchange.md)
    overrides how messages travel; :meth:`describe` tells what was chosen.

    Example, the 5-point stencil::

        plan = PShift(u, [CShift(-1, axis=0), CShift(1, axis=0), CShift(-1, axis=1), CShift(1, axis=1)])
        n, s, w, e = plan([u, u, u, u])
        v.local[...] = (n.local + s.local + w.local + e.local - 4 * u.local)
    """

    @collective("PShift")
    def __init__(self, prototype: DistArray, shifts: Sequence[Shift], executor: str = "auto"):
        problems = LocalProblems()
        shifts = problems.attempt("shifts", lambda: list(shifts), default=[])
        specs = []
        for k, s in enumerate(shifts):
            if not isinstance(s, (CShift, EOShift)):
                problems.report(DM_ERR_ARG, f"shift {k}: expected CShift or EOShift, got {s!r}")
                continue
            kind = _CSHIFT if isinstance(s, CShift) else _EOSHIFT
            spec = problems.attempt(f"shift {k}",
                                    lambda: (kind, int64(s.axis, "axis"), int64(s.shift, "shift"), _boundary_kind(s)))
            if spec is not None:
                specs.append(spec)
        executor = problems.attempt("executor", lambda: executor_name(executor), default="auto")
        _core.agree(prototype.grid.comm, *(problems.problem or (DM_ERR_ARG, None)))
        self._plan = _core.PShift(prototype._a, specs, executor)
        self._prototype = (prototype.grid, prototype.shape, prototype.dtype, prototype.dist, prototype.ghost)
        self._shifts = shifts
        self._lines = {}  # shift index -> index arrays selecting this rank's boundary lines
        # Shifts whose boundary values travel with each execution (scalars and arrays).
        self._with_boundary = [k for k, s in enumerate(shifts)
                               if isinstance(s, EOShift) and _boundary_kind(s) in (_SCALAR, _ARRAY)]
        # Outside checked mode a good call of a plan without boundary values has nothing
        # to agree on: execute() then goes straight to the C++ plan, which checks the
        # arrays' layouts itself (as Halo.exchange does).
        self._direct = not _core.checked_mode() and not self._with_boundary

    def free(self) -> None:
        """Releases the plan's MPI resources now rather than at garbage collection.
        Using the plan afterwards raises ``datamotion.Error`` (DM_ERR_STATE), as does
        freeing it with an execution in flight (``wait()`` on it first)."""
        if self._plan is not None and self._plan.in_flight:
            raise Error(_DM_ERR_STATE, "pshift: free() with an execution in flight (call wait() on it first)")
        self._plan = None

    @property
    def _core_plan(self):
        if self._plan is None:  # freed on every rank alike
            raise Error(_DM_ERR_STATE, "pshift plan used after free(): set up a new PShift")
        return self._plan

    @property
    def shifts(self) -> List[Shift]:
        """The shifts of the plan, in order."""
        return list(self._shifts)

    def volume(self) -> dict:
        """Local. What one execution moves on this rank: messages sent and received,
        elements sent to other ranks and elements copied locally."""
        return _volume(self._core_plan)

    def describe(self) -> str:
        """Local. How this rank's messages travel (executor per message) and why."""
        return self._core_plan.describe()

    def messages(self) -> List[dict]:
        """Local. This rank's messages and local copies, each with its peer, round,
        bytes, contiguous runs and direction (see :func:`datamotion.measure.programs.plan_time`)."""
        return message_shapes(self._core_plan)

    def execute(self, dsts: Sequence[DistArray], srcs: Sequence[DistArray]) -> None:
        """Collective. Shift k from ``srcs[k]`` into ``dsts[k]``, all at once. A source may
        also be a destination; no array may be the destination of two shifts."""
        plan = self._plan
        if self._direct and plan is not None and plan.execute_direct(dsts, srcs):
            return
        self.start(dsts, srcs).wait()

    def start(self, dsts: Sequence[DistArray], srcs: Sequence[DistArray]) -> Exchange:
        """Collective. Starts :meth:`execute` and returns at once, local copies and
        boundary fills done; ``wait()`` on the result completes it. Meanwhile do not
        write a source nor touch a destination."""
        plan = self._core_plan
        n = len(self._shifts)
        problems = LocalProblems()
        dsts = problems.attempt("destinations", lambda: list(dsts), default=[])
        srcs = problems.attempt("sources", lambda: list(srcs), default=[])
        if problems.problem is None and (len(dsts) != n or len(srcs) != n):
            problems.report(DM_ERR_ARG, f"pshift: the plan has {n} shifts but got {len(dsts)} destinations "
                                        f"and {len(srcs)} sources")
        for k, a in enumerate(dsts + srcs):
            if not isinstance(a, DistArray):
                problems.report(DM_ERR_ARG, f"pshift: expected DistArray, got {type(a).__name__} at position {k}")
        # The hot-path rule: no collective unless checked mode; a mistake here ends the job.
        _core.hot_path(self._prototype[0].comm, "PShift.execute", *(problems.problem or (DM_ERR_ARG, None)))
        boundaries = []
        if self._with_boundary:
            boundaries = [None] * n
            for k in self._with_boundary:
                boundaries[k] = self._boundary(k, self._shifts[k], dsts)
        plan.begin([d._a for d in dsts], [s._a for s in srcs], boundaries)
        return Exchange(plan.end, (plan, dsts, srcs, boundaries), plan.test)

    @collective("PShift.__call__")
    def __call__(self, srcs: Sequence[DistArray]) -> List[DistArray]:
        """Collective. The shifted arrays, newly allocated, one per shift."""
        grid, shape, dtype, dist, ghost = self._prototype
        dsts = [DistArray._to_overwrite(grid, shape, dtype, list(dist), list(ghost)) for _ in self._shifts]
        self.execute(dsts, srcs)
        return dsts

    def _boundary(self, k: int, shift: EOShift, dsts) -> np.ndarray:
        dtype = self._prototype[2]
        if _boundary_kind(shift) == _SCALAR:
            return np.asarray(shift.boundary, dtype=dtype)
        b = shift.boundary
        if isinstance(b, DistArray):
            b = b.to_global()  # collective, in the same order on every rank
        b = np.asarray(b, dtype=dtype)
        shape = self._prototype[1]
        expected = tuple(n for a, n in enumerate(shape) if a != shift.axis)
        if b.shape != expected:  # the same boundary on every rank: fails alike everywhere
            raise Error(DM_ERR_ARG, f"pshift: shift {k}: boundary of shape {b.shape}; an end-off shift along "
                                    f"axis {shift.axis} of shape {shape} needs a number or shape {expected}")
        return np.ascontiguousarray(b[self._line_index(k, shift.axis, dsts[k])])

    def _line_index(self, k: int, axis: int, like: DistArray):
        if k not in self._lines:
            grid = self._prototype[0]
            index = []
            for a, n in enumerate(like.local_shape):
                if a != axis:
                    m = like.axis_map(a)
                    index.append([m.global_index(grid.coords[a], l) for l in range(n)])
            self._lines[k] = np.ix_(*index) if index else ()
        return self._lines[k]


def _volume(plan) -> dict:
    sent, received, elements, copied = plan.volume()
    return {"messages_sent": sent, "messages_received": received, "elements_sent": elements,
            "elements_copied": copied}


class Halo:
    """A halo plan: fills the ghost regions of arrays laid out like ``prototype``
    from the neighbours that own those elements, in one concurrent step.

    Collective on ``prototype.grid.comm``. With ``corners=False`` only the faces
    are filled (enough for a 5-point or 7-point stencil); with ``corners=True``
    also the edges and corners a box stencil (9-point, 27-point) reads. Periodic
    grid axes wrap around; on the others the ghosts past the global edge are left
    as they are. Read the shifted values in place from ``a.local_with_ghosts``::

        u = dm.DistArray.from_global(grid, u0, ghost=1)
        halo = dm.Halo(u)
        halo.exchange(u)
        g = u.local_with_ghosts
        lap = g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:] - 4 * u.local

    Pieces bound for one neighbour rank travel in one message. :meth:`start`
    returns while they travel, so the interior can be updated meanwhile::

        with halo.start(u):
            inner = update(u.local[1:-1, 1:-1])   # needs no ghost
        edges = update_edges(u.local_with_ghosts)

    ``executor`` (``"auto"`` or a name of ``Exchange.EXECUTORS``, docs/exchange.md) overrides how the
    messages travel; :meth:`describe` tells what was chosen and why.
    """

    @collective("Halo")
    def __init__(self, prototype: DistArray, corners: bool = False, executor: str = "auto"):
        problems = LocalProblems()
        executor = problems.attempt("executor", lambda: executor_name(executor), default="auto")
        _core.agree(prototype.grid.comm, *(problems.problem or (DM_ERR_ARG, None)))
        self._plan = _core.Halo(prototype._a, bool(corners), executor)
        self._corners = bool(corners)
        self._comm = prototype.grid.comm
        self._unchecked = not _core.checked_mode()

    @property
    def corners(self) -> bool:
        """Whether edges and corners are filled too."""
        return self._corners

    def exchange(self, a: DistArray) -> None:
        """Collective. Fills the ghosts of ``a``."""
        plan = self._plan
        if not (self._unchecked and plan is not None and isinstance(a, DistArray)):
            plan = self._checked(a, "Halo.exchange")
        plan.exchange(a._a)

    def start(self, a: DistArray) -> Exchange:
        """Collective. Starts filling the ghosts of ``a`` and returns; ``wait()`` on the
        result completes it. Meanwhile read ``a.local`` freely, but do not write it
        (ranks on this node read it in place until ``wait()``) nor touch its ghosts."""
        plan = self._plan
        if not (self._unchecked and plan is not None and isinstance(a, DistArray)):
            plan = self._checked(a, "Halo.start")
        plan.begin(a._a)
        return Exchange(plan.end, (plan, a), plan.test)

    def _checked(self, a, call: str):
        """The plan, after the hot-path rule for the arguments of `call`. Outside checked
        mode a good call has nothing to agree on, so exchange() and start() skip this
        when the plan is live and `a` is a DistArray; the C++ plan checks the rest."""
        plan = self._core_plan
        problem = None if isinstance(a, DistArray) else f"halo: expected DistArray, got {type(a).__name__}"
        _core.hot_path(self._comm, call, DM_ERR_ARG, problem)
        return plan

    def describe(self) -> str:
        """Local. How this rank's messages travel (executor per message) and why."""
        return self._core_plan.describe()

    def volume(self) -> dict:
        """Local. What one exchange moves on this rank (see :meth:`PShift.volume`)."""
        return _volume(self._core_plan)

    def messages(self) -> List[dict]:
        """Local. This rank's messages and local copies (see :meth:`PShift.messages`)."""
        return message_shapes(self._core_plan)

    def free(self) -> None:
        """Releases the plan's MPI resources now; using it afterwards raises (DM_ERR_STATE),
        as does freeing it with an exchange in flight (``wait()`` on it first)."""
        if self._plan is not None and self._plan.in_flight:
            raise Error(_DM_ERR_STATE, "halo: free() with an exchange in flight (call wait() on it first)")
        self._plan = None

    @property
    def _core_plan(self):
        if self._plan is None:
            raise Error(_DM_ERR_STATE, "halo plan used after free(): set up a new Halo")
        return self._plan


@collective("cshift")
def cshift(a: DistArray, shift: int, axis: int) -> DistArray:
    """Collective. A new array ``r`` with ``r[i] = a[(i + shift) mod n]`` along ``axis``
    (Fortran's CSHIFT, ``numpy.roll(a, -shift, axis)``). Its plan is kept for the
    next call of the same shift on arrays of the same layout (see :class:`PShift`)."""
    return _one_shot(a, CShift(shift, axis=axis))


@collective("eoshift")
def eoshift(a: DistArray, shift: int, axis: int, boundary=0) -> DistArray:
    """Collective. A new array ``r`` with ``r[i] = a[i + shift]`` along ``axis`` where that
    index exists, else ``boundary`` (Fortran's EOSHIFT). Its plan is kept as
    :func:`cshift`'s is."""
    return _one_shot(a, EOShift(shift, axis=axis, boundary=boundary))


def _one_shot(a: DistArray, shift: Shift) -> DistArray:
    """``shift`` of ``a`` by a plan kept on ``a``'s grid."""
    if not isinstance(a, DistArray):
        raise Error(DM_ERR_ARG, f"expected a DistArray, got {type(a).__name__}")
    key = ("pshift", layout_key(a), type(shift).__name__, shift.axis, shift.shift, _boundary_kind(shift))
    plan = cached(a.grid, key, lambda: PShift(a, [shift]))
    plan._shifts = [shift]  # the same kind, axis and distance: only a boundary's values may differ
    return plan([a])[0]
