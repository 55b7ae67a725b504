"""`datamotion calibrate`: the fit recovers known lines from synthetic
measurements; the command writes a model file that the library then reads (and
plans say so); a file for another library, or malformed, is ignored; one rank is
refused with one line. No timing is checked: the machine decides those."""

import contextlib
import os
import tempfile

import numpy as np
import pytest

import datamotion as dm
from datamotion import _core, cli
from datamotion.measure import calibrate
from dmtest import WORLD, check_all, run_job


@contextlib.contextmanager
def model_file(path):
    saved = os.environ.get("DM_EXCHANGE_MODEL")
    os.environ["DM_EXCHANGE_MODEL"] = path
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("DM_EXCHANGE_MODEL", None)
        else:
            os.environ["DM_EXCHANGE_MODEL"] = saved


def shift_plan():
    grid = dm.ProcessGrid(WORLD, dims=[1, WORLD.size])
    a = dm.DistArray.empty(grid, [64, 8 * WORLD.size], ghost=[0, 1])
    return dm.PShift(a, [dm.CShift(8, axis=1)])


TRUTH = {  # the receivers' coefficients have a zero each, which pins the sender/receiver split
    "send_packed": (1.0, 0.0004, 0.004),
    "send_datatype": (5.0, 0.0012, 0.004),
    "send_split": (5.0, 0.0002, 0.2),
    "recv_packed": (0.0, 0.00025, 0.0),
    "recv_datatype": (0.5, 0.0, 0.1),
}


ACROSS_TRUTH = {  # between nodes: datatypes packed by the MPI, no single copy
    "across_send_packed": (4.0, 0.0009, 0.004),
    "across_send_datatype": (6.0, 0.0011, 0.01),
    "across_recv_packed": (0.0, 0.0003, 0.0),
    "across_recv_datatype": (0.8, 0.0, 0.05),
}


def synthetic(across=False):
    """A model with known lines, and what it predicts for every way of every grid point
    within a node (or between nodes)."""
    truth = calibrate.Model("MPICH Version: test", {**TRUTH, **ACROSS_TRUTH}, 1024, 8192, 1 << 20)
    measurements = []
    for run_bytes, runs in calibrate.grid_points(quick=False):
        nbytes = run_bytes * runs
        for send in calibrate.send_ways(truth, runs, nbytes, across):
            for recv in calibrate.RECVS:
                measurements.append((send, recv, runs, nbytes,
                                     calibrate.predict(truth, send, recv, runs, nbytes, across)))
    return truth, measurements


@pytest.mark.parallel(nprocs=[1])
def test_the_lines_between_nodes_are_fitted_apart_from_those_within_a_node():
    """Measurements between two nodes fit the across_* lines and leave the others as
    they were; between nodes no datatype is copied once (no split way)."""
    truth, measurements = synthetic(across=True)
    assert {send for send, *_ in measurements} == {"packed", "whole"}
    start = truth.with_lines(**{line: (0.0, 0.0, 0.0) for line in calibrate.ACROSS_LINES})
    fitted = calibrate.fit(start, measurements, across=True)
    for line in calibrate.ACROSS_LINES:
        np.testing.assert_allclose(fitted.lines[line], ACROSS_TRUTH[line], rtol=1e-3, atol=1e-7, err_msg=line)
    for line in calibrate.LINES:
        assert fitted.lines[line] == truth.lines[line], line
    assert calibrate.within(calibrate.evaluate(fitted, measurements, across=True), 1.0 + 1e-9) == 1.0
    parsed = calibrate.Model.parse(fitted.text())
    assert all(np.allclose(parsed.lines[k], fitted.lines[k], rtol=1e-5) for k in calibrate.ACROSS_LINES)


@pytest.mark.parallel(nprocs=[1])
def test_a_file_without_the_lines_between_nodes_keeps_the_built_in_ones():
    builtin = calibrate.builtin_model()
    mine = builtin.with_lines(send_packed=(9.0, 0.5, 0.25), across_recv_packed=(7.0, 0.0, 0.0)).text()
    older = "".join(row for row in mine.splitlines(True) if not row.startswith(calibrate.ACROSS))
    assert _core.exchange_model_accepts(older)
    read = calibrate.Model.parse(older)
    assert read.lines["send_packed"] == (9.0, 0.5, 0.25)
    assert all(read.lines[k] == builtin.lines[k] for k in calibrate.ACROSS_LINES)
    assert calibrate.Model.parse(mine).lines["across_recv_packed"] == (7.0, 0.0, 0.0)
    assert not _core.exchange_model_accepts(mine + "across_send_split 1 1 1\n")  # no such line


