"""Measurement kernels run at 2-4 ranks with every received byte (and every
segmented-scan result) checked, and a corrupted byte is caught on every rank;
bad arguments fail alike on every rank; the kernels follow OSU 7.4's rules; the
results document has the documented fields; the command line round trip
(bench -> model fit -> model predict) works inside an MPI job; importing
datamotion initialises MPI at no higher thread level than the program asks for."""

import json
import os
import tempfile

import pytest

from datamotion import _core
from datamotion import cli
from datamotion.measure import constants, stats, suites
from datamotion.measure.suites import collectives, local, patterns
from dmtest import WORLD, check_all, raises_everywhere, run_job

SIZE = WORLD.size


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("kernel", constants.PAIR_KERNELS)
def test_pair_kernels_with_validation(kernel):
    b = SIZE - 1  # the farthest pair, so ranks in between only synchronise
    for nbytes in (0, 1, 1000, 70000):
        samples = _core.bench_pair(kernel, WORLD, 0, b, nbytes, 3, 1, 2, 4, True)
        mine = WORLD.rank in (0, b)
        check_all(WORLD, len(samples) == (3 if mine else 0) and all(s > 0 for s in samples),
                  f"{kernel} {nbytes} B: samples {samples}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("kernel", constants.PAIR_KERNELS)
def test_pair_validation_catches_a_corrupted_byte(kernel):
    b = SIZE - 1
    for nbytes, corrupt in ((1, 0), (1000, 999), (70000, 12345)):
        raises_everywhere(WORLD, lambda: _core.bench_pair(kernel, WORLD, 0, b, nbytes, 2, 1, 2, 4, True, corrupt),
                          "DM_ERR_INTERNAL", rf"^{kernel}: received byte {corrupt} of {nbytes} is wrong")
        # The same call without the corruption passes.
        samples = _core.bench_pair(kernel, WORLD, 0, b, nbytes, 2, 1, 2, 4, True, -1)
        check_all(WORLD, len(samples) == (2 if WORLD.rank in (0, b) else 0), f"{kernel} {nbytes} B: {samples}")
    raises_everywhere(WORLD, lambda: _core.bench_pair(kernel, WORLD, 0, b, 8, 2, 1, 2, 4, True, 8), "DM_ERR_ARG",
                      r"corrupt_byte 8 is not one of the 8 bytes")


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("op", collectives.COLLECTIVES)
def test_collective_validation_catches_a_corrupted_byte(op):
    for nbytes, corrupt in ((8, 0), (1000, 999)):
        raises_everywhere(WORLD, lambda: _core.bench_collective(op, WORLD, nbytes, 2, 1, True, 3, corrupt),
                          "DM_ERR_INTERNAL", rf"^{op}: wrong (result|byte)")
        samples = _core.bench_collective(op, WORLD, nbytes, 2, 1, True, 3, -1)
        check_all(WORLD, len(samples) == 2 and min(samples) > 0, f"{op} {nbytes} B: {samples}")


def test_osu_rules():
    assert stats.osu_rules("latency", 8192) == {"warmup": 100, "iterations": 1000}
    assert stats.osu_rules("latency", 8193) == {"warmup": 10, "iterations": 100}
    assert stats.osu_rules("bandwidth", 0) == {"warmup": 10, "iterations": 10}
    assert stats.osu_rules("bandwidth", 1 << 20) == {"warmup": 2, "iterations": 2}
    assert stats.osu_rules("collective", 8) == {"warmup": 100, "iterations": 100}
    assert stats.osu_rules("collective", 1 << 20) == {"warmup": 10, "iterations": 10}
    assert stats.osu_params("bandwidth") == {"rules": "OSU 7.4", "large_message_bytes": 8192, "warmup": [10, 2],
                                             "iterations_per_sample": [10, 2], "window": 64}


IMPORT_SCRIPT = """
import mpi4py
{before}
import datamotion as dm
{load}  # loads MPI through datamotion
from mpi4py import MPI
print("LEVEL", {{MPI.THREAD_SINGLE: "single", MPI.THREAD_FUNNELED: "funneled", MPI.THREAD_SERIALIZED: "serialized",
                MPI.THREAD_MULTIPLE: "multiple"}}[MPI.Query_thread()], dm.provenance()["thread_level"])
"""


@pytest.mark.parametrize("before,env,level", [
    ("", {}, "funneled"),  # the program chose nothing: datamotion asks for no more than it needs
    ("", {"MPI4PY_RC_THREAD_LEVEL": "multiple"}, "multiple"),
    ("", {"MPI4PY_RC_THREAD_LEVEL": "single"}, "single"),
    ("mpi4py.rc.thread_level = 'serialized'", {}, "serialized"),
    ("mpi4py.rc.thread_level = 'multiple'", {}, "multiple"),
    ("from mpi4py import MPI", {}, "multiple"),  # MPI already initialised, at mpi4py's default
])
def test_import_keeps_the_programs_thread_level(before, env, level, tmp_path, monkeypatch):
    for key in ("MPI4PY_RC_THREAD_LEVEL", "MPI4PY_RC_THREADS", "MPI4PY_RC_INITIALIZE"):
        monkeypatch.delenv(key, raising=False)
    done = run_job(IMPORT_SCRIPT.format(before=before, load="dm.ProcessGrid"), 1, tmp_path, **env)
    assert done.returncode == 0, done.stdout
    assert f"LEVEL {level} {level}" in done.stdout, done.stdout


@pytest.mark.parametrize("load", ["dm.DistArray", "dm.Halo", "dm.RedistPlan", "dm.Vector", "dm.provenance",
                                  "import datamotion.measure.suites"])
def test_every_entry_point_starts_mpi_at_the_library_level(load, tmp_path, monkeypatch):
    """Whichever public module loads MPI first (importing the extension starts
    mpi4py.MPI), it does so through _mpi, at the level _mpi settles."""
    for key in ("MPI4PY_RC_THREAD_LEVEL", "MPI4PY_RC_THREADS", "MPI4PY_RC_INITIALIZE"):
        monkeypatch.delenv(key, raising=False)
    done = run_job(IMPORT_SCRIPT.format(before="", load=load), 1, tmp_path)
    assert done.returncode == 0, done.stdout
    assert "LEVEL funneled funneled" in done.stdout, done.stdout


@pytest.mark.parametrize("flag,env,level", [
    ([], {}, "single"),  # the default of datamotion bench
    (["--thread-level", "serialized"], {"MPI4PY_RC_THREAD_LEVEL": "multiple"}, "serialized"),  # the flag wins
    ([], {"MPI4PY_RC_THREAD_LEVEL": "funneled"}, "funneled"),
])
def test_bench_initialises_mpi_at_the_requested_level(flag, env, level, tmp_path, monkeypatch):
    for key in ("MPI4PY_RC_THREAD_LEVEL", "MPI4PY_RC_THREADS", "MPI4PY_RC_INITIALIZE"):
        monkeypatch.delenv(key, raising=False)
    out = str(tmp_path / "results.json")
    argv = ["bench", "local", "--quick", "--out", out] + flag
    done = run_job(f"from datamotion import cli\nraise SystemExit(cli.main({argv!r}))\n", 2, tmp_path, **env)
    assert done.returncode == 0, done.stdout
    with open(out) as f:
        doc = json.load(f)
    assert doc["provenance"]["thread_level"] == doc["thread_level_requested"] == level, doc["warnings"]
    assert not any("requested" in w or "MULTIPLE" in w for w in doc["warnings"]), doc["warnings"]


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_barrier_kernel_and_summary():
    samples = _core.bench_barrier(WORLD, 5, 1)
    check_all(WORLD, len(samples) == 5 and min(samples) > 0, f"{samples}")
    s = stats.summarize(samples)
    check_all(WORLD, s["ci95_us"][0] <= s["median_us"] <= s["ci95_us"][1] and s["reps"] == 5, f"{s}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("op", collectives.COLLECTIVES)
def test_collective_kernels_with_validation(op):
    for nbytes in (0, 8, 1000, 40000):
        samples = _core.bench_collective(op, WORLD, nbytes, 3, 1, True)
        check_all(WORLD, len(samples) == 3 and min(samples) > 0, f"{op} {nbytes} B: {samples}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("dtype,op", collectives.SEGSCANS)
def test_segmented_scans_with_validation(dtype, op):
    # 0 and 8 bytes: empty and one-element blocks; segments of 1 .. longer than the vector.
    for nbytes in (0, 8, 24, 1000, 40000):
        for length in (1, 3, 10, 1000, 1 << 20):
            samples = _core.bench_segscan(WORLD, dtype, op, nbytes, length, 3, 1, True)
            check_all(WORLD, len(samples) == 3 and min(samples) > 0, f"{dtype} {op} {nbytes} B, S={length}: {samples}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_hypercube_with_validation():
    for d in range(1, SIZE.bit_length()):  # 2^d <= SIZE; the other ranks only synchronise
        for nbytes in (0, 1, 1001, 70000):
            samples = _core.bench_hypercube(WORLD, d, nbytes, 3, 1, True)
            check_all(WORLD, len(samples) == 3 and min(samples) > 0, f"d={d} {nbytes} B: {samples}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_matchings_and_chain_with_validation():
    matchings = WORLD.bcast(patterns.random_matchings(SIZE, 4, 7) if WORLD.rank == 0 else None)
    for partner in matchings + [patterns.chain_partners(SIZE), [-1] * SIZE]:
        for nbytes in (0, 7, 70000):
            samples = _core.bench_matching(WORLD, partner, nbytes, 3, 1, True)
            check_all(WORLD, len(samples) == 3 and min(samples) >= 0, f"{partner} {nbytes} B: {samples}")


def test_matchings_are_perfect():
    for p in range(1, 9):
        for partner in patterns.random_matchings(p, 20, 3) + [patterns.chain_partners(p)]:
            assert len(partner) == p
            assert all(partner[q] == r for r, q in enumerate(partner) if q >= 0)
            assert all(q != r for r, q in enumerate(partner))
            assert partner.count(-1) == p % 2, partner
    assert patterns.chain_partners(5) == [4, 3, -1, 1, 0]
    assert patterns.random_matchings(6, 3, 11) == patterns.random_matchings(6, 3, 11)


def test_mesh_shapes():
    shapes = {p: patterns.mesh_shape(p) for p in (1, 2, 3, 4, 6, 8, 12, 16, 32, 512)}
    assert shapes == {1: (1, 1), 2: (1, 2), 3: (1, 3), 4: (2, 2), 6: (2, 3), 8: (2, 4), 12: (3, 4), 16: (4, 4),
                      32: (4, 8), 512: (16, 32)}


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_mesh_shifts_with_validation():
    for rows in [r for r in range(1, SIZE + 1) if SIZE % r == 0]:
        for placement in patterns.PLACEMENTS:
            for direction in patterns.DIRECTIONS:
                for nbytes in (0, 5, 70000):
                    slowest, own = _core.bench_mesh_shift(WORLD, rows, SIZE // rows, placement, direction, nbytes,
                                                          3, 1, True)
                    check_all(WORLD, len(slowest) == len(own) == 3 and all(s >= o >= 0 for s, o in zip(slowest, own)),
                              f"{rows}x{SIZE // rows} {placement} {direction} {nbytes} B: {slowest} {own}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_bad_pattern_arguments_fail_everywhere():
    too_deep = SIZE.bit_length()  # 2^too_deep > SIZE
    raises_everywhere(WORLD, lambda: _core.bench_hypercube(WORLD, too_deep, 8, 3, 0, False), "DM_ERR_ARG",
                      r"dimension")
    raises_everywhere(WORLD, lambda: _core.bench_hypercube(WORLD, 0, 8, 3, 0, False), "DM_ERR_ARG", r"dimension")
    one_sided = [1] + [-1] * (SIZE - 1)  # 0 -> 1 but 1 -> nobody
    raises_everywhere(WORLD, lambda: _core.bench_matching(WORLD, one_sided, 8, 3, 0, False), "DM_ERR_ARG",
                      r"not symmetric")
    for bad in ([SIZE] + [-1] * (SIZE - 1), [0] + [-1] * (SIZE - 1), [-2] * SIZE):
        raises_everywhere(WORLD, lambda: _core.bench_matching(WORLD, bad, 8, 3, 0, False), "DM_ERR_ARG",
                          r"not another rank")
    raises_everywhere(WORLD, lambda: _core.bench_matching(WORLD, [-1] * (SIZE + 1), 8, 3, 0, False), "DM_ERR_ARG",
                      r"entries")
    # Valid on every rank, but not the same vector everywhere.
    mine = patterns.chain_partners(SIZE) if WORLD.rank == 0 else [-1] * SIZE
    raises_everywhere(WORLD, lambda: _core.bench_matching(WORLD, mine, 8, 3, 0, False), "DM_ERR_MISMATCH")
    raises_everywhere(WORLD, lambda: _core.bench_segscan(WORLD, "int32", "add", 8, 10, 3, 0, False), "DM_ERR_ARG",
                      r"unknown element type")
    raises_everywhere(WORLD, lambda: _core.bench_segscan(WORLD, "int64", "mul", 8, 10, 3, 0, False), "DM_ERR_ARG",
                      r"unknown scan operator")
    raises_everywhere(WORLD, lambda: _core.bench_segscan(WORLD, "float64", "add", 8, 0, 3, 0, False), "DM_ERR_ARG",
                      r"segment_length")
    raises_everywhere(WORLD, lambda: _core.bench_mesh_shift(WORLD, 1, SIZE, "snake", "north", 8, 3, 0, False),
                      "DM_ERR_ARG", r"unknown placement")
    raises_everywhere(WORLD, lambda: _core.bench_mesh_shift(WORLD, 1, SIZE, "gray", "up", 8, 3, 0, False),
                      "DM_ERR_ARG", r"unknown direction")
    raises_everywhere(WORLD, lambda: _core.bench_mesh_shift(WORLD, 2, SIZE, "row-major", "east", 8, 3, 0, False),
                      "DM_ERR_ARG", r"does not fit")
    # A bad argument on one rank only still fails everywhere.
    length = 0 if WORLD.rank == SIZE - 1 else 10
    raises_everywhere(WORLD, lambda: _core.bench_segscan(WORLD, "int64", "max", 8, length, 3, 0, False), "DM_ERR_ARG",
                      r"segment_length")


def test_local_kernels():
    for nbytes in (0, 100, 1 << 16):
        check_all(WORLD, min(_core.bench_memcopy(nbytes, 3, 1, 2)) >= 0, f"memcopy {nbytes}")
    for op in local.VECTOR_OPS:
        for single in (True, False):
            check_all(WORLD, min(_core.bench_vector(op, single, 1000, 3, 1, 2)) > 0, f"{op} single={single}")
            check_all(WORLD, min(_core.bench_vector(op, single, 1000, 3, 1, 2, True)) > 0, f"scalar {op} {single}")
            check_all(WORLD, len(_core.bench_vector(op, single, 0, 2, 0, 1, scalar=True)) == 2, f"empty {op}")
    assert [_core.vector_op_flops(op) for op in local.VECTOR_OPS] == [1, 1, 1, 1, 2, 3]
    with pytest.raises(Exception, match="unknown vector operation"):
        _core.bench_vector("b/c", False, 10, 1, 0, 1)


def test_vector_crossover():
    lengths = [4, 16, 256, 4096]
    assert local.vector_crossover(lengths, [2, 1, 1, 1], [1, 2, 2, 2]) == 16
    assert local.vector_crossover(lengths, [1, 2, 1, 1], [2, 1, 2, 2]) == 256  # must stay below
    assert local.vector_crossover(lengths, [1, 1, 1, 1], [2, 2, 2, 2]) == 4
    assert local.vector_crossover(lengths, [1, 1, 1, 3], [2, 2, 2, 2]) is None
    assert local.vector_crossover(lengths, [2, 2, 2, 2], [2, 2, 2, 2]) is None  # ties are no win


@pytest.mark.parallel(nprocs=[2])
def test_segscan_and_nv_summaries():
    doc = suites.run_suites(["collectives", "local"], WORLD, quick=True, validate=True)
    ok, why = True, ""
    if WORLD.rank == 0:
        scans = [r for r in doc["results"] if r["kernel"] == "segscan"]
        vectors = [r for r in doc["results"] if r["kernel"] == "vector"]
        ok = (sorted((r["params"]["dtype"], r["params"]["op"]) for r in scans) == sorted(collectives.SEGSCANS)
              and all(r["params"]["segment_length"] == collectives.SEGMENT_LENGTH for r in scans)
              and all([row["bytes"] for row in r["rows"]] == [8, 4096, 65536] for r in scans)
              and all({"bytes", "ranks", "median_us", "ci95_us", "samples_us"} <= set(row)
                      for r in scans for row in r["rows"])
              and len(vectors) == 12
              and all("nv" in r["params"] and "rinf_mflops" in r["params"] and "nhalf" in r["params"]
                      for r in vectors)
              and all(r["params"]["nv"] is None or r["params"]["nv"] in [row["elements"] for row in r["rows"]]
                      for r in vectors)
              and all(row["scalar_median_us"] > 0 for r in vectors for row in r["rows"]))
        why = f"segscan {[r['params'] for r in scans]}; vector {[r['params'] for r in vectors][:2]}"
    check_all(WORLD, ok, why)


@pytest.mark.parallel(nprocs=[2, 3])
def test_patterns_suite_entries():
    doc = suites.run_suites(["patterns"], WORLD, quick=True, validate=True)
    ok, why = True, ""
    if WORLD.rank == 0:
        by_kernel = {}
        for r in doc["results"]:
            by_kernel.setdefault(r["kernel"], []).append(r)
        summary = {"median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_us", "reps", "samples_us"}
        sizes = [8, 4096, 65536]
        hyper, = by_kernel["hypercube"]
        matching, = by_kernel["matching"]
        chain, = by_kernel["chain"]
        meshes = by_kernel["mesh_shift"]
        dims = range(1, SIZE.bit_length())
        placements = list(patterns.PLACEMENTS) if SIZE in (2, 4, 8) else ["row-major"]
        ok = (sorted(by_kernel) == ["chain", "hypercube", "matching", "mesh_shift"]
              and [(row["dimension"], row["bytes"], row["ranks"]) for row in hyper["rows"]]
              == [(d, b, 2 ** d) for d in dims for b in sizes]
              and matching["params"] == {"seed": patterns.MATCHING_SEED}
              and all(row["matchings"] == 10 and row["reps"] == 10 and row["spread"] >= 1 and row["ranks"] == SIZE
                      for row in matching["rows"])
              and [row["bytes"] for row in chain["rows"]] == sizes and chain["params"] == {}
              and [m["params"]["placement"] for m in meshes] == placements
              and all(m["params"]["mesh"] == list(patterns.mesh_shape(SIZE)) for m in meshes)
              and all([(row["direction"], row["bytes"]) for row in m["rows"]]
                      == [(d, b) for d in patterns.DIRECTIONS for b in sizes] for m in meshes)
              and all(0 < row["min_rank_median_us"] <= row["max_rank_median_us"] for m in meshes for row in m["rows"])
              and all(summary <= set(row) and "bytes" in row and "ranks" in row
                      for r in doc["results"] for row in r["rows"]))
        why = f"kernels {sorted(by_kernel)}; params {[r['params'] for r in doc['results']]}"
    check_all(WORLD, ok, why)


@pytest.mark.parallel(nprocs=[2, 3])
def test_bad_pairs_fail_everywhere():
    raises_everywhere(WORLD, lambda: _core.bench_pair("pingpong", WORLD, 0, 0, 8, 3, 0, 1, 1, False), "DM_ERR_ARG",
                      r"two distinct ranks")
    raises_everywhere(WORLD, lambda: _core.bench_pair("pingpong", WORLD, 0, SIZE, 8, 3, 0, 1, 1, False),
                      "DM_ERR_ARG", r"two distinct ranks")
    raises_everywhere(WORLD, lambda: _core.bench_pair("teleport", WORLD, 0, 1, 8, 3, 0, 1, 1, False), "DM_ERR_ARG",
                      r"unknown point-to-point kernel")
    raises_everywhere(WORLD, lambda: _core.bench_collective("gossip", WORLD, 8, 3, 0, False), "DM_ERR_ARG",
                      r"unknown collective")


@pytest.mark.parallel(nprocs=[2, 4])
def test_command_line_round_trip():
    """bench -> model fit -> model predict -> report through the command line: every
    suite at 2 ranks; at 4 only the suites whose rows depend on the rank count (the
    others take 90 s there, and their 4-rank entries are their own files' tests)."""
    folder = WORLD.bcast(tempfile.mkdtemp() if WORLD.rank == 0 else None)
    results, model = os.path.join(folder, "results.json"), os.path.join(folder, "model.json")
    names = ["all"] if SIZE == 2 else ["pt2pt", "collectives"]
    assert cli.main(["bench", *names, "--quick", "--validate", "--thread-level", "funneled", "--out", results]) == 0
    ok, why = True, ""
    if WORLD.rank == 0:
        doc = json.load(open(results))
        kernels = {r["kernel"]: r["rows"] for r in doc["results"]}
        rows = kernels["pingpong"]
        ok = (doc["schema"] == "datamotion.bench/1" and doc["provenance"]["ranks"] == SIZE
              and all({"bytes", "median_us", "ci95_us", "samples_us"} <= set(r) for r in rows)
              and [r["ranks"] for r in kernels["barrier"]] == list(range(2, SIZE + 1))
              and len(kernels["distance"]) == SIZE - 1
              # MPI was initialised by the test process, before the command: recorded and warned about
              and doc["thread_level_requested"] == "funneled"
              and any("funneled was requested" in w for w in doc["warnings"]))
        params = {r["kernel"]: r["params"] for r in doc["results"]}
        validated = {**stats.osu_params("bandwidth"), "receive_buffers": "one per message (validated)"}
        ok = ok and (params["stream"] == params["bidir"] == validated
                     and params["pingpong"] == stats.osu_params("latency")
                     and params["barrier"] == params["allreduce"] == stats.osu_params("collective"))
        why = f"document: {sorted(kernels)}"
        if ok:
            assert cli.main(["model", "fit", results, "--out", model]) == 0
            fitted = json.load(open(model))
            ok = "pingpong" in fitted["models"] and (SIZE < 3 or "barrier" in fitted["models"])
            why = f"model: {sorted(fitted['models'])}"
            assert cli.main(["model", "predict", model, "pingpong", "--bytes", "1024"]) == 0
        if ok:  # the report runs offline, on this rank only: no MPI call in it
            out = os.path.join(folder, "report")
            try:
                ok = cli.main(["report", results, "--model", model, "--out", out]) == 0
                files = sorted(os.listdir(out))
            except (Exception, SystemExit) as exc:
                ok, files = False, [f"{type(exc).__name__}: {exc}"]
            ok = ok and "index.html" in files and any(f.endswith(".png") for f in files)
            why = f"report: {files}"
    check_all(WORLD, ok, why)


def test_the_command_line_lists_every_suite():
    assert tuple(suites.SUITES) == constants.SUITE_NAMES
    help_text = cli._parser().format_help() + "".join(
        action.choices["bench"].format_help() for action in cli._parser()._subparsers._group_actions)
    assert all(name in help_text for name in constants.SUITE_NAMES)


def test_an_unknown_suite_is_refused_before_any_job_starts(capsys):
    with pytest.raises(SystemExit) as refused:
        cli.main(["bench", "teleport", "--out", "never.json"])
    assert refused.value.code == 2 and "invalid choice: 'teleport'" in capsys.readouterr().err
    assert not os.path.exists("never.json")
