"""Measurement kernels run at 2-4 ranks with every received byte checked; the
results document has the documented fields; the command line round trip
(bench -> model fit -> model predict) works inside an MPI job."""

import json
import os
import tempfile

import numpy as np
import pytest

from datamotion import _core
from datamotion import bench, cli
from dmtest import WORLD, check_all, raises_everywhere

SIZE = WORLD.size


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("kernel", bench.PAIR_KERNELS)
def test_pair_kernels_with_validation(kernel):
    b = SIZE - 1  # the farthest pair, so ranks in between only synchronise
    for nbytes in (0, 1, 1000, 70000):
        samples = _core.bench_pair(kernel, WORLD, 0, b, nbytes, 3, 1, 2, 4, True)
        mine = WORLD.rank in (0, b)
        check_all(WORLD, len(samples) == (3 if mine else 0) and all(s > 0 for s in samples),
                  f"{kernel} {nbytes} B: samples {samples}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_barrier_kernel_and_summary():
    samples = _core.bench_barrier(WORLD, 5, 1)
    check_all(WORLD, len(samples) == 5 and min(samples) > 0, f"{samples}")
    s = bench.summarize(samples)
    check_all(WORLD, s["ci95_us"][0] <= s["median_us"] <= s["ci95_us"][1] and s["reps"] == 5, f"{s}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
@pytest.mark.parametrize("op", bench.COLLECTIVES)
def test_collective_kernels_with_validation(op):
    for nbytes in (0, 8, 1000, 40000):
        samples = _core.bench_collective(op, WORLD, nbytes, 3, 1, True)
        check_all(WORLD, len(samples) == 3 and min(samples) > 0, f"{op} {nbytes} B: {samples}")


def test_local_kernels():
    for nbytes in (0, 100, 1 << 16):
        check_all(WORLD, min(_core.bench_memcopy(nbytes, 3, 1, 2)) >= 0, f"memcopy {nbytes}")
    for op in bench.VECTOR_OPS:
        for single in (True, False):
            check_all(WORLD, min(_core.bench_vector(op, single, 1000, 3, 1, 2)) > 0, f"{op} single={single}")
    assert [_core.vector_op_flops(op) for op in bench.VECTOR_OPS] == [1, 1, 1, 1, 2, 3]
    with pytest.raises(Exception, match="unknown vector operation"):
        _core.bench_vector("b/c", False, 10, 1, 0, 1)


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
    folder = WORLD.bcast(tempfile.mkdtemp() if WORLD.rank == 0 else None)
    results, model = os.path.join(folder, "results.json"), os.path.join(folder, "model.json")
    assert cli.main(["bench", "all", "--quick", "--validate", "--out", results]) == 0
    ok, why = True, ""
    if WORLD.rank == 0:
        doc = json.load(open(results))
        kernels = {r["kernel"]: r["rows"] for r in doc["results"]}
        rows = kernels["pingpong"]
        ok = (doc["schema"] == "datamotion.bench/1" and doc["provenance"]["ranks"] == SIZE
              and all({"bytes", "median_us", "ci95_us", "samples_us"} <= set(r) for r in rows)
              and [r["ranks"] for r in kernels["barrier"]] == list(range(2, SIZE + 1))
              and len(kernels["distance"]) == SIZE - 1)
        why = f"document: {sorted(kernels)}"
        if ok:
            assert cli.main(["model", "fit", results, "--out", model]) == 0
            fitted = json.load(open(model))
            ok = "pingpong" in fitted["models"] and (SIZE < 3 or "barrier" in fitted["models"])
            why = f"model: {sorted(fitted['models'])}"
            assert cli.main(["model", "predict", model, "pingpong", "--bytes", "1024"]) == 0
    check_all(WORLD, ok, why)
