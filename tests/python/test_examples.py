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
