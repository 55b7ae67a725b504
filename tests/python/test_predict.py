"""Prediction of the Gaussian elimination program (datamotion.measure.gauss): exact
sums on synthetic models, input checking, and the measurement at 2 ranks."""

import math

import numpy as np
import pytest

from datamotion.measure import fit as dmm
from datamotion.measure import gauss as predict
from dmtest import WORLD, check_all

ALLREDUCE_US = 2.0          # A(8)
BCAST_T0, BCAST_SLOPE = 10.0, 0.01   # B(l) = 10 + 0.01 l
VEC_T0, VEC_SLOPE = 1.0, 0.5         # V(L) = 1 + 0.5 L


def line(t0, slope, lo=8, hi=8192):
    seg = dmm.Segment(start_bytes=lo, end_bytes=hi, t0_us=t0, us_per_byte=slope, t0_ci95=(t0, t0),
                      us_per_byte_ci95=(slope, slope), r2=1.0, n=3)
    return dmm.PiecewiseFit(segments=[seg], breakpoints_bytes=[], r2=1.0, rmse_us=0.0, n=3).to_dict()


def synthetic(ranks=2, without=()):
    models = {
        "allreduce": {"kernel": "allreduce", "params": {}, "model": "piecewise", "ranks": [ranks],
                      "fit": line(ALLREDUCE_US, 0.0)},
        "bcast": {"kernel": "bcast", "params": {}, "model": "piecewise", "ranks": [ranks],
                  "fit": line(BCAST_T0, BCAST_SLOPE)},
        "vector[a=s*b+c,float64]": {"kernel": "vector", "params": {"op": "a=s*b+c", "dtype": "float64"},
                                    "model": "piecewise", "ranks": [ranks], "fit": line(VEC_T0, VEC_SLOPE, 2, 513)},
    }
    for key in without:
        del models[key]
    return {"schema": dmm.MODEL_SCHEMA, "models": models, "skipped": {}, "notes": []}


