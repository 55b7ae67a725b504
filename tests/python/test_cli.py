"""The ``datamotion`` command as a user meets it: run as a subprocess, at one rank and
under ``mpiexec -n 2``, every mistake is one line on rank 0 and a non-zero exit status,
``--version`` answers without a job, and Ctrl-C ends a run with one line and status 130."""

import json
import signal
import subprocess
import sys
import time

import pytest
from dmtest import job_environment, mpiexec_command

from datamotion.launch import is_open_mpi

pytestmark = pytest.mark.parallel(nprocs=[1])

MPIEXEC = mpiexec_command(2)


def run(args, folder, ranks=None):
    command = [sys.executable, "-m", "datamotion", *args]
    if ranks:
        command = [*mpiexec_command(ranks), *command]
    return subprocess.run(command, env=job_environment(), cwd=folder, capture_output=True, text=True, timeout=120)


@pytest.fixture
def files(tmp_path):
    (tmp_path / "bad.json").write_text("{not json")
    (tmp_path / "list.json").write_text("[1, 2]")
    (tmp_path / "model.json").write_text(json.dumps({"schema": "datamotion.model/1", "models": {}, "skipped": {}}))
    return tmp_path


MISTAKES = [
    (["bench", "teleport", "--out", "r.json"], 2, "invalid choice: 'teleport'"),
    (["bench", "pt2pt", "--out", "/no/such/dir/r.json"], 1, "cannot write /no/such/dir/r.json"),
    (["bench", "pt2pt", "--np", "0", "--out", "r.json"], 2, "argument --np: must be at least 1, got 0"),
    (["bench", "pt2pt", "--thread-level", "many", "--out", "r.json"], 2, "invalid choice: 'many'"),
    (["bench", "pt2pt"], 2, "required: --out"),
    (["model", "fit", "missing.json", "--out", "m.json"], 1, "cannot read results document missing.json"),
    (["model", "fit", "bad.json", "--out", "m.json"], 1, "bad.json is not a JSON results document"),
    (["model", "fit", "list.json", "--out", "m.json"], 1, "not a datamotion results document"),
    (["model", "predict", "missing.json", "pingpong"], 1, "cannot read model document missing.json"),
    (["model", "predict", "bad.json", "pingpong"], 1, "bad.json is not a JSON model document"),
    (["model", "predict", "model.json", "teleport"], 1, "teleport"),
    (["model", "predict", "model.json", "pingpong", "--bytes", "-5"], 2, "argument --bytes: must be at least 0"),
    (["model", "predict", "model.json", "pingpong", "--bytes", "4k"], 2, "argument --bytes: expected an integer"),
    (["model", "predict", "model.json", "pingpong", "--ranks", "0"], 2, "argument --ranks: must be at least 1"),
    (["model"], 2, "required: VERB"),
    (["report", "missing.json", "--out", "r"], 1, "cannot read results document missing.json"),
    (["report", "bad.json", "--out", "r"], 1, "not a JSON results document"),
    (["calibrate", "--reps", "0"], 2, "argument --reps: must be at least 1"),
    (["calibrate", "--output", "/no/such/dir/m.txt"], 1, "cannot write /no/such/dir/m.txt"),
    (["info", "--np", "two"], 2, "argument --np: expected an integer, got 'two'"),
    (["demo", "--np", "-1"], 2, "argument --np: must be at least 1"),
    (["teleport"], 2, "invalid choice: 'teleport'"),
    ([], 2, "required: COMMAND"),
]


