"""What an exception that escapes a datamotion program prints, and how the job ends.

An uncaught ``datamotion.Error`` is one line, in the form of the C library's
one-line errors::

    datamotion: error: scatter: global array ... [DM_ERR_ARG] (prog.py:12; DATAMOTION_DEBUG=1 shows the traceback)

``DATAMOTION_DEBUG=1`` (or the command line's ``--debug``) prints the traceback
instead; any other exception prints its traceback, as Python does.

In a job of more than one rank the hook also ends the job, as ``python -m mpi4py``
does, so that an exception on one rank never leaves the others waiting in a
collective call. It uses no collective call (the other ranks may be anywhere):

- rank 0 speaks at once, then calls ``MPI_Abort``, which ends every process;
- any other rank first waits ``GRACE_S`` seconds. A collective call raises its
  ``datamotion.Error`` on every rank at the same moment, so rank 0 has ended the
  job meanwhile and only its line is printed. A rank still alive then raised
  alone (or before rank 0): it says so, naming itself, and calls ``MPI_Abort``.

``MPI_Abort`` is called with stderr closed (:func:`end_job`), since MPICH adds its
own line ("Abort(1) on node ...") to the one already printed; MPICH's
``MPIR_CVAR_SUPPRESS_ABORT_MESSAGE`` only empties that line, and its MPI_Abort can
return before the launcher's kill arrives, so the process then ends itself.
"""

from __future__ import annotations

import os
import sys
import time
import traceback

GRACE_S = 2.0
"""How long a rank other than 0 waits for rank 0 to end the job before speaking itself."""

FORWARD_S = 0.2
"""A moment for the launcher to forward the line before MPI_Abort ends every process."""

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def debugging() -> bool:
    """Whether DATAMOTION_DEBUG asks for tracebacks instead of one-line errors."""
    return os.environ.get("DATAMOTION_DEBUG", "") not in ("", "0")


def one_line(exc: BaseException, tb) -> str:
    """``message [DM_ERR_X] (file:line; ...)``: a datamotion.Error and where the program
    made the call that raised it (its innermost frame outside this package)."""
    where = None
    for frame, line in traceback.walk_tb(tb):
        path = os.path.abspath(frame.f_code.co_filename)
        if not path.startswith(_PACKAGE + os.sep):
            where = f"{os.path.basename(path)}:{line}"
    hint = "DATAMOTION_DEBUG=1 shows the traceback"
    return f"{exc} ({where}; {hint})" if where else f"{exc} ({hint})"


def _say(exc_type, exc, tb, rank: int, size: int) -> None:
    from ._errors import Error

    if isinstance(exc, Error) and not debugging():
        where = "" if rank == 0 else f" on rank {rank} of {size}"
        ending = "" if size == 1 else "; ending the job"
        sys.stderr.write(f"datamotion: error{where}: {one_line(exc, tb)}{ending}\n")
    else:
        sys.__excepthook__(exc_type, exc, tb)
        if size > 1:
            name = exc_type.__qualname__ if exc_type.__module__ == "builtins" else \
                f"{exc_type.__module__}.{exc_type.__qualname__}"
            sys.stderr.write(f"datamotion: uncaught {name} on rank {rank} of {size}; ending the job "
                             "(DATAMOTION_ABORT_ON_EXCEPTION=0 leaves it to the program)\n")
    sys.stderr.flush()


def install(MPI) -> None:
    """Makes ``sys.excepthook`` the hook above, unless the program installed a hook of
    its own or set DATAMOTION_ABORT_ON_EXCEPTION=0 (Python's own handling)."""
    if os.environ.get("DATAMOTION_ABORT_ON_EXCEPTION", "1") == "0" or sys.excepthook is not sys.__excepthook__:
        return
    world = MPI.COMM_WORLD

    def end_the_job(exc_type, exc, tb):
        running = MPI.Is_initialized() and not MPI.Is_finalized()
        rank, size = (world.Get_rank(), world.Get_size()) if running else (0, 1)
        if size == 1:
            _say(exc_type, exc, tb, rank, size)
            return
        if rank != 0:
            time.sleep(GRACE_S)  # rank 0, raising the same error, ends the job meanwhile
        _say(exc_type, exc, tb, rank, size)
        end_job(MPI, 1)

    sys.excepthook = end_the_job


def end_job(MPI, status: int) -> None:
    """Ends every process of the job after a line already printed and flushed: a moment
    for the launcher to forward it, then ``MPI_Abort`` with this process's stderr on
    /dev/null, so that MPICH's own "Abort(1) on node ..." line is not shown; then, should
    MPI_Abort return (MPICH's does, until the launcher's kill arrives), ``os._exit``, so
    that nothing more is printed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):  # closed, or replaced by something that cannot flush
            pass
    time.sleep(FORWARD_S)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    MPI.COMM_WORLD.Abort(status)
    os._exit(status)
