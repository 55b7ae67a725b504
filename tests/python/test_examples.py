"""The examples of examples/python run inside the test launch, checked against NumPy."""

import importlib
import sys
from pathlib import Path

import pytest

from dmtest import MAIN, WITH_8, WORLD, check_all

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples" / "python"))


@pytest.mark.parallel(nprocs=WITH_8)
@pytest.mark.parametrize("name", ["stencil_5point", "stencil_27point", "qcd_exchange"])
def test_pshift_examples_match_numpy(name):
    check_all(WORLD, importlib.import_module(name).run(WORLD), f"{name} differs from NumPy")


@pytest.mark.parallel(nprocs=MAIN)
def test_pshift_example_on_a_split_communicator():
    # Half of the ranks run the stencil on their own communicator.
    half = WORLD.Split(WORLD.rank % 2, WORLD.rank)
    try:
        check_all(WORLD, importlib.import_module("stencil_5point").run(half, shape=(9, 7)), "stencil on a split")
    finally:
        half.Free()


@pytest.mark.parallel(nprocs=[1])
def test_an_example_started_without_mpiexec_says_so():
    # A child without the launcher's variables: as if started with plain `python`.
    import subprocess

    from dmtest import launcher_free_environment

    env = launcher_free_environment()
    note = "from datamotion.launch import note_if_not_launched; note_if_not_launched('stencil.py')"
    alone = subprocess.run([sys.executable, "-c", note], env=env, capture_output=True, text=True, timeout=60)
    assert alone.returncode == 0 and "running on 1 rank" in alone.stderr and "mpiexec -n 4" in alone.stderr, alone
    launched = subprocess.run([sys.executable, "-c", note], env={**env, "PMI_RANK": "0"}, capture_output=True,
                              text=True, timeout=60)
    assert launched.returncode == 0 and launched.stderr == "", launched


@pytest.mark.parallel(nprocs=[1])
def test_scatter_gather_prints_in_rank_order():
    # Rank 0 prints every rank's line: whole lines, in rank order, whatever the launcher does.
    import subprocess

    from dmtest import job_environment, mpiexec_command

    command = mpiexec_command(4)
    if command is None:
        pytest.skip("no mpiexec")
    example = Path(__file__).resolve().parents[2] / "examples" / "python" / "scatter_gather.py"
    done = subprocess.run([*command, sys.executable, str(example)], env=job_environment(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" at ")[0] for line in lines[:4]] == [f"rank {r}" for r in range(4)], done.stdout
    assert lines[4:] == ["gathered 9 x 10 matrix: every element doubled, ok",
                         "expected error on every rank: axis 0: block size must be positive, got 0 [DM_ERR_ARG]"], lines
