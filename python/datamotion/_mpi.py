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

In a job of more than one rank it also installs the behaviour of ``python -m
mpi4py``: an exception that escapes on one rank prints its traceback and ends the
job, instead of leaving the other ranks waiting in a collective call. Set
``DATAMOTION_ABORT_ON_EXCEPTION=0`` to keep Python's own handling.
"""

import os
import sys
import time

import mpi4py

LIBRARY_THREAD_LEVEL = "funneled"
"""The thread level datamotion initialises MPI at when the program chose none."""


def _program_chose_thread_level() -> bool:
    """True when the environment or mpi4py.rc (an attribute set on the instance
    rather than mpi4py's class default) says how MPI is to be initialised."""
    chosen = vars(mpi4py.rc)
    return (any(k in os.environ for k in ("MPI4PY_RC_THREAD_LEVEL", "MPI4PY_RC_THREADS", "MPI4PY_RC_INITIALIZE"))
            or any(k in chosen for k in ("thread_level", "threads", "initialize")))


if "mpi4py.MPI" not in sys.modules and not _program_chose_thread_level():
    mpi4py.rc.thread_level = LIBRARY_THREAD_LEVEL

from mpi4py import MPI  # noqa: E402  (after the thread level is settled)

from . import _core

_ours = _core.mpi_library_version().split("\n")[0].strip()
_theirs = MPI.Get_library_version().split("\n")[0].strip()
if _ours != _theirs or _core.comm_c2f(MPI.COMM_WORLD) != MPI.COMM_WORLD.py2f():
    raise ImportError(
        "datamotion was built against a different MPI than mpi4py uses "
        f"(datamotion: {_ours!r}; mpi4py: {_theirs!r}). Build both against one MPI: "
        "see docs/install.md, 'Using an MPI you already have'."
    )


def _end_the_job(exc_type, exc, tb):
    """An exception that escapes on one rank ends the whole job (as under ``python -m
    mpi4py``) instead of leaving the other ranks waiting in a collective call."""
    _print_exception(exc_type, exc, tb)
    rank, size = MPI.COMM_WORLD.Get_rank(), MPI.COMM_WORLD.Get_size()
    sys.stderr.write(f"datamotion: uncaught {exc_type.__name__} on rank {rank} of {size}; ending the job "
                     f"(DATAMOTION_ABORT_ON_EXCEPTION=0 leaves it to the program)\n")
    sys.stderr.flush()
    time.sleep(0.2)  # lets the launcher forward the message before MPI_Abort ends every process
    MPI.COMM_WORLD.Abort(1)


_print_exception = sys.excepthook
if (MPI.COMM_WORLD.Get_size() > 1 and os.environ.get("DATAMOTION_ABORT_ON_EXCEPTION", "1") != "0"
        and sys.excepthook is sys.__excepthook__):  # a hook the program installed stays
    sys.excepthook = _end_the_job
