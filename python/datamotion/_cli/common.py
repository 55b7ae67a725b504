"""What the commands share: the error a user can fix, the exit statuses, this
process's rank, one line on rank 0, and output written by rank 0 alone."""

from __future__ import annotations

import contextlib
import io
import sys
from typing import Optional

from .. import launch

EXIT_ERROR = 1  # a mistake in a file, a path, or a run
EXIT_USAGE = 2  # a mistake on the command line (as argparse)
EXIT_INTERRUPTED = launch.INTERRUPTED  # 128 + SIGINT, as a shell reports it


class CommandError(Exception):
    """A mistake the user can fix, raised alike on every rank that runs the command:
    rank 0 says it in one line, every rank exits with ``status``."""

    def __init__(self, message: str, status: int = EXIT_ERROR):
        super().__init__(message)
        self.status = status


def current_rank() -> Optional[int]:
    """This process's rank in COMM_WORLD if MPI runs, else the launcher's, else None (no job)."""
    MPI = sys.modules.get("mpi4py.MPI")
    if MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        return MPI.COMM_WORLD.rank
    return launch.job_rank()


def fail(message: str, status: int = EXIT_ERROR, prefix: str = "datamotion: error: ") -> None:
    """Ends the command with ``status``: rank 0 (or a process outside any job) says
    ``message`` in one line on stderr, the other ranks say nothing. Status 1 is a
    SystemExit carrying the line, as the interpreter prints it."""
    line = prefix + " ".join(message.split("\n")[:1])
    if current_rank() not in (None, 0):
        raise SystemExit(status)
    if status == EXIT_ERROR:
        raise SystemExit(line)
    sys.stderr.write(line + "\n")
    sys.stderr.flush()
    raise SystemExit(status)


@contextlib.contextmanager
def rank0_prints():
    """An offline command run by every rank of a job: only rank 0's output is shown."""
    if current_rank() in (None, 0):
        yield
    else:
        with contextlib.redirect_stdout(io.StringIO()):
            yield


def start_mpi(thread_level: str):
    """Initialises MPI at ``thread_level`` (one of THREAD_LEVELS) unless this
    process already runs MPI (a program that imported mpi4py.MPI before calling
    main()); returns mpi4py's MPI module. MPI4PY_RC_THREAD_LEVEL overrides
    mpi4py.rc, so the level is put in both."""
    import os

    if "mpi4py.MPI" not in sys.modules:
        import mpi4py
        mpi4py.rc.thread_level = thread_level
        os.environ["MPI4PY_RC_THREAD_LEVEL"] = thread_level
    from mpi4py import MPI
    return MPI


def written(write, path: str) -> Optional[str]:
    """Runs ``write()``; returns None, or the one line saying why ``path`` was not written."""
    try:
        write()
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    return None
