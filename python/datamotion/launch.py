"""Starting datamotion programs on local ranks with the MPI's own launcher.

Nothing here imports MPI: a command decides first whether it already runs
inside an MPI job, and only otherwise starts one.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from typing import Dict, List, Mapping, Optional, Sequence

from ._launchers import build_mpiexec, recorded_mpi
from .measure.hosts import NODES_VARIABLE, emulated_nodes

# Variables that MPI launchers (Hydra, PMIx/Open MPI, MVAPICH, Slurm's PMI) set in every rank.
_JOB_VARIABLES = ("PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
                  "MV2_COMM_WORLD_SIZE")

# Ranks may outnumber cores: without these MPICH's progress engine busy-polls and
# an oversubscribed run slows down a hundredfold.
# Whether the command that relaunched itself writes to a terminal ("1" or "0"): its
# ranks cannot tell, as the launcher forwards their output through a pipe (MPICH) or
# a pseudo-terminal of its own (Open MPI) whatever the command's stdout is.
STDOUT_TERMINAL_VARIABLE = "DATAMOTION_STDOUT_TERMINAL"

MPICH_THROTTLE = {
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE": "1",
    "MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT": "16",
}


# Variables that hold this process's rank in the job, by launcher.
_RANK_VARIABLES = ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MV2_COMM_WORLD_RANK", "SLURM_PROCID")


def job_rank():
    """This process's rank as its launcher set it, without starting MPI; None outside a job."""
    for name in _RANK_VARIABLES:
        value = os.environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 0 if inside_mpi_job() else None


INTERRUPTED = 130  # the exit status of a command ended by Ctrl-C (128 + SIGINT)


def inside_mpi_job() -> bool:
    """True when this process was started by an MPI launcher."""
    return any(v in os.environ for v in _JOB_VARIABLES)


def note_if_not_launched(program: str, nprocs: int = 4) -> None:
    """Says on stderr, once, that ``program`` runs on one rank because it was started
    without an MPI launcher, and how to start it on ``nprocs`` ranks. For examples
    and scripts that mean to run on several ranks; a no-op inside an MPI job."""
    if inside_mpi_job():
        return
    mpiexec = os.environ.get("DATAMOTION_MPIEXEC") or build_mpiexec() or "mpiexec"
    print(f"{os.path.basename(program)}: running on 1 rank (started without mpiexec); for {nprocs} ranks: "
          f"{_shown(mpiexec)} -n {nprocs} {_shown(sys.executable)} {_shown(program)}", file=sys.stderr)


def _shown(path: str) -> str:
    """``path`` relative to the working directory where it lies below it, else as given."""
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    return path if relative.startswith("..") else relative


def find_mpiexec() -> str:
    """The launcher: $DATAMOTION_MPIEXEC, else the mpiexec of the MPI datamotion was
    built with (the one its build found, or the one installed beside this Python:
    the mpich wheel's), else the first on PATH."""
    explicit = os.environ.get("DATAMOTION_MPIEXEC")
    if explicit:
        return explicit
    found = build_mpiexec() or shutil.which("mpiexec")
    if not found:
        raise SystemExit("datamotion: no mpiexec found; install the 'mpich' package or set DATAMOTION_MPIEXEC")
    return found


def is_open_mpi(mpiexec: str) -> bool:
    """Whether the launcher ``mpiexec`` is Open MPI's (asked with ``--version``)."""
    try:
        text = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return False
    return "Open MPI" in text or "OpenRTE" in text


def launcher_flags(mpiexec: str, nprocs: int) -> List[str]:
    """Flags some launchers need: Open MPI's refuses more ranks than cores without
    --oversubscribe, and follows a rank's one-line error with a paragraph of its own
    unless --quiet."""
    if not is_open_mpi(mpiexec):
        return []
    return ["--quiet", *(["--oversubscribe"] if nprocs > (os.cpu_count() or 1) else [])]


def job_environment(nprocs: int, environ: Mapping[str, str] = os.environ) -> Dict[str, str]:
    """The environment of a job of ``nprocs`` local ranks: ``environ`` with MPICH's
    throttle, and where ``DATAMOTION_NODES=K`` is set, the variables that run the job
    as K emulated nodes (docs/hosts.md); ValueError, in one line, where K does not
    divide the ranks or the MPI is not MPICH."""
    env = dict(environ)
    for key, value in MPICH_THROTTLE.items():
        env.setdefault(key, value)
    if env.get(NODES_VARIABLE, "").strip():
        env.update(emulated_nodes(env[NODES_VARIABLE].strip(), nprocs, recorded_mpi()[0]))
    return env


def relaunch(nprocs: int, args: Sequence[str], mpiexec: Optional[str] = None) -> int:
    """Runs ``python -m datamotion ARGS`` on ``nprocs`` local ranks (as emulated nodes
    where ``DATAMOTION_NODES`` says so: :func:`job_environment`); returns its exit code."""
    env = job_environment(nprocs)
    env.setdefault(STDOUT_TERMINAL_VARIABLE, "1" if sys.stdout.isatty() else "0")
    mpiexec = mpiexec or find_mpiexec()
    command = [mpiexec, "-n", str(nprocs), *launcher_flags(mpiexec, nprocs),
               sys.executable, "-m", "datamotion", *args]
    job = subprocess.Popen(command, env=env)
    try:
        return job.wait()
    except KeyboardInterrupt:
        # Ctrl-C reached the launcher and its ranks too: let them end on their own
        # (rank 0 says so in one line), and only then make sure nothing is left behind.
        try:
            if job.wait(timeout=10) == INTERRUPTED:
                return INTERRUPTED
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            job.terminate()
            try:
                job.wait(timeout=5)
            except (KeyboardInterrupt, subprocess.TimeoutExpired):
                job.kill()
                job.wait()
        raise  # the job ended some other way: the command says it was interrupted
