"""Mistakes made on one rank only never leave the others waiting (the issues' probes,
kept): a collective call that one rank makes alone ends at its deadline naming the
call; ranks in different calls are told which; a value that differs is shown as two
ranks hold it; a Local constructor given different lengths fails at the next
collective call. In checked mode a hot path's mistake is the same datamotion.Error on every
rank; by default it ends the job at once naming the rank, the call and the mistake;
an exception escaping on one rank ends the job; values that cannot be represented
are refused instead of truncated; result files are written whole or not at all."""

import json
import os
import re

import numpy as np
import pytest

import datamotion as dm
from datamotion import _core, redist
from datamotion._files import atomic_write, require_writable_file, require_writable_folder
from dmtest import MAIN, WORLD, check_same_array, raises_everywhere, run_job

LAST = WORLD.size - 1
ODD = WORLD.rank == LAST and WORLD.size > 1  # the rank that makes the mistake
CHECKED = _core.checked_mode()


def _arrays():
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.arange(11.0), ghost=1)
    b = dm.DistArray.zeros(grid, (11,), np.float64, ghost=1)
    other = dm.DistArray.zeros(grid, (11,), np.float32, ghost=1)  # another element type
    return grid, a, b, other


@pytest.mark.parallel(nprocs=MAIN)
def test_hot_path_mistakes_on_one_rank_fail_everywhere_in_checked_mode():
    if not CHECKED:
        pytest.skip("outside checked mode these end the job: test_hot_path_mistakes_end_the_job")
    grid, a, b, other = _arrays()
    plan = dm.PShift(a, [dm.CShift(1, axis=0), dm.CShift(-1, axis=0)])
    halo = dm.Halo(a)
    move = redist.RedistPlan(a, b)
    if WORLD.size > 1:
        c = dm.DistArray.zeros(grid, (11,), np.float64, ghost=1)
        raises_everywhere(WORLD, lambda: plan.execute([b] if ODD else [b, c], [a, a]), "DM_ERR_ARG",
                          "the plan has 2 shifts but got 1 destinations")
        raises_everywhere(WORLD, lambda: plan([a, other if ODD else a]), "DM_ERR_ARG", "differs from the prototype")
        raises_everywhere(WORLD, lambda: halo.exchange(other if ODD else a), "DM_ERR_ARG",
                          "differs from the prototype")
        raises_everywhere(WORLD, lambda: halo.exchange("a" if ODD else a), "DM_ERR_ARG", "expected DistArray")
        raises_everywhere(WORLD, lambda: move.execute(a, a if ODD else b), "DM_ERR_ARG", "different arrays")
    # Everything still works afterwards.
    halo.exchange(a)
    check_same_array(WORLD, move.execute(a, b).to_global(), np.arange(11.0), "redistributed")
    shifted = plan([a, a])
    check_same_array(WORLD, shifted[0].to_global(), np.roll(np.arange(11.0), -1), "shifted")


_HOT_PATH_MISTAKE = r"""
import numpy as np
import datamotion as dm
from datamotion import redist
from mpi4py import MPI
odd = MPI.COMM_WORLD.rank == MPI.COMM_WORLD.size - 1
grid = dm.ProcessGrid()
a = dm.DistArray.from_global(grid, np.arange(11.0), ghost=1)
b = dm.DistArray.zeros(grid, (11,), np.float64, ghost=1)
other = dm.DistArray.zeros(grid, (11,), np.float32, ghost=1)
case = "{case}"
if case == "pshift-list":
    dm.PShift(a, [dm.CShift(1, axis=0), dm.CShift(-1, axis=0)]).execute([b] if odd else [b, a], [a, a])
elif case == "pshift-dtype":
    dm.PShift(a, [dm.CShift(1, axis=0)]).execute([b], [other if odd else a])
elif case == "halo":
    dm.Halo(a).exchange(other if odd else a)
elif case == "redist":
    redist.RedistPlan(a, b).execute(a, a if odd else b)
MPI.COMM_WORLD.Barrier()  # ranks that had nothing to receive wait here for the one that ends the job
print("NOT ENDED", flush=True)
"""

