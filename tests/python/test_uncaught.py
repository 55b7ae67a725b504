"""An exception that escapes a program: an uncaught datamotion.Error is one line on
stderr from one rank, with its status, whether every rank raised it or one rank
alone, and the job ends with a non-zero status instead of hanging;
DATAMOTION_DEBUG=1 shows the traceback instead."""

import os
import subprocess
import sys

import pytest

from dmtest import job_environment, mpiexec_command

_EVERY_RANK = r"""
import numpy as np
import datamotion as dm
grid = dm.ProcessGrid()
dm.DistArray.zeros(grid, (12,), dist=dm.BlockCyclic(0))  # every rank raises
"""

_ONE_RANK = r"""
import numpy as np
import datamotion as dm
grid = dm.ProcessGrid()
a = dm.DistArray.zeros(grid, (4,), np.float64)
if grid.rank == grid.size - 1:
    a.axis_map(5)  # a Local call: this rank raises alone
a.to_global()  # the other ranks wait here for it
print("NOT ENDED", flush=True)
"""


def _run(script: str, nprocs: int, folder, **env: str) -> subprocess.CompletedProcess:
    """The job's result, stdout and stderr apart; the timeout is a hang guard."""
    command = mpiexec_command(nprocs)
    if command is None:
        pytest.skip("no mpiexec")
    path = os.path.join(str(folder), "job.py")
    with open(path, "w") as f:
        f.write(script)
    return subprocess.run([*command, sys.executable, path], env=job_environment(**env), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)


def _lines(text: str) -> list:
    return [line for line in text.splitlines() if line.strip()]


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("nprocs", [1, 2])
def test_an_error_every_rank_raises_is_one_line(tmp_path, nprocs):
    done = _run(_EVERY_RANK, nprocs, tmp_path)
    assert done.returncode != 0
    ending = "; ending the job" if nprocs > 1 else ""
    assert _lines(done.stderr) == ["datamotion: error: axis 0: block size must be positive, got 0 [DM_ERR_ARG] "
                                   f"(job.py:5; DATAMOTION_DEBUG=1 shows the traceback){ending}"]


@pytest.mark.parallel(nprocs=[1])
def test_an_error_one_rank_raises_alone_is_its_line_and_ends_the_job(tmp_path):
    done = _run(_ONE_RANK, 2, tmp_path)
    assert done.returncode != 0
    assert "NOT ENDED" not in done.stdout
    assert _lines(done.stderr) == ["datamotion: error on rank 1 of 2: axis_map: axis 5 out of range [0, 1) "
                                   "[DM_ERR_ARG] (job.py:7; DATAMOTION_DEBUG=1 shows the traceback); ending the job"]


@pytest.mark.parallel(nprocs=[1])
def test_datamotion_debug_shows_one_traceback(tmp_path):
    done = _run(_EVERY_RANK, 2, tmp_path, DATAMOTION_DEBUG="1")
    assert done.returncode != 0
    assert done.stderr.count("Traceback (most recent call last)") == 1, done.stderr
    assert "datamotion.Error: axis 0: block size must be positive, got 0 [DM_ERR_ARG]" in done.stderr
    assert "_errors" not in done.stderr