def oracle_us(n, ranks, pivots=None):
    """The model's sum, iteration by iteration and rank by rank, in plain Python."""
    pivots = list(range(n)) if pivots is None else list(pivots)
    bs = -(-n // ranks)
    V = lambda length: VEC_T0 + VEC_SLOPE * length if length > 0 else 0.0  # noqa: E731
    done, total = set(), 0.0
    for j, pivot in enumerate(pivots):
        slowest = 0.0
        for r in range(ranks):
            active = [i for i in range(r * bs, min(n, (r + 1) * bs)) if i not in done]
            updated = len(active) - (pivot in active)
            slowest = max(slowest, V(len(active)) + V(updated) + updated * V(n + 1 - j))
        done.add(pivot)
        total += 2 * ALLREDUCE_US + BCAST_T0 + BCAST_SLOPE * 8 * (n + 1) + slowest
    return total


def test_hand_computed_total_n4_p2():
    # Rank 0 holds rows 0-1, rank 1 rows 2-3; V(L) = 1 + L/2; B(40 B) = 10.4 us.
    # Slowest rank's compute per column: 11 (rank 1: V(2) + V(2) + 2 V(5)), 10, 6, 1.5.
    p = predict.gauss_elimination(synthetic(), 4, 2)
    assert p["n"] == 4 and p["ranks"] == 2
    assert p["total_us"]["compute"] == pytest.approx(28.5)
    assert p["total_us"]["search"] == pytest.approx(7.5)
    assert p["total_us"]["multipliers"] == pytest.approx(5.5)
    assert p["total_us"]["update"] == pytest.approx(15.5)
    assert p["total_us"]["bcast"] == pytest.approx(4 * 10.4)
    assert p["total_us"]["reduce_double"] == p["total_us"]["reduce_int"] == pytest.approx(8.0)
    assert p["total_ms"] == pytest.approx(0.0861)
    assert p["per_iteration_us"]["iteration"] * 4 == pytest.approx(86.1)
    assert p["primitives"]["bcast_bytes"] == 40


def test_broadcast_cost_follows_the_owner_of_the_pivot_row():
    # Rows 0-1 (columns 0, 1) come from rank 0 at 10.4 us, rows 2-3 from rank 1 at 20.4 us.
    model = synthetic()
    bcast = model["models"].pop("bcast")
    for root, t0 in ((0, BCAST_T0), (1, 2 * BCAST_T0)):
        model["models"][f"bcast[root={root}]"] = {**bcast, "params": {"root": root}, "fit": line(t0, BCAST_SLOPE)}
    p = predict.gauss_elimination(model, 4, 2)
    assert p["total_us"]["bcast"] == pytest.approx(2 * 10.4 + 2 * 20.4)
    assert p["primitives"]["bcast_by_root_us"] == pytest.approx([10.4, 20.4])
    assert p["total_ms"] == pytest.approx(0.1061)
    del model["models"]["bcast[root=1]"]
    with pytest.raises(ValueError, match=r"no bcast from root\(s\) \[1\]"):
        predict.gauss_elimination(model, 4, 2)


def test_pivot_order_changes_the_work():
    # Pivots 0, 2, 1, 3: the slowest rank computes 11, 6.5, 5.5 and 1.5.
    p = predict.gauss_elimination(synthetic(), 4, 2, pivots=[0, 2, 1, 3])
    assert p["total_us"]["compute"] == pytest.approx(24.5)
    assert p["total_ms"] == pytest.approx(0.0821)


@pytest.mark.parametrize("n,ranks", [(1, 1), (5, 2), (7, 3), (3, 5), (16, 4), (33, 2)])
def test_sum_matches_the_iteration_by_iteration_oracle(n, ranks):
    rng = np.random.default_rng(n * 10 + ranks)
    for pivots in (None, list(range(n))[::-1], [int(x) for x in rng.permutation(n)]):
        p = predict.gauss_elimination(synthetic(ranks), n, ranks, pivots=pivots)
        assert p["total_ms"] * 1e3 == pytest.approx(oracle_us(n, ranks, pivots), rel=1e-12)


def test_rows_for_the_table():
    rows = predict.gauss_rows(synthetic(), [{"n": 4, "ranks": 2, "median_ms": 0.1}])
    assert set(rows[0]) == {"n", "ranks", "bytes", "predicted_ms", "measured_ms", "error_pct", "reduce_double_us",
                            "reduce_int_us", "bcast_us", "compute_us", "iteration_us"}
    assert rows[0]["error_pct"] == pytest.approx(-13.9)
    assert rows[0]["iteration_us"] == pytest.approx(86.1 / 4)


@pytest.mark.parametrize("n,ranks", [(0, 2), (-3, 2), (2.5, 2), (True, 2), (4, 0), (4, -1), (4, None)])
def test_bad_sizes_and_ranks(n, ranks):
    with pytest.raises(ValueError, match="must be an integer >= 1"):
        predict.gauss_elimination(synthetic(), n, ranks)


@pytest.mark.parametrize("missing,name", [("allreduce", "allreduce"), ("bcast", "bcast"),
                                          ("vector[a=s*b+c,float64]", "vector")])
def test_missing_kernels_are_named(missing, name):
    with pytest.raises(ValueError, match=f"no {name}"):
        predict.gauss_elimination(synthetic(without=[missing]), 8, 2)


def test_bad_models_and_pivots():
    with pytest.raises(ValueError, match="datamotion.model/1"):
        predict.gauss_elimination({"schema": "something else"}, 8, 2)
    with pytest.raises(ValueError, match="measured at \\[2\\] rank"):
        predict.gauss_elimination(synthetic(2), 8, 4)
    for pivots in ([0, 1, 2], [0, 0, 1, 2], [0, 1, 2, 4], [0.0, 1.0, 2.0, 3.0]):
        with pytest.raises(ValueError, match="permutation"):
            predict.gauss_elimination(synthetic(), 4, 2, pivots=pivots)


def results_document():
    """Noise-free measurements of A(8) = 2, B(l) = 10 + 0.01 l and V(L) = 1 + 0.5 L at 2 ranks,
    with a float32 vector entry that must not be used."""
    def rows(sizes, f, **extra):
        return [{"bytes": s, "ranks": 2, "median_us": f(s), **extra} for s in sizes]
    vector = [{"elements": n, "bytes": 8 * n, "ranks": 2, "median_us": VEC_T0 + VEC_SLOPE * n} for n in (2, 8, 64, 513)]
    single = [{**r, "bytes": 4 * r["elements"], "median_us": 99.0 + r["elements"]} for r in vector]
    return {"schema": dmm.RESULTS_SCHEMA, "provenance": {}, "results": [
        {"kernel": "allreduce", "params": {}, "rows": rows([8, 16, 32, 64], lambda s: ALLREDUCE_US)},
        {"kernel": "bcast", "params": {}, "rows": rows([8, 64, 520, 4104], lambda s: BCAST_T0 + BCAST_SLOPE * s)},
        {"kernel": "vector", "params": {"op": "a=s*b+c", "dtype": "float32"}, "rows": single},
        {"kernel": "vector", "params": {"op": "a=s*b+c", "dtype": "float64"}, "rows": vector},
    ]}


def test_primitive_model_fits_what_the_prediction_reads():
    fitted = predict.primitive_model(results_document())
    assert fitted["schema"] == dmm.MODEL_SCHEMA
    assert {"allreduce", "bcast", "vector[a=s*b+c,float64]", "vector[a=s*b+c,float32]"} <= set(fitted["models"])
    assert not [k for k in fitted["skipped"] if k.startswith("vector")]
    p = predict.gauss_elimination(fitted, 4, 2)
    assert p["total_ms"] == pytest.approx(0.0861, rel=1e-6)
    assert p["primitives"]["vector_rinf_mflops"] == pytest.approx(4.0)  # 2 flops per 0.5 us


@pytest.mark.parallel(nprocs=[2])
def test_measured_primitives_give_a_prediction():
    doc = predict.measure_primitives(WORLD, [16, 40], quick=True)
    entries = [(e["kernel"], e["params"].get("root")) for e in doc["results"]]
    by_kernel = {e["kernel"]: e for e in doc["results"]}
    problems = []
    want = ([("allreduce", None), ("bcast", 0), ("bcast", 1), ("vector", None), ("row_update", None),
             ("row_update", None)] + [("row_update", None), ("pivot_search", None), ("multipliers", None)] * 2)
    if doc["schema"] != dmm.RESULTS_SCHEMA or entries != want:
        problems.append(f"entries {entries}")
    for kernel, root in entries[1:3]:
        rows = doc["results"][entries.index((kernel, root))]["rows"]
        if {r["bytes"] for r in rows} != {8, 64, 136, 328, 512}:
            problems.append(f"bcast from {root}: sizes {[r['bytes'] for r in rows]}")
    for e in doc["results"]:
        # Root 1 is root 0's kernel time plus a difference of medians: never negative, and
        # zero only if the machine is too busy to tell; everything measured directly is positive.
        derived = e["params"].get("root", 0) > 0
        bad = [r for r in e["rows"] if r["ranks"] != 2 or not (r["median_us"] >= 0 if derived else r["median_us"] > 0)]
        if bad:
            problems.append(f"{e['kernel']} {e['params']}: rows {bad[:2]}")
    vector = by_kernel["vector"]["rows"]
    if max(r["elements"] for r in vector) != 41 or any(len(r["median_by_rank_us"]) != 2 for r in vector):
        problems.append(f"vector rows {[(r['elements'], r['median_by_rank_us']) for r in vector]}")
    check_all(WORLD, not problems, "; ".join(problems))
    same = WORLD.allgather(doc["results"][0]["rows"][0]["median_us"])
    check_all(WORLD, len(set(same)) == 1, f"documents differ across ranks: {same}")
    p = predict.gauss_elimination(predict.primitive_model(doc), 40, 2)
    check_all(WORLD, math.isfinite(p["total_ms"]) and p["total_ms"] > 0, f"prediction {p['total_ms']}")
    check_all(WORLD, "row_update_u0_us" in p["primitives"], "the prediction did not use the row update")
    # The row update at the program's geometry: per N, sampled iterations, the most rows a rank updates there.
    geometry = [e for e in doc["results"] if e["kernel"] == "row_update" and "n" in e["params"]]
    got = [(e["params"]["n"], [(r["iteration"], r["rows"], r["elements"]) for r in e["rows"]]) for e in geometry]
    want = [(16, [(j, 8 if j < 8 else 15 - j, 17 - j) for j in (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)]),
            (40, [(j, 20 if j < 20 else 39 - j, 41 - j) for j in (0, 3, 5, 8, 10, 13, 16, 18, 21, 23, 26, 29, 31,
                                                                 34, 36)])]
    check_all(WORLD, got == want, f"row update at the program's geometry: {got}")
    check_all(WORLD, all(f"{k}_ns_per_{u}_by_iteration" in p["primitives"] for k, u in predict.GEOMETRY_KERNELS.items()),
              f"the prediction did not use the passes at the program's geometry: {sorted(p['primitives'])}")
    columns = [(e["kernel"], e["params"]["n"], [(r["iteration"], r["rows"]) for r in e["rows"]])
               for e in doc["results"] if e["kernel"] in ("pivot_search", "multipliers")]
    want = [(kernel, n, [(j, (n // 2 if j < n // 2 else n - j - (kernel == "multipliers"))) for j in its
                         if (n // 2 if j < n // 2 else n - j - (kernel == "multipliers")) > 0])
            for n, its in ((16, range(16)), (40, (0, 3, 5, 8, 10, 13, 16, 18, 21, 23, 26, 29, 31, 34, 36, 39)))
            for kernel in ("pivot_search", "multipliers")]
    check_all(WORLD, columns == want, f"column passes at the program's geometry: {columns}")


@pytest.mark.parallel(nprocs=[2])
def test_bad_measurement_arguments_fail_on_every_rank():
    for sizes in ([], [0], [8, -1]):
        with pytest.raises(ValueError):
            predict.measure_primitives(WORLD, sizes)


def test_row_updates_are_priced_at_the_rate_of_their_working_set():
    """With the row-update entries the update costs u0 + L e(W) per row, e(W) from the
    fit over working sets: a slower level past 64 KiB makes large matrices slower."""
    u0, fast, slow, row = 0.05, 0.001, 0.004, 512  # us per row, us per element in and out of cache
    model = synthetic()
    sizes = [8192 * 2 ** k for k in range(8)]  # 8 KiB .. 1 MiB
    per_row = [u0 + row * (fast if w < 65536 else slow) for w in sizes]
    hierarchy = dmm.fit_piecewise_linear(sizes, per_row, max_breakpoints=3, min_points=2).to_dict()
    model["models"]["row_update[line]"] = {"kernel": "row_update", "params": {"rows": 8}, "model": "piecewise",
                                           "fit": line(u0, fast, 8, 1025)}
    model["models"]["row_update[working_set]"] = {"kernel": "row_update", "params": {"row_length": row},
                                                  "model": "piecewise", "fit": hierarchy}
    for n in (8, 64):
        p = predict.gauss_elimination(model, n, 2)
        old = predict.gauss_elimination(synthetic(), n, 2)
        updates = 0.0
        for j in range(n):
            rows = n // 2 if j < n // 2 else n - 1 - j  # the slowest rank's rows to update
            w = 8 * rows * (n + 1 - j)
            updates += rows * (u0 + (n + 1 - j) * (fast if w < 65536 else slow)) if rows else 0.0
        assert p["total_us"]["update"] == pytest.approx(updates, rel=1e-6)
        assert p["total_us"]["update"] != pytest.approx(old["total_us"]["update"])
        assert "U(L, W)" in p["formula"]


def test_row_updates_measured_at_the_programs_geometry_are_interpolated_between_iterations():
    """With the row update measured at sampled iterations of this N, iteration j costs
    u_r (N + 1 - j) e(j), e linear between the iterations measured; other orders keep
    the fit over working sets."""
    n, ranks = 8, 2
    model = synthetic()
    model["models"]["row_update[n=8]"] = {"kernel": "row_update", "params": {"n": n, "stride": n + 1},
                                          "model": "samples", "ranks": [ranks], "unit": "element",
                                          "iterations": [0, 4, 6], "us_per_unit": [0.01, 0.03, 0.05]}
    for kernel, per_row in (("pivot_search", 0.5), ("multipliers", 0.25)):  # flat: the same at every iteration
        model["models"][f"{kernel}[n=8]"] = {"kernel": kernel, "params": {"n": n, "stride": n + 1}, "model": "samples",
                                             "ranks": [ranks], "unit": "row", "iterations": [0, 7],
                                             "us_per_unit": [per_row, per_row]}
    p = predict.gauss_elimination(model, n, ranks)
    e = {0: 0.01, 1: 0.015, 2: 0.02, 3: 0.025, 4: 0.03, 5: 0.04, 6: 0.05, 7: 0.05}
    updated = [4 if j < 4 else n - 1 - j for j in range(n)]  # the slowest rank's rows (rank 1's)
    active = [4 if j < 4 else n - j for j in range(n)]
    updates = sum(updated[j] * (n + 1 - j) * e[j] for j in range(n))
    assert p["total_us"]["update"] == pytest.approx(updates, rel=1e-12)
    assert p["total_us"]["search"] == pytest.approx(0.5 * sum(active), rel=1e-12)
    assert p["total_us"]["multipliers"] == pytest.approx(0.25 * sum(updated), rel=1e-12)
    assert "geometry" in p["formula"]
    other = predict.gauss_elimination(model, 16, ranks)
    assert "geometry" not in other["formula"]
    model["models"]["row_update[n=8]"]["ranks"] = [4]  # measured at other ranks: not used
    assert "geometry" not in predict.gauss_elimination(model, n, ranks)["formula"]


def test_the_row_update_kernel_takes_the_programs_geometry():
    from datamotion import Error, _core

    assert all(t > 0 for t in _core.bench_row_update(4, 9, 3, 1, 2, 17, 8))  # columns 8..16 of rows 17 apart
    assert len(_core.bench_row_update(4, 9, 3, 1, 2)) == 3  # rows 9 apart, from column 0
    with pytest.raises(Error, match="exceed the row stride 16"):
        _core.bench_row_update(4, 9, 3, 1, 2, 16, 8)


def test_table7_is_judged_by_the_median_of_the_rounds_errors():
    """benchmarks/gauss_elimination.py: the pooled estimate and measured median, judged by
    the median over the rounds of each round's own error; a round whose primitives and
    runs saw different machines (the +60 % one) does not move it."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "gauss_elimination.py"
    spec = importlib.util.spec_from_file_location("gauss_driver", path)
    driver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(driver)
    by_round = [{64: (1.0, 1.0)}, {64: (1.1, 1.0)}, {64: (1.6, 1.0)}, {64: (0.95, 1.0)}, {64: (1.02, 1.0)}]
    pooled = [{"n": 64, "ranks": 2, "predicted_ms": 1.2, "measured_ms": 1.0, "error_pct": 20.0, "iteration_us": 18.75}]
    (row,) = driver.by_rounds(pooled, by_round)
    assert row["error_pct"] == pytest.approx(2.0) and row["round_errors_pct"] == pytest.approx([0.0, 10, 60, -5, 2])
    assert (row["predicted_ms"], row["measured_ms"], row["pooled_error_pct"], row["iteration_us"]) == (1.2, 1.0, 20.0,
                                                                                                       18.75)
    assert "within +-10 % at every size" in driver.verdict([row], by_round, (0.1, 0.1), 2, 0.0)
    assert driver.parse_args(["--quick"]).rounds == driver.QUICK_ROUNDS
    assert driver.parse_args([]).rounds == driver.ROUNDS


def test_the_gauss_driver_compiles_outside_a_checkout_it_cannot_write(tmp_path):
    """benchmarks/gauss_elimination.py: build/gauss_elimination/ of a writable checkout,
    else a fresh temporary folder (a read-only tree needs no --binary)."""
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "gauss_elimination.py"
    spec = importlib.util.spec_from_file_location("gauss_driver", path)
    driver = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(driver)
    assert driver.program_folder(tmp_path) == tmp_path / "build" / "gauss_elimination"
    unwritable = tmp_path / "a-file"
    unwritable.write_text("")  # a folder cannot be made inside a file, even by root
    folder = driver.program_folder(unwritable)
    assert folder.is_dir() and not str(folder).startswith(str(unwritable))
    folder.rmdir()


def test_the_column_pass_kernel_times_both_passes_and_refuses_bad_arguments():
    from datamotion import Error, _core

    for part in ("search", "multipliers"):
        assert all(t > 0 for t in _core.bench_column_pass(part, 16, 17, 8, 3, 1, 4))  # column 8 of rows 17 apart
    with pytest.raises(Error, match="must be 'search' or 'multipliers', not 'max'"):
        _core.bench_column_pass("max", 16, 17, 8, 3, 1, 4)
    with pytest.raises(Error, match="column 17 is not inside rows of 17"):
        _core.bench_column_pass("search", 16, 17, 17, 3, 1, 4)
    with pytest.raises(Error, match="needs at least one row"):
        _core.bench_column_pass("multipliers", 0, 17, 8, 3, 1, 4)