@pytest.mark.parallel(nprocs=[1])
def test_the_names_and_prices_are_the_engines():
    """The lines calibration fits are those of the engine's model file, each way is
    priced by a line of its locality, and a packed side costs what the engine's own
    pricing of the message says."""
    builtin = calibrate.builtin_model()
    in_file = [row.split()[0] for row in builtin.text().splitlines()[1:] if row.split()[0] in builtin.lines]
    assert list(calibrate.LINES + calibrate.ACROSS_LINES) == in_file
    assert all(line.startswith(calibrate.ACROSS) for line in calibrate.ACROSS_LINES)
    for across in (False, True):
        ways = _core.ExchangeModel.way_lines(across)
        assert set(ways["send"].values()) | set(ways["recv"].values()) == set(calibrate.lines_of(across))
        assert ("split" in ways["send"]) is not across  # nothing is copied once between nodes
        for nbytes, runs in ((64, 8), (1 << 20, 128), (5 << 20, 4096)):
            priced = builtin.engine.prices(nbytes, runs, across)
            assert builtin.engine.price_line(ways["send"]["packed"], nbytes, runs) == priced["send_packed"]
            assert builtin.engine.price_line(ways["recv"]["datatype"], nbytes, runs) == priced["recv_datatype"]
            assert calibrate.predict(builtin, "packed", "packed", runs, nbytes, across) == \
                pytest.approx(priced["send_packed"] + priced["recv_packed"], rel=1e-15)
    with pytest.raises(dm.Error):
        builtin.engine.price_line("across_send_split", 64, 8)


@pytest.mark.parallel(nprocs=[1])
def test_fit_recovers_known_lines_from_synthetic_measurements():
    truth, measurements = synthetic()
    start = truth.with_lines(**{line: (0.0, 0.0, 0.0) for line in calibrate.LINES})
    fitted = calibrate.fit(start, measurements)
    for line in calibrate.LINES:
        np.testing.assert_allclose(fitted.lines[line], TRUTH[line], rtol=1e-3, atol=1e-7, err_msg=line)
    rows = calibrate.evaluate(fitted, measurements)
    assert calibrate.within(rows, 1.0 + 1e-9) == 1.0
    assert (fitted.split_runs, fitted.split_min_bytes, fitted.chunk_bytes) == (1024, 8192, 1 << 20)
    assert calibrate.Model.parse(fitted.text()).lines.keys() == fitted.lines.keys()


@pytest.mark.parallel(nprocs=[1])
def test_refining_moves_a_wrong_crossover_and_keeps_a_right_one():
    truth, measurements = synthetic()
    assert calibrate.refine(truth, measurements).lines == truth.lines  # nothing to gain
    wrong = truth.with_lines(recv_datatype=(0.5, 0.0, 0.01))  # receivers take datatypes for short runs
    assert calibrate.regret(wrong, measurements) > 0
    better = calibrate.refine(wrong, measurements)
    assert calibrate.regret(better, measurements) < calibrate.regret(wrong, measurements)
    assert calibrate.within(calibrate.evaluate(better, measurements)) == 1.0


@pytest.mark.parallel(nprocs=[1])
def test_nonnegative_least_squares():
    A = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    np.testing.assert_allclose(calibrate.nnls(A, np.array([2.0, -1.0, 1.0])), [1.5, 0.0], atol=1e-12)
    x = np.array([0.0, 3.0, 0.5])
    B = np.random.default_rng(7).random((20, 3))
    np.testing.assert_allclose(calibrate.nnls(B, B @ x), x, atol=1e-10)


@pytest.mark.parallel(nprocs=[1])
def test_one_rank_is_refused_with_one_line(tmp_path):
    with pytest.raises(SystemExit) as refused:
        cli.main(["calibrate", "--quick", "--output", str(tmp_path / "model.txt")])
    message = str(refused.value.code)
    assert message.startswith("datamotion: error: ") and "\n" not in message, message
    done = run_job("import sys\nfrom datamotion import cli\nsys.exit(cli.main(['calibrate', '--quick']))\n",
                   1, tmp_path)
    assert done.returncode != 0 and done.stdout.strip().splitlines() == [message], done.stdout
    assert not (tmp_path / "model.txt").exists()


@pytest.mark.parallel(nprocs=[2])
def test_calibrate_writes_a_model_the_library_reads():
    folder = WORLD.bcast(tempfile.mkdtemp() if WORLD.rank == 0 else None)
    path = os.path.join(folder, "exchange-model.txt")
    os.environ["DM_EXCHANGE"] = "pack"  # set aside while measuring (it would force the auto plans), then back
    try:
        assert cli.main(["calibrate", "--quick", "--reps", "1", "--output", path]) == 0
        assert os.environ["DM_EXCHANGE"] == "pack"
    finally:
        os.environ.pop("DM_EXCHANGE", None)
    written = open(path).read()
    with model_file(path):
        in_use = _core.exchange_model()
        described = shift_plan().describe()
    ok = _core.exchange_model_accepts(written) and in_use.splitlines()[0] == written.splitlines()[0]
    ours, theirs = calibrate.Model.parse(written), calibrate.Model.parse(in_use)
    ok = ok and all(np.allclose(ours.lines[k], theirs.lines[k], rtol=1e-5) for k in calibrate.LINES)
    ok = ok and f"cost model, {path})" in described
    check_all(WORLD, ok, f"written:\n{written}\nin use:\n{in_use}\n{described}")
    with model_file(path):
        check_all(WORLD, _core.exchange_model_path() == path)


