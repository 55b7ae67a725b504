"""Redistribution: the same global array in a new block size, distribution or
process-grid shape.

:class:`RedistPlan` computes once which runs of elements every rank sends to
every other (as MPI datatypes over both storages, so nothing is packed here)
and moves the data of arrays of those two layouts as often as needed;
:func:`redistribute` returns a redistributed copy. When one axis changes its
block size by an integer factor K, the ``"sendrecv"`` method runs Walker and
Otto's contention-free schedule (:func:`optimal_schedule`): K phases in which
every rank sends to exactly one rank and receives from exactly one.
"""

from __future__ import annotations

import numbers
import warnings
from dataclasses import dataclass
from typing import Any, List, Mapping, Optional, Union

import numpy as np

from ._checks import LocalProblems
from ._errors import DM_ERR_ARG, Error
from ._exchange import Exchange, executor_name, message_shapes
from ._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ._calls import collective
from ._plans import cached, layout_key
from .array import DistArray, DistSpec
from .layout import ProcessGrid

__all__ = ["METHODS", "RedistPlan", "Schedule", "optimal_schedule", "random_schedule", "redistribute",
           "simple_schedule"]

METHODS = ("auto", "alltoallw", "nonblocking", "sendrecv", "simple", "random", "per-axis")
"""Method names, in the order of the C enum ``dm_redist_method``."""


@dataclass(frozen=True)
class Schedule:
    """Send and receive schedules for expanding a block size by K on P processes.

    Every table is a K x P integer array; entry ``[k, p]`` concerns phase ``k``
    and process ``p``. The receive tables are ``None`` for the simple and random
    schedules, whose receivers learn their sources from the data.
    """

    send_block: np.ndarray  #: B(k, p): global block (within a superblock of P*K blocks) p sends in phase k
    send_proc: np.ndarray  #: q(k, p): the process it goes to
    send_local: np.ndarray  #: b(k, p): its local block index on p
    recv_block: Optional[np.ndarray]  #: C(k, q): the global block q receives in phase k
    recv_proc: Optional[np.ndarray]  #: p(k, q): the process it comes from
    recv_slot: Optional[np.ndarray]  #: t(k, q): the slot of q's expanded block it fills


def _schedule(kind: str, P: int, K: int, seed: int = 0) -> Schedule:
    tables = _core.redist_schedule(kind, int(P), int(K), int(seed))
    arrays = [np.asarray(t, dtype=np.int64).reshape(K, P) if len(t) else None for t in tables]
    return Schedule(*arrays)


def optimal_schedule(P: int, K: int) -> Schedule:
    """Local. Walker and Otto's optimal schedule (Eqs. 5-11, permutation blocks in
    layout (a)): every row of ``send_proc`` and of ``recv_proc`` is a permutation
    of the processes, and the send and receive tables are compatible,
    ``send_block[k, recv_proc[k, q]] == recv_block[k, q]``."""
    return _schedule("optimal", P, K)


def simple_schedule(P: int, K: int) -> Schedule:
    """Local. The schedule of the simple algorithms: ``B(k, p) = k P + p``."""
    return _schedule("simple", P, K)


def random_schedule(P: int, K: int, seed: int) -> Schedule:
    """Local. Each process sends its K local blocks in an order drawn from ``seed``."""
    return _schedule("random", P, K, seed)


_TRANSPOSES = (False, True, "T", "H")  # RedistPlan's transpose: none, transposed, conjugate-transposed