def check_one_line(done, status, words):
    assert done.returncode == status, (done.returncode, done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("datamotion: error: ") and words in lines[0], done.stderr
    assert "Traceback" not in done.stdout + done.stderr and not done.stdout.strip(), done.stdout


@pytest.mark.parametrize("args,status,words", MISTAKES, ids=[" ".join(m[0]) or "nothing" for m in MISTAKES])
def test_a_mistake_is_one_line_and_a_nonzero_status(files, args, status, words):
    check_one_line(run(args, files), status, words)


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec beside this Python or on PATH")
@pytest.mark.parametrize("args,status,words", [MISTAKES[i] for i in (0, 1, 6, 8, 11, 18)])
def test_a_mistake_is_one_line_from_rank_0_of_a_job(files, args, status, words):
    check_one_line(run(args, files, ranks=2), status, words)


def test_debug_shows_the_traceback(files):
    done = run(["--debug", "model", "fit", "bad.json", "--out", "m.json"], files)
    assert done.returncode != 0 and "Traceback" in done.stderr, done.stderr


@pytest.mark.parametrize("ranks", [None, 2])
def test_version_names_the_package_and_its_mpi(tmp_path, ranks):
    if ranks and MPIEXEC is None:
        pytest.skip("no mpiexec beside this Python or on PATH")
    import datamotion

    done = run(["--version"], tmp_path, ranks)
    assert done.returncode == 0 and not done.stderr.strip(), done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines[0] == f"datamotion {datamotion.__version__}", done.stdout
    assert len(lines) <= 2 and all(line.startswith("MPI: ") for line in lines[1:]), done.stdout


def test_every_help_lists_its_choices(tmp_path):
    from datamotion.measure.constants import SUITE_NAMES, THREAD_LEVELS
    from datamotion.measure.fit import KERNEL_MODELS

    expected = {(): ["demo", "info", "bench", "model", "report", "calibrate", "--version", "--debug"],
                ("bench",): list(SUITE_NAMES) + list(THREAD_LEVELS),
                ("model",): ["fit", "predict"],
                ("model", "predict"): sorted(KERNEL_MODELS)}
    for command, words in expected.items():
        done = run([*command, "--help"], tmp_path)
        assert done.returncode == 0, done.stderr
        missing = [w for w in words if w not in done.stdout]
        assert not missing, f"datamotion {' '.join(command)} --help lacks {missing}"
    for command in (["demo"], ["info"], ["report"], ["calibrate"], ["model", "fit"]):
        assert run([*command, "--help"], tmp_path).returncode == 0


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec beside this Python or on PATH")
def test_ctrl_c_ends_a_job_with_one_line_and_status_130(tmp_path):
    """SIGINT to the launcher, as Ctrl-C in a terminal: it passes the signal to every rank."""
    if is_open_mpi(MPIEXEC[0]):
        pytest.skip("Open MPI's launcher does not pass Ctrl-C on: it ends the ranks itself (exit status 1, "
                    "nothing printed), whatever the program does")
    job = subprocess.Popen([*MPIEXEC, sys.executable, "-m", "datamotion", "bench", "all",
                            "--out", str(tmp_path / "r.json")], env=job_environment(), cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(8)  # MPI started and measuring
    job.send_signal(signal.SIGINT)
    try:
        out, err = job.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        out, err = job.communicate()
        pytest.fail(f"the job did not end after SIGINT: {out} {err}")
    ours = [line for line in (out + err).splitlines() if "datamotion" in line and "mpiexec@" not in line
            and "measuring" not in line]
    assert job.returncode == 130, (job.returncode, out, err)
    assert ours == ["datamotion: interrupted"], out + err
    assert "Traceback" not in out + err and not (tmp_path / "r.json").exists()


SUBMODULES = ["array", "cli", "layout", "measure", "redist", "shift", "vector"]


def test_every_public_submodule_is_an_attribute_of_a_fresh_import():
    script = ("import types, datamotion as dm\n"
              f"for name in {SUBMODULES!r}:\n"
              "    assert isinstance(getattr(dm, name), types.ModuleType), name\n"
              "    assert name in dir(dm), name\n"
              "assert callable(dm.redist.optimal_schedule) and callable(dm.provenance)\n"
              "print('ok')\n")
    for name in SUBMODULES:  # each in an interpreter where nothing else loaded it first
        one = subprocess.run([sys.executable, "-c", f"import datamotion as dm\nprint(dm.{name}.__name__)"],
                             env=job_environment(), capture_output=True, text=True, timeout=60)
        assert one.returncode == 0 and one.stdout.strip() == f"datamotion.{name}", one.stderr
    done = subprocess.run([sys.executable, "-c", script], env=job_environment(), capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_package_lists_the_submodules_it_exposes():
    import datamotion

    assert sorted(datamotion.SUBMODULES) == SUBMODULES


# `datamotion bench` in a job of 2 ranks whose measuring is replaced by nothing and whose
# write of the results fails after all, as when a disk fills up during the run.
_BENCH_WRITE_FAILS = r"""
import sys
import datamotion.measure.results as results
import datamotion.measure.suites as suites
from datamotion import cli

suites.run_suites = lambda names, comm, quick=False, validate=False, progress=None: {"results": [], "warnings": []}

def write_results(doc, path):
    raise {error}

results.write_results = write_results
sys.exit(cli.main(["bench", "pt2pt", "--out", "r.json"]))
"""


@pytest.mark.skipif(MPIEXEC is None, reason="no mpiexec beside this Python or on PATH")
@pytest.mark.parametrize("error,line", [
    # An OSError is agreed on: rank 0 says it, every rank exits with status 1.
    ('OSError(28, "No space left on device")', "datamotion: error: cannot write r.json: No space left on device"),
    # Anything else may be rank 0's alone: it says so, naming itself, and ends the job.
    ('RuntimeError("the disk controller is on fire")',
     "datamotion: error on rank 0 of 2: RuntimeError: the disk controller is on fire (--debug shows the traceback)"),
], ids=["oserror", "other"])
def test_a_failure_after_measuring_is_one_line(tmp_path, error, line):
    (tmp_path / "job.py").write_text(_BENCH_WRITE_FAILS.replace("{error}", error))
    done = subprocess.run([*MPIEXEC, sys.executable, "job.py"], env=job_environment(), cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, (done.returncode, done.stdout, done.stderr)
    lines = [text for text in done.stderr.splitlines() if text.strip()]
    assert lines == [line], done.stderr  # MPICH's "Abort(1) on node ..." line is not shown
    assert "measuring pt2pt on 2 ranks" in done.stdout and "wrote" not in done.stdout, done.stdout
    assert not (tmp_path / "r.json").exists()


def test_piped_demo_lines_are_whole(tmp_path):
    """Rich lays out for 80 columns where stdout is no terminal; a sentence longer than
    that stays one line (a terminal or pager wraps it) instead of being broken."""
    done = run(["demo", "--np", "1"], tmp_path)
    assert done.returncode == 0, (done.stdout, done.stderr)
    lines = done.stdout.splitlines()
    for sentence in ("  ok in 'news' order every grid neighbour (with wrap-around) differs in one bit of rank",
                     "  ok Block is CM canonical: 5 over 4 gives ceil(5/4) = 2 per rank, the last rank owns nothing"):
        assert len(sentence) > 80 and sentence in lines, done.stdout
    rules = [text for text in lines if text.startswith("─")]
    assert rules and len({len(text) for text in rules}) == 1, rules  # rules keep the console's width
    # Nor colour: the ranks are told that the command's stdout is no terminal, even where
    # the launcher hands them a pseudo-terminal of its own (Open MPI).
    assert "\x1b[" not in done.stdout, done.stdout