_HOT_PATH_CASES = {
    "pshift-list": "PShift.execute: pshift: the plan has 2 shifts but got 1 destinations",
    "pshift-dtype": "pshift execute: pshift: shift 0: source differs from the prototype",
    "halo": "halo exchange: halo: the array differs from the prototype",
    "redist": "redist execute: redist: source and destination must be different arrays",
}


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("case", sorted(_HOT_PATH_CASES))
@pytest.mark.parametrize("nprocs", [2, 3])
def test_hot_path_mistakes_end_the_job(tmp_path, case, nprocs):
    done = run_job(_HOT_PATH_MISTAKE.replace("{case}", case), nprocs, tmp_path, DATAMOTION_CHECK="0")
    assert done.returncode != 0, done.stdout
    assert "NOT ENDED" not in done.stdout, done.stdout
    expected = f"datamotion: error on rank {nprocs - 1} of {nprocs}: {_HOT_PATH_CASES[case]}"
    _one_line(done.stdout, expected)


def _one_line(output: str, start: str) -> None:
    """The job's whole output (stdout and stderr) is one line, starting ``start``: neither
    MPICH's "Abort(1) on node ..." line nor anything else comes after it."""
    lines = [line for line in output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(start), output
    assert "Abort(" not in output, output


_RAISES_ON_ONE_RANK = r"""
import numpy as np
import datamotion as dm
from mpi4py import MPI
grid = dm.ProcessGrid()
if MPI.COMM_WORLD.rank == 1:
    raise RuntimeError("a mistake on rank 1 only")
dm.DistArray.zeros(grid, (4,), np.float64)  # the other ranks wait here for rank 1
print("NOT ENDED", flush=True)
"""


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("nprocs", [2, 3])
def test_an_exception_on_one_rank_ends_the_job(tmp_path, nprocs):
    done = run_job(_RAISES_ON_ONE_RANK, nprocs, tmp_path)
    assert done.returncode != 0, done.stdout
    assert "NOT ENDED" not in done.stdout, done.stdout
    assert "RuntimeError: a mistake on rank 1 only" in done.stdout, done.stdout
    assert f"datamotion: uncaught RuntimeError on rank 1 of {nprocs}; ending the job" in done.stdout, done.stdout


@pytest.mark.parallel(nprocs=MAIN)
def test_values_that_cannot_be_represented_are_refused():
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.arange(12))
    raises_everywhere(WORLD, lambda: dm.cshift(a, 1.5, 0), "DM_ERR_ARG", "shift must be an integer, got 1.5")
    raises_everywhere(WORLD, lambda: dm.cshift(a, 2**63, 0), "DM_ERR_ARG", "outside the 64-bit integer range")
    raises_everywhere(WORLD, lambda: dm.eoshift(a, -2**63 - 1, 0), "DM_ERR_ARG", "outside the 64-bit integer range")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (2**64,)), "DM_ERR_ARG", "outside the 64-bit")
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, (4.5,)), "DM_ERR_ARG", "extent must be an integer")
    check_same_array(WORLD, dm.cshift(a, np.int64(13), 0).to_global(), np.roll(np.arange(12), -1), "np.int64 shift")
    f = dm.DistArray.zeros(grid, (3,), np.float64)
    raises_everywhere(WORLD, lambda: f.scatter(np.array([1 + 2j, 3, 4])), "DM_ERR_TYPE", "imaginary parts")
    f.scatter(np.array([1, 2, 3]))  # integers into doubles: as NumPy assigns
    check_same_array(WORLD, f.to_global(), np.array([1.0, 2.0, 3.0]), "scattered integers")
    with pytest.raises(dm.Error, match=r"axis 5 out of range \[0, 1\)"):
        a.axis_map(5)
    with pytest.raises(dm.Error, match="axis must be an integer"):
        a.axis_map(0.5)


