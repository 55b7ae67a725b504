"""Another MPI's launcher stops a program in one line before MPI starts
(datamotion/_launchers.py): unit tests on made-up environments, a fresh import
under a faked foreign launcher, and, where Debian's Open MPI is installed beside
an MPICH build, a real run under Open MPI's mpiexec."""

import os
import shutil
import subprocess
import sys

import pytest

from datamotion import _built_with
from datamotion._launchers import foreign_launcher, matching_launcher, mpi_family

pytestmark = pytest.mark.parallel(nprocs=[1])

MPICH = "MPICH 5.0.2"
OPEN_MPI = "Open MPI 4.1.4"
HYDRA = {"PMI_RANK": "0", "PMI_SIZE": "2", "PMI_FD": "9", "HYDI_CONTROL_FD": "7"}
OPEN_MPI_RUN = {"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "0", "PMIX_RANK": "0"}
SRUN_PMIX = {"SLURM_PROCID": "0", "PMIX_RANK": "0"}
SRUN_PMI2 = {"SLURM_PROCID": "0", "PMI_RANK": "0", "PMI_FD": "5"}


@pytest.mark.parametrize("mpi,environ,launcher", [
    (MPICH, OPEN_MPI_RUN, "Open MPI's mpiexec"),
    (MPICH, SRUN_PMIX, "Slurm's srun with PMIx"),
    (MPICH, {"PMIX_RANK": "3"}, "a PMIx launcher"),
    ("Intel MPI 2021.10.0", OPEN_MPI_RUN, "Open MPI's mpiexec"),
    (OPEN_MPI, HYDRA, "MPICH's mpiexec (Hydra)"),
], ids=["mpich-under-openmpi", "mpich-under-srun-pmix", "mpich-under-pmix", "intel-under-openmpi",
        "openmpi-under-hydra"])
def test_a_foreign_launcher_is_named(mpi, environ, launcher):
    assert foreign_launcher(environ, mpi).name == launcher


@pytest.mark.parametrize("mpi,environ", [
    (MPICH, {}), (OPEN_MPI, {}),                 # no launcher: a singleton
    (MPICH, HYDRA), (MPICH, SRUN_PMI2),          # MPICH's own launchers
    (OPEN_MPI, OPEN_MPI_RUN), (OPEN_MPI, SRUN_PMIX),
    (OPEN_MPI, SRUN_PMI2),                       # an Open MPI built for Slurm's PMI-2 may run so
    ("MPI 3.1 (/opt/mpi/include/mpi.h)", OPEN_MPI_RUN),  # an MPI we cannot tell
], ids=["mpich-singleton", "openmpi-singleton", "mpich-hydra", "mpich-srun-pmi2", "openmpi-mpiexec",
        "openmpi-srun-pmix", "openmpi-srun-pmi2", "unknown-mpi"])
def test_a_matching_launcher_or_none_passes(mpi, environ):
    assert foreign_launcher(environ, mpi) is None


def test_the_advice_names_the_launcher_that_exists():
    assert matching_launcher(MPICH, sys.executable, {}) == sys.executable
    assert matching_launcher(OPEN_MPI, "/no/such/mpiexec", {}).endswith("mpiexec")
    assert matching_launcher(MPICH, "/no/such/mpiexec", SRUN_PMIX).startswith("srun --mpi=pmi2 (or ")


def clean_environment(**extra):
    """This process's environment without the variables of the launcher that started
    the tests, plus ``extra``."""
    prefixes = ("PMI_", "PMIX_", "HYDI_", "HYDRA_", "OMPI_COMM_", "SLURM_", "MPI_LOCAL")
    env = {k: v for k, v in os.environ.items() if not k.startswith(prefixes)}
    env.update(extra)
    return env


def foreign_to_this_build():
    """Variables of a launcher foreign to the MPI this datamotion was built with."""
    return {"MPICH": OPEN_MPI_RUN, "Open MPI": HYDRA}.get(mpi_family(_built_with.MPI))


@pytest.mark.parametrize("rank", ["0", "1"])
def test_importing_under_a_foreign_launcher_exits_in_one_line_from_rank_0(rank):
    environ = foreign_to_this_build()
    if environ is None:
        pytest.skip(f"no foreign launcher is known for {_built_with.MPI}")
    environ = {**environ, "OMPI_COMM_WORLD_RANK": rank, "PMI_RANK": rank}
    done = subprocess.run([sys.executable, "-c", "import datamotion; print('imported')"],
                          env=clean_environment(**environ), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and not done.stdout, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    if rank == "0":
        assert len(lines) == 1 and lines[0].startswith(f"datamotion: this Python's datamotion uses {_built_with.MPI}")
        assert "launch it with" in lines[0]
    else:
        assert lines == []
    skipped = subprocess.run([sys.executable, "-c", "import datamotion; print('imported')"],
                             env=clean_environment(DATAMOTION_LAUNCHER_CHECK="0", **environ),
                             capture_output=True, text=True, timeout=60)
    assert skipped.stdout.strip() == "imported", skipped.stderr


OPEN_MPI_MPIEXEC = "/usr/bin/mpiexec.openmpi"


@pytest.mark.skipif(mpi_family(_built_with.MPI) != "MPICH" or not shutil.which(OPEN_MPI_MPIEXEC),
                    reason="needs an MPICH build and Debian's Open MPI beside it")
def test_open_mpis_mpiexec_around_mpich_is_one_line():
    env = clean_environment(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    done = subprocess.run([OPEN_MPI_MPIEXEC, "--oversubscribe", "--quiet", "-n", "2", sys.executable, "-c",
                           "import datamotion as dm; dm.ProcessGrid(dims=1)"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0, done.stderr
    ours = [line for line in done.stderr.splitlines() if line.startswith("datamotion: ")]
    assert len(ours) == 1 and "Open MPI's mpiexec started it" in ours[0], done.stderr
    assert "PMI" not in done.stderr, done.stderr  # no MPICH error stack (unsupported PMI version)
