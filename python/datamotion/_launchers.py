"""Stops a program that another MPI's launcher started, before MPI starts.

A process holds one MPI library: the one this datamotion was built with (and
mpi4py loads the same; ``_mpi`` checks that once MPI runs). Started by another
MPI's launcher, that library cannot reach it (MPICH speaks PMI-1/2 to Hydra or
``srun --mpi=pmi2``; Open MPI speaks PMIx to its own ``mpiexec``), and every rank
fails inside MPI_Init with a screenful of the library's errors. Here the
launcher is read from the environment it leaves in each rank and, when it is a
foreign one, rank 0 says in one line which launcher to use and every rank exits.

Nothing here imports MPI. ``DATAMOTION_LAUNCHER_CHECK=0`` skips the check (for
an MPICH built with PMIx support, say, which ``srun --mpi=pmix`` may start).
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import Mapping, NamedTuple, Optional, Tuple

SKIP_VARIABLE = "DATAMOTION_LAUNCHER_CHECK"


class Launcher(NamedTuple):
    """A launcher as its ranks see it."""
    name: str   # in words, as the message says it
    shown_by: str  # the variable that gives it away
    rank: str   # the variable holding this process's rank


def mpi_family(mpi: str) -> Optional[str]:
    """"MPICH" or "Open MPI" for an MPI as the build recorded it ("MPICH 5.0.2",
    "Intel MPI 2021.10", "Open MPI 4.1.4"); None for another."""
    if mpi.startswith(("MPICH", "Intel MPI", "MVAPICH")):
        return "MPICH"
    if mpi.startswith("Open MPI"):
        return "Open MPI"
    return None


def foreign_launcher(environ: Mapping[str, str], mpi: str) -> Optional[Launcher]:
    """The launcher that started this process when the library ``mpi`` cannot run
    under it; None when it can, when no launcher started the process, or when the
    environment does not tell."""
    def first(*names: str) -> Optional[str]:
        return next((name for name in names if name in environ), None)

    family = mpi_family(mpi)
    if family == "MPICH" and not first("PMI_FD", "PMI_PORT"):
        if first("OMPI_COMM_WORLD_SIZE"):
            return Launcher("Open MPI's mpiexec", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK")
        if first("PMIX_RANK") and first("SLURM_PROCID"):
            return Launcher("Slurm's srun with PMIx", "PMIX_RANK", "PMIX_RANK")
        if first("PMIX_RANK"):
            return Launcher("a PMIx launcher", "PMIX_RANK", "PMIX_RANK")
    # Slurm's PMI-2 (PMI_FD under srun) can serve an Open MPI built for it: only Hydra is sure.
    if family == "Open MPI" and not first("PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "SLURM_PROCID"):
        shown = first("HYDI_CONTROL_FD", "PMI_FD", "PMI_PORT")
        if shown:
            return Launcher("MPICH's mpiexec (Hydra)", shown, "PMI_RANK")
    return None


def recorded_mpi() -> Tuple[str, str]:
    """The MPI this datamotion was built with and the mpiexec its build found, as the
    build recorded them (module ``_built_with``); empty in a source tree never built."""
    try:
        from . import _built_with
    except ImportError:
        return "", ""
    return _built_with.MPI, _built_with.MPIEXEC


def build_mpiexec(built_with_mpiexec: Optional[str] = None) -> Optional[str]:
    """The mpiexec of the MPI this datamotion was built with: the one its build
    found (``built_with_mpiexec``, by default as recorded) where it still exists,
    else the one installed beside this Python (the mpich wheel's); None when
    neither exists."""
    if built_with_mpiexec is None:
        built_with_mpiexec = recorded_mpi()[1]
    beside = shutil.which("mpiexec", path=os.path.dirname(sys.executable))
    return next((p for p in (built_with_mpiexec, beside) if p and os.path.isfile(p)), None)


def matching_launcher(mpi: str, built_with_mpiexec: str, environ: Mapping[str, str]) -> str:
    """What to launch with instead, in words: the build's mpiexec (build_mpiexec),
    or the MPI's own; under Slurm, srun with the PMI the MPI speaks first."""
    family = mpi_family(mpi) or mpi
    mpiexec = build_mpiexec(built_with_mpiexec) or f"{family}'s mpiexec"
    if "SLURM_PROCID" in environ:
        pmi = "pmi2" if family == "MPICH" else "pmix"
        return f"srun --mpi={pmi} (or {mpiexec})"
    return mpiexec


def check_launcher(environ: Mapping[str, str] = os.environ) -> None:
    """Exits the process (status 1; rank 0 says why in one line on stderr) when
    another MPI's launcher started it; returns otherwise."""
    if environ.get(SKIP_VARIABLE, "1") == "0":
        return
    mpi, mpiexec = recorded_mpi()
    launcher = foreign_launcher(environ, mpi)
    if launcher is None:
        return
    if environ.get(launcher.rank, "0") == "0":
        sys.stderr.write(f"datamotion: this Python's datamotion uses {mpi}, but {launcher.name} started it "
                         f"({launcher.shown_by} is set); launch it with {matching_launcher(mpi, mpiexec, environ)}\n")
        sys.stderr.flush()
    raise SystemExit(1)