@pytest.mark.parallel(nprocs=MAIN)
def test_replicated_global_arrays_that_differ_are_refused_in_checked_mode():
    grid = dm.ProcessGrid()
    x = np.arange(8.0)
    if ODD:
        x[3] = -1.0
    if CHECKED and WORLD.size > 1:
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(grid, x), "DM_ERR_MISMATCH", "global array")
    check_same_array(WORLD, dm.DistArray.from_global(grid, np.arange(8.0)).to_global(), np.arange(8.0), "same")


@pytest.mark.parallel(nprocs=[1])
def test_files_are_written_whole_or_not_at_all(tmp_path):
    target = tmp_path / "model.json"
    target.write_text('{"old": true}')
    with pytest.raises(RuntimeError):
        with atomic_write(str(target)) as f:
            f.write('{"new": ')
            raise RuntimeError("the disk filled up")
    assert json.loads(target.read_text()) == {"old": True}
    assert os.listdir(tmp_path) == ["model.json"]  # no temporary file left behind
    with atomic_write(str(target)) as f:
        json.dump({"new": True}, f)
    assert json.loads(target.read_text()) == {"new": True}
    with pytest.raises(OSError, match="does not exist"):
        require_writable_file(str(tmp_path / "no" / "such" / "r.json"))
    with pytest.raises(OSError, match="is a file"):
        require_writable_folder(str(target / "report"))
    require_writable_folder(str(tmp_path / "new" / "report"))  # can be created


def _unwritable_folder():
    """A folder that exists but where no file can be created, even by root (for whom
    permission bits do not stop writes, so chmod cannot make one): /proc, whose
    access() says writable, or /sys. None where both accept files."""
    import tempfile

    for folder in ("/proc", "/sys"):
        try:
            fd, probe = tempfile.mkstemp(dir=folder)
        except OSError:
            if os.path.isdir(folder):
                return folder
            continue
        os.close(fd)
        os.unlink(probe)
    return None


@pytest.mark.parallel(nprocs=[1])
def test_output_paths_are_tried_not_guessed(tmp_path):
    a_file = tmp_path / "f"
    a_file.write_text("a file, not a folder")
    f = re.escape(str(a_file))
    with pytest.raises(OSError, match=rf"^cannot write {f}/r.json: {f} is a file, not a folder$"):
        require_writable_file(str(a_file / "r.json"))
    with pytest.raises(OSError, match=rf"^cannot write {f}/x/r.json: {f} is a file, not a folder$"):
        require_writable_file(str(a_file / "x" / "r.json"))
    with pytest.raises(OSError, match=rf"^cannot write into {f}/r: {f} is a file, not a folder$"):
        require_writable_folder(str(a_file / "r"))
    with pytest.raises(OSError, match=rf"^cannot write into {f}: {f} is a file, not a folder$"):
        require_writable_folder(str(a_file))
    with pytest.raises(OSError, match="it is a folder"):
        require_writable_file(str(tmp_path))
    require_writable_file(str(tmp_path / "r.json"))
    assert sorted(os.listdir(tmp_path)) == ["f"]  # the probe file is gone
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    if os.geteuid() == 0:  # root writes through the permission bits: the probe succeeds, rightly
        require_writable_file(str(locked / "r.json"))
    else:
        with pytest.raises(OSError, match=r"cannot create a file in .*locked \(Permission denied\)$"):
            require_writable_file(str(locked / "r.json"))
    assert os.listdir(locked) == []
    folder = _unwritable_folder()
    if folder is None:
        pytest.skip("no folder here refuses new files (/proc and /sys accept them)")
    with pytest.raises(OSError, match=rf"^cannot write {folder}/r.json: cannot create a file in {folder} \("):
        require_writable_file(f"{folder}/r.json")
    with pytest.raises(OSError, match=rf"^cannot write into {folder}/a/b: cannot create a file in {folder} \("):
        require_writable_folder(f"{folder}/a/b")