class RedistPlan:
    """A plan that moves the data of arrays laid out like ``src`` into arrays laid
    out like ``dst``.

    Both arrays must have the same shape and element type. Without ``comm`` they
    live on grids over the same ranks (any grid shapes and distributions) and the
    call is collective on those ranks. With ``comm`` their grids may use any
    groups of ``comm``'s ranks, of different sizes: every rank of ``comm`` calls,
    passing ``None`` for an array whose grid it is not on.

    Args:
        src: an array of the source layout (or ``None``, with ``comm``).
        dst: an array of the destination layout (or ``None``, with ``comm``).
        method: one of :data:`METHODS`: ``"alltoallw"`` (one ``MPI_Alltoallw``),
            ``"nonblocking"`` (one message per peer, all in flight at once),
            ``"sendrecv"`` (contention-free ``MPI_Sendrecv`` phases: the optimal
            schedule when one axis changes its block size by an integer factor),
            ``"simple"`` and ``"random"`` (the seed paper's synchronised phases with
            the simple or a random send order; integer-factor changes only),
            ``"per-axis"`` (one ``"sendrecv"`` plan per changed axis through
            intermediate arrays, the paper's multi-dimensional scheme; grids of
            the same shape and ranks), or ``"auto"`` (priced by the exchange
            engine's cost model of this MPI, the one ``datamotion calibrate``
            measures: ``"sendrecv"`` past 64 MiB per rank, else the cheaper of
            ``"nonblocking"`` and ``"alltoallw"``).
        model: accepted for compatibility and ignored (a ``DeprecationWarning``):
            ``"auto"`` no longer has a latency/bandwidth model of its own.
        comm: an mpi4py communicator containing both grids' ranks, for arrays on
            different groups of ranks.
        transpose: ``False``; ``True`` or ``"T"``: ``dst`` receives ``src``
            transposed (its axes reversed, NumPy's ``src.T``: ``dst``'s shape is
            ``src``'s reversed), planned so that the transposition costs no extra
            pass; ``"H"``: transposed and conjugated (complex types; ``"T"`` for
            others). Not with ``comm`` nor ``method="per-axis"``.
        executor: how the messages travel: ``"auto"`` (each side of each message
            priced by a cost model of this MPI, the transports taking what they
            pay for), or the name of a transport or a forced way, one of
            ``datamotion.Exchange.EXECUTORS`` (docs/exchange.md says what each does);
            :meth:`describe` tells what was chosen and why.
    """

    @collective("RedistPlan")
    def __init__(self, src: Optional[DistArray], dst: Optional[DistArray], method: str = "auto",
                 model: Optional[Mapping[str, Any]] = None, comm=None, executor: str = "auto",
                 transpose: Union[bool, str] = False):
        problems = LocalProblems()
        if transpose not in _TRANSPOSES:
            problems.report(DM_ERR_ARG, f"RedistPlan: transpose must be False, True, 'T' or 'H', got {transpose!r}")
            transpose = False
        if transpose and comm is not None:
            problems.report(DM_ERR_ARG, "RedistPlan: transpose is for arrays on grids of the same ranks, not with comm")
        self._conjugate = transpose == "H" and src is not None and np.issubdtype(np.dtype(src.dtype),
                                                                                  np.complexfloating)
        self._dtype = np.dtype(src.dtype) if isinstance(src, DistArray) else (
            np.dtype(dst.dtype) if isinstance(dst, DistArray) else None)
        executor = problems.attempt("executor", lambda: executor_name(executor), default="auto")
        code = METHODS.index(method) if method in METHODS else 0
        if method not in METHODS:
            problems.report(DM_ERR_ARG, f"unknown method {method!r}; choose from {', '.join(METHODS)}")
        if model is not None:
            warnings.warn("RedistPlan(model=...) is ignored: 'auto' is priced by the exchange cost model "
                          "(datamotion calibrate)", DeprecationWarning, stacklevel=3)
        if comm is None and (src is None or dst is None):
            problems.report(DM_ERR_ARG, "RedistPlan: src and dst are needed on every rank unless comm is given")
        for name, a in (("src", src), ("dst", dst)):
            if a is not None and not isinstance(a, DistArray):
                problems.report(DM_ERR_ARG, f"RedistPlan: {name} must be a DistArray or None, got {type(a).__name__}")
        known = comm if comm is not None else next((a.grid.comm for a in (src, dst) if isinstance(a, DistArray)), None)
        if known is None:  # no communicator to tell the others with
            raise Error(DM_ERR_ARG, "RedistPlan: src and dst are needed on every rank unless comm is given")
        self._comm = known
        _core.agree(known, *(problems.problem or (DM_ERR_ARG, None)))
        if comm is None:
            self._plan = _core.Redist(src._a, dst._a, code, executor, bool(transpose))
        else:
            self._plan = _core.Redist(comm, src._a if src is not None else None, dst._a if dst is not None else None,
                                      code, executor)

    def execute(self, src: Optional[DistArray], dst: Optional[DistArray], alpha=1, beta=0) -> Optional[DistArray]:
        """Collective. Copies every element of ``src`` into ``dst`` (arrays of the
        planned layouts, not the same array; ``None`` where this rank holds no
        such array, for plans with ``comm``) and returns ``dst``; with ``alpha``
        and ``beta`` (numbers, the same on every rank), ``dst = alpha op(src) +
        beta dst`` on the way, ``op`` the plan's transposition (ScaLAPACK's
        ``p?tran``): one pass over ``dst`` after the data lands (in scratch memory
        of ``dst``'s local size where ``beta`` is not 0; ``beta`` 0 never reads
        ``dst``, ``alpha`` 0 moves nothing and reads no ``src``). Not for bool
        arrays nor ``"per-axis"`` plans."""
        if alpha == 1 and beta == 0 and not self._conjugate:
            self.start(src, dst).wait()
            return dst
        problem = next((f"RedistPlan.execute: {name} must be a DistArray or None, got {type(a).__name__}"
                        for name, a in (("src", src), ("dst", dst)) if a is not None and not isinstance(a, DistArray)),
                       None)
        if problem is None and not all(isinstance(x, numbers.Number) for x in (alpha, beta)):
            problem = f"RedistPlan.execute: alpha and beta must be numbers, got {alpha!r} and {beta!r}"
        if problem is None and self._dtype == np.bool_:
            problem = "RedistPlan.execute: bool values cannot be scaled (alpha and beta are for numbers)"
        if problem is None and self.method == "per-axis":
            problem = "RedistPlan.execute: alpha and beta need a single-stage plan, not 'per-axis'"
        _core.hot_path(self._comm, "RedistPlan.execute", DM_ERR_ARG, problem)
        self._plan.execute_scaled(src._a if src is not None else None, dst._a if dst is not None else None,
                                  complex(alpha), complex(beta), self._conjugate)
        return dst

    def start(self, src: Optional[DistArray], dst: Optional[DistArray]) -> Exchange:
        """Collective. Starts :meth:`execute` and returns, the part that stays on this
        rank copied; ``wait()`` on the result completes it. Meanwhile do not write
        ``src`` nor touch ``dst``."""
        problem = next((f"RedistPlan.execute: {name} must be a DistArray or None, got {type(a).__name__}"
                        for name, a in (("src", src), ("dst", dst)) if a is not None and not isinstance(a, DistArray)),
                       None)
        _core.hot_path(self._comm, "RedistPlan.execute", DM_ERR_ARG, problem)
        plan = self._plan
        plan.begin(src._a if src is not None else None, dst._a if dst is not None else None)
        return Exchange(plan.end, (plan, src, dst), plan.test)

    def describe(self) -> str:
        """Local. The method, and how this rank's messages travel (executor per
        message) and why."""
        return self._plan.describe()

    @property
    def method(self) -> str:
        """The method in use (``"auto"`` resolved)."""
        return METHODS[self._plan.method]

    def messages(self) -> List[dict]:
        """Local. This rank's messages and local copies, stage after stage, each with
        its peer, round, bytes, contiguous runs and direction (see
        :func:`datamotion.measure.programs.plan_time`)."""
        return message_shapes(self._plan)

    def volume(self) -> dict:
        """Local. What one execution moves on this rank: ``messages_sent``,
        ``messages_received``, ``elements_sent`` and communication ``phases``."""
        sent, received, elements, phases = self._plan.volume()
        return {"messages_sent": sent, "messages_received": received, "elements_sent": elements, "phases": phases}


@collective("redistribute")
def redistribute(a: DistArray, dist: DistSpec = None, grid: Optional[ProcessGrid] = None, method: str = "auto",
                 ghost=None) -> DistArray:
    """Collective. A copy of ``a`` with distribution ``dist`` (default: ``a``'s)
    on ``grid`` (default: ``a``'s grid; any grid over the same ranks), with
    ``ghost`` widths (default: ``a``'s, which any layout of its shape can hold;
    ``ghost=0`` for none). The ghosts are allocated, not filled: a :class:`Halo`
    fills them. The :class:`RedistPlan` that moves it is kept for the next
    call with arrays of the same layouts (on ``a``'s grid, freed with it)."""
    if not isinstance(a, DistArray):
        raise Error(DM_ERR_ARG, f"redistribute: expected a DistArray, got {type(a).__name__}")
    target = grid if grid is not None else a.grid
    out = DistArray._to_overwrite(target, a.shape, a.dtype, dist if dist is not None else list(a.dist),
                                  ghost if ghost is not None else list(a.ghost))
    key = ("redist", layout_key(a), id(target), layout_key(out), method)
    plan, _ = cached(a.grid, key, lambda: (RedistPlan(a, out, method), target))  # target kept: its id stays unique
    return plan.execute(a, out)
