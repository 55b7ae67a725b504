"""Loads MPI through mpi4py and checks that the extension calls the same library.

A process must hold exactly one MPI library. mpi4py is imported first, so its
libmpi is the one the extension's symbols resolve to; if the extension was
built against a different MPI the two disagree on communicator handles, which
is caught here with an explanation instead of failing later.
"""

from mpi4py import MPI

from . import _core

_ours = _core.mpi_library_version().split("\n")[0].strip()
_theirs = MPI.Get_library_version().split("\n")[0].strip()
if _ours != _theirs or _core.comm_c2f(MPI.COMM_WORLD) != MPI.COMM_WORLD.py2f():
    raise ImportError(
        "datamotion was built against a different MPI than mpi4py uses "
        f"(datamotion: {_ours!r}; mpi4py: {_theirs!r}). Build both against one MPI: "
        "see docs/install.md, 'Using an MPI you already have'."
    )