@pytest.mark.parallel(nprocs=[1])
def test_cli_output_mistakes_fail_before_measuring_in_one_line(tmp_path):
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PMI_", "PMIX_", "HYDRA_")) and k != "MPI_LOCALNRANKS"}
    cli = [sys.executable, "-m", "datamotion"]
    a_file = tmp_path / "f"
    a_file.write_text("a file, not a folder")
    (tmp_path / "results.json").write_text("{}")
    unwritable = _unwritable_folder()
    # Each command that writes, its output option, file name and how it names the path.
    writers = [(["bench", "pt2pt", "--np", "2", "--out"], "r.json", "cannot write"),
               (["model", "fit", "results.json", "--out"], "m.json", "cannot write"),
               (["report", "results.json", "--out"], "r", "cannot write into"),
               (["calibrate", "--np", "2", "--output"], "m.txt", "cannot write")]
    cases = [(["bench", "pt2pt", "--np", "2", "--out", "/no/such/dir/r.json"],
              "cannot write /no/such/dir/r.json: folder /no/such/dir does not exist"),
             (["model", "fit", "results.json", "--out", "/no/such/m.json"], "cannot write /no/such/m.json")]
    cases += [(args + [f"{a_file}/{name}"], f"{verb} {a_file}/{name}: {a_file} is a file, not a folder")
              for args, name, verb in writers]
    if unwritable:  # a folder that exists, where the probe file cannot be created
        cases += [(args + [f"{unwritable}/{name}"],
                   f"{verb} {unwritable}/{name}: cannot create a file in {unwritable} (")
                  for args, name, verb in writers]
    for args, message in cases:
        done = subprocess.run(cli + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=120, cwd=tmp_path)  # a hang guard
        assert done.returncode == 1, (args, done.stdout)
        # One line, before anything was measured ("measuring ..." would come first) and without MPI's lines.
        lines = done.stdout.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"datamotion: error: {message}"), (args, done.stdout)
    assert sorted(os.listdir(tmp_path)) == ["f", "results.json"]  # no probe or partial file left


_ONE_RANK_IN_A_COLLECTIVE = r"""
import datamotion as dm
from mpi4py import MPI
grid = dm.ProcessGrid()
if MPI.COMM_WORLD.rank == 1:
    dm.DistArray.zeros(grid, (64,))  # alone: rank 0 waits in an MPI barrier
else:
    MPI.COMM_WORLD.Barrier()
print("NOT ENDED", flush=True)
"""


@pytest.mark.parallel(nprocs=[1])
def test_a_collective_call_made_on_one_rank_ends_at_its_deadline(tmp_path):
    done = run_job(_ONE_RANK_IN_A_COLLECTIVE, 2, tmp_path, DATAMOTION_CHECK="1", DATAMOTION_TIMEOUT="5")
    assert done.returncode != 0, done.stdout
    assert "NOT ENDED" not in done.stdout, done.stdout
    line = ("datamotion: error on rank 1 of 2: DistArray.zeros: waited 5 s for the other ranks to reach "
            "this collective call (DATAMOTION_TIMEOUT): some rank is in another call, still computing or "
            "stopped [DM_ERR_STATE]; ending the job")
    _one_line(done.stdout, line)
    assert done.stdout.strip() == line, done.stdout


