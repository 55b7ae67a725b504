"""Loads MPI through mpi4py and checks that the extension calls the same library.

A process must hold exactly one MPI library. mpi4py is imported first, so its
libmpi is the one the extension's symbols resolve to; if the extension was
built against a different MPI the two disagree on communicator handles, which
is caught here with an explanation instead of failing later.

Thread level: datamotion never asks for more than the program does. mpi4py
initialises MPI at MPI_THREAD_MULTIPLE unless told otherwise, and on MPICH that
level makes every MPI call take locks (small collectives 2-10x slower). So when
MPI is not yet initialised here and the program chose no level (neither
MPI4PY_RC_THREAD_LEVEL nor MPI4PY_RC_THREADS in the environment, nor
``mpi4py.rc.thread_level``, ``rc.threads`` or ``rc.initialize`` set), MPI is
initialised at LIBRARY_THREAD_LEVEL, "funneled": datamotion calls MPI from one
thread, and a Python process may run other threads that do not call MPI. A level
the program chose, or MPI already initialised (mpi4py.MPI imported first), is
kept. A program that calls MPI from several threads sets
``mpi4py.rc.thread_level = "multiple"`` (or MPI4PY_RC_THREAD_LEVEL=multiple)
before importing datamotion.

It also installs the handling of an exception that escapes the program
(datamotion._uncaught): an uncaught datamotion.Error is one line, and in a job of
more than one rank the exception ends the job, as under ``python -m mpi4py``,
instead of leaving the other ranks waiting in a collective call. Set
``DATAMOTION_ABORT_ON_EXCEPTION=0`` to keep Python's own handling.
"""

import os
import sys

import mpi4py

LIBRARY_THREAD_LEVEL = "funneled"
"""The thread level datamotion initialises MPI at when the program chose none."""

THREAD_LEVEL_SOURCE: str
"""Who chose the thread level MPI runs at, in words (``datamotion info`` shows it)."""


def _program_chose_thread_level() -> bool:
    """True when the environment or mpi4py.rc (an attribute set on the instance
    rather than mpi4py's class default) says how MPI is to be initialised."""
    chosen = vars(mpi4py.rc)
    return (any(k in os.environ for k in ("MPI4PY_RC_THREAD_LEVEL", "MPI4PY_RC_THREADS", "MPI4PY_RC_INITIALIZE"))
            or any(k in chosen for k in ("thread_level", "threads", "initialize")))


if "mpi4py.MPI" in sys.modules:
    THREAD_LEVEL_SOURCE = "mpi4py.MPI was imported before datamotion, at the level mpi4py was given"
elif _program_chose_thread_level():
    THREAD_LEVEL_SOURCE = "the program's choice (MPI4PY_RC_* or mpi4py.rc)"
else:
    mpi4py.rc.thread_level = LIBRARY_THREAD_LEVEL
    THREAD_LEVEL_SOURCE = ("datamotion's default where the program chooses none (mpi4py's own is multiple; "
                           "MPI4PY_RC_THREAD_LEVEL sets another)")

from mpi4py import MPI  # noqa: E402  (after the thread level is settled)

from . import _core, _uncaught

_ours = _core.mpi_library_version().split("\n")[0].strip()
_theirs = MPI.Get_library_version().split("\n")[0].strip()
if _ours != _theirs or _core.comm_c2f(MPI.COMM_WORLD) != MPI.COMM_WORLD.py2f():
    raise ImportError(
        "datamotion was built against a different MPI than mpi4py uses "
        f"(datamotion: {_ours!r}; mpi4py: {_theirs!r}). Build both against one MPI: "
        "see docs/install.md, 'Using an MPI you already have'."
    )


_uncaught.install(MPI)