@pytest.mark.parallel(nprocs=[2])
def test_a_file_for_another_library_or_malformed_is_ignored():
    folder = WORLD.bcast(tempfile.mkdtemp() if WORLD.rank == 0 else None)
    builtin = calibrate.builtin_model()
    with model_file(os.path.join(folder, "absent.txt")):
        expected = _core.exchange_model()
        assert calibrate.Model.parse(expected).lines == builtin.lines
    good = builtin.with_lines(send_packed=(9.0, 0.5, 0.25)).text()
    cases = {
        "other-library": good.replace(f"library {builtin.library}", "library Another MPI 1.0"),
        "negative": good.replace("send_packed 9 0.5 0.25", "send_packed 9 -0.5 0.25"),
        "missing-line": "".join(row for row in good.splitlines(True) if not row.startswith("recv_datatype")),
        "garbage": good + "chunk_bytes lots\n",
        "empty": "",
    }
    if WORLD.rank == 0:
        for name, text in cases.items():
            with open(os.path.join(folder, name), "w") as f:
                f.write(text)
    WORLD.Barrier()
    problems = []
    for name, text in cases.items():
        with model_file(os.path.join(folder, name)):
            if _core.exchange_model_accepts(text) or _core.exchange_model() != expected:
                problems.append(f"{name}: used")
            if "cost model, built-in)" not in shift_plan().describe():
                problems.append(f"{name}: a plan does not say built-in")
    with model_file(os.path.join(folder, "good")):
        if WORLD.rank == 0:
            with open(os.path.join(folder, "good"), "w") as f:
                f.write(good)
        WORLD.Barrier()
        if not _core.exchange_model().startswith(good.splitlines()[0] + "\nsend_packed 9 0.5 0.25\n"):
            problems.append(f"the well-formed file is not used: {_core.exchange_model()}")
    check_all(WORLD, not problems, "; ".join(problems))


@pytest.mark.parallel(nprocs=[2])
def test_an_unwritable_output_fails_before_measuring_on_every_rank():
    with pytest.raises(SystemExit) as refused:
        cli.main(["calibrate", "--quick", "--output", "/nonexistent-folder/model.txt"])
    check_all(WORLD, WORLD.rank != 0 or "does not exist" in str(refused.value.code), str(refused.value.code))


@pytest.mark.parallel(nprocs=[1])
def test_the_engines_choice_is_the_cheapest_of_the_priced_ways():
    builtin = calibrate.builtin_model()
    truth = calibrate.Model("MPICH Version: test", {**TRUTH, **ACROSS_TRUTH}, 1024, 8192, 1 << 20)
    for model in (builtin, truth, truth.with_lines(recv_datatype=(0.5, 0.0, 0.01))):
        for across in (False, True):
            for run_bytes in (8, 64, 512, 4096, 65536):
                for runs in (2, 16, 1000, 1024, 1025, 5000):
                    nbytes = run_bytes * runs
                    ways = [(s, r) for s in calibrate.send_ways(model, runs, nbytes, across) for r in calibrate.RECVS]
                    times = {w: calibrate.predict(model, *w, runs, nbytes, across) for w in ways}
                    chosen = calibrate.choice(model, runs, nbytes, across)
                    assert chosen in times, (chosen, ways)
                    assert times[chosen] <= min(times.values()) * (1 + 1e-12), (run_bytes, runs, chosen, times)


@pytest.mark.parallel(nprocs=[2])
def test_calibrations_choice_is_what_plans_take():
    """The ways calibrate.choice() reports (the engine's pricing, cost.cpp) are the ways
    a plan under the same model takes (the planner, plan.cpp), on a grid of sizes, by
    the lines of the pair's locality (two emulated nodes too)."""
    base = calibrate.builtin_model()
    across = calibrate.pair_crosses_nodes(WORLD)
    grid = dm.ProcessGrid(WORLD, dims=[1, 2])
    files = calibrate._ModelFiles()
    problems = []
    try:
        for run_bytes, runs in [(8, 16), (32, 1024), (128, 256), (2048, 16), (2048, 4096), (32768, 16), (512, 2000)]:
            width = run_bytes // 8
            a = dm.DistArray.empty(grid, [runs, 2 * width], ghost=[0, 1])
            files.use(base)
            plan = dm.PShift(a, [dm.CShift(width, axis=1)], executor="auto")
            described = plan.describe()
            nbytes = run_bytes * runs
            took = calibrate.ways_taken(base, plan.messages(), runs, nbytes, across)
            if took != tuple(calibrate.choice(base, runs, nbytes, across)):
                problems.append(f"{runs} runs of {run_bytes} B: plan {took}, choice "
                                f"{calibrate.choice(base, runs, nbytes, across)}\n{described}")
    finally:
        files.close()
    check_all(WORLD, not problems, "\n".join(problems))