@pytest.mark.parallel(nprocs=MAIN)
def test_ranks_in_different_calls_are_told_which():
    if WORLD.size == 1:
        pytest.skip("one rank is always in its own call")
    grid = dm.ProcessGrid()
    a = dm.DistArray.from_global(grid, np.arange(12.0))
    raises_everywhere(WORLD, lambda: dm.redistribute(a, dist=dm.Cyclic()) if ODD else a.to_global(),
                      "DM_ERR_MISMATCH", rf"^the ranks are in different collective calls: rank 0 is in "
                                         rf"DistArray.to_global, rank {LAST} in redistribute; ")
    raises_everywhere(WORLD, lambda: dm.cshift(a, 1, 0) if ODD else a.scatter(np.zeros(12)),
                      "DM_ERR_MISMATCH", rf"rank 0 is in DistArray.scatter, rank {LAST} in cshift; ")
    # Both calls are named, and nothing is left behind: the next calls work.
    check_same_array(WORLD, dm.redistribute(a, dist=dm.Cyclic()).to_global(), np.arange(12.0), "redistributed")


@pytest.mark.parallel(nprocs=MAIN)
def test_a_value_that_differs_is_shown_on_two_ranks():
    if WORLD.size == 1:
        pytest.skip("one rank agrees with itself")
    grid = dm.ProcessGrid(dims=2)
    shape = (13, 12) if ODD else (12, 12)
    raises_everywhere(WORLD, lambda: dm.DistArray.zeros(grid, shape), "DM_ERR_MISMATCH",
                      rf"^global shape differs across ranks: \(12, 12\) on rank 0, \(13, 12\) on rank {LAST}$")
    x = np.arange(6.0)
    if ODD:
        x[2] = 7.0
    if CHECKED:
        raises_everywhere(WORLD, lambda: dm.DistArray.from_global(dm.ProcessGrid(), x),
                          "DM_ERR_MISMATCH", r"^global array \(root=None: every rank must pass the same array\) "
                                             r"differs across ranks: an array of shape \(6,\) \(contents hash ")


@pytest.mark.parallel(nprocs=MAIN)
def test_a_vector_made_with_another_length_fails_at_the_next_collective_call():
    if WORLD.size == 1:
        pytest.skip("one rank agrees with itself")
    from datamotion import vector as cv

    # Local, so nothing is compared before to_numpy (checked mode compares at once).
    raises_everywhere(WORLD, lambda: cv.Vector.from_numpy(np.arange(10.0 + (1 if ODD else 0))).to_numpy(),
                      "DM_ERR_MISMATCH", rf"argument len differs across ranks: 10 on rank 0, 11 on rank {LAST}")
    raises_everywhere(WORLD, lambda: cv.scan(cv.Vector(5 + (1 if ODD else 0))), "DM_ERR_MISMATCH",
                      "differs across ranks")
    check_same_array(WORLD, cv.Vector.from_numpy(np.arange(10.0)).to_numpy(), np.arange(10.0), "a vector made alike")
    if CHECKED:  # a scalar operand is compared with the call's other arguments
        v = cv.Vector.from_numpy(np.arange(10.0))
        raises_everywhere(WORLD, lambda: v + (2.0 if ODD else 1.0), "DM_ERR_MISMATCH",
                          r"argument scalar operand \(its 64 bits\) differs across ranks")


_VECTOR_LENGTHS = r"""
import numpy as np
from mpi4py import MPI
from datamotion import Error, vector as cv
rank = MPI.COMM_WORLD.rank
try:
    print(cv.Vector.from_numpy(np.arange(10.0 + rank)).to_numpy(), flush=True)
except Error as e:
    print(f"rank {rank}: {e.status}: {e}", flush=True)
"""


@pytest.mark.parallel(nprocs=[1])
def test_vector_lengths_that_differ_fail_outside_checked_mode_too(tmp_path):
    done = run_job(_VECTOR_LENGTHS, 2, tmp_path, DATAMOTION_CHECK="0")
    assert done.returncode == 0, done.stdout
    for rank in (0, 1):
        assert (f"rank {rank}: DM_ERR_MISMATCH: argument len differs across ranks: 10 on rank 0, "
                f"11 on rank 1") in done.stdout, done.stdout
