"""Exchanges in flight: what ``Halo.start``, ``PShift.start`` and ``RedistPlan.start``
return, so that a program computes while its messages travel."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional

from ._mpi import _core  # through _mpi: MPI's thread level settled, the same MPI checked
from ._errors import DM_ERR_ARG, Error

# From the registry of transports (src/exchange/transports.cpp), those executor= may name.
EXECUTORS = tuple(_core.exchange_executors())


def executor_name(executor: Any) -> str:
    """``executor`` checked: one of :data:`EXECUTORS` (the same on every rank)."""
    if executor not in EXECUTORS:
        raise Error(DM_ERR_ARG, f"unknown executor {executor!r}; choose from {', '.join(EXECUTORS)}")
    return executor


def message_shapes(core_plan: Any) -> List[Dict[str, Any]]:
    """A plan's messages on this rank as a cost model sees them: ``peer``, ``round``,
    ``bytes``, ``runs`` (contiguous runs of memory on this side), ``sending``
    (True: this rank sends it) and ``transport`` (the one planned for it:
    ``"onnode"`` where the receiver copies it out of the sender's memory, an MPI
    way such as ``"point to point"`` otherwise), one dict per message, then one per
    local copy (``peer`` -1, transport ``"copy"``); ``way`` and ``pieces``: how MPI
    carries it on this side (``"direct"``, ``"packed"`` or ``"datatype"``, in
    ``pieces`` MPI messages; on-node, the way it falls back to), as ``describe()``
    says; ``""`` and 0 for a copy or a message another transport carries (aggregate). What :mod:`datamotion.measure.programs`
    prices."""
    return [{"peer": peer, "round": rnd, "bytes": nbytes, "runs": runs, "sending": sending, "transport": transport,
             "way": way, "pieces": pieces}
            for peer, rnd, nbytes, runs, sending, transport, way, pieces in core_plan.messages()]


class Exchange:
    """An exchange in flight. :meth:`wait` completes it (collective, like the call
    that started it); until then the arrays it writes must not be read, nor those
    it reads written. As a context manager it waits on leaving the block::

        with halo.start(u):
            interior = update(u.local[1:-1, 1:-1])   # while the ghosts travel
    """

    #: The names ``executor=`` takes, from the library's registry of transports:
    #: ``"auto"``, then each transport or forced way (docs/exchange.md).
    EXECUTORS = EXECUTORS

    __slots__ = ("_end", "_keep", "_test")  # made on every start(): kept small

    def __init__(self, end: Callable[[], None], keep: Any, test: Optional[Callable[[], bool]] = None):
        self._end: Optional[Callable[[], None]] = end
        self._keep = keep  # the plan and arrays, alive until the exchange completes
        self._test = test

    @property
    def done(self) -> bool:
        """Whether :meth:`wait` has completed the exchange."""
        return self._end is None

    def test(self) -> bool:
        """Local. Advances the exchange without waiting: copies what ranks on this
        node have made ready and unpacks the messages that have arrived. True once
        only :meth:`wait`'s bookkeeping is left (``wait()`` is still required). Call
        it between pieces of computation, so that the exchange advances while the
        program computes, without an MPI progress thread::

            ex = halo.start(u)
            for rows in slabs:
                update(rows)
                ex.test()
            ex.wait()
        """
        if self._end is None:
            return True
        return bool(self._test()) if self._test is not None else False

    def wait(self) -> None:
        """Collective. Completes the exchange; waiting again does nothing."""
        end, self._end = self._end, None
        if end is not None:
            end()
        self._keep = None

    def __enter__(self) -> "Exchange":
        return self

    def __exit__(self, *exc) -> bool:
        self.wait()
        return False
