"""The CM-5 paper's experiments (datamotion bench cm5): the kernels check what they
receive and fail alike on every rank for bad arguments; the quick suite returns
every experiment with the documented params and rows (every Table 4 operator x
type, exactly the mesh factorisations, every hypercube dimension); the report of
a synthetic document renders every subsection beside the paper's numbers
(serial, no MPI). No timing thresholds."""

import re

import numpy as np
import pytest

from datamotion import _core
from datamotion.measure import suites
from datamotion.measure.report import cm5 as report_cm5
from datamotion.measure.report import write_report
from datamotion.measure.suites import cm5
from dmtest import WORLD, check_all, raises_everywhere

SIZE = WORLD.size
SUMMARY = {"median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_us", "reps", "samples_us"}


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("operands", cm5.SCALAR_OPERANDS)
@pytest.mark.parametrize("dtype", cm5.SCALAR_DTYPES + ("int64",))
def test_scalar_kernel_gives_positive_samples(operands, dtype):
    for op in cm5.SCALAR_OPS:
        samples = _core.bench_cm5_scalar_op(dtype, op, operands, 64, 3, 1, 2)
        assert len(samples) == 3 and all(s > 0 for s in samples), (operands, dtype, op)
    assert _core.cm5_scalar_op_count("madd") == 2 and _core.cm5_scalar_op_count("divide") == 1


def test_scalar_kernel_rejects_bad_arguments():
    for args, match in ((("int8", "add", "registers", 64), "unknown element type"),
                        (("int32", "modulo", "registers", 64), "unknown scalar operation"),
                        (("int32", "add", "a&b", 64), "unknown operands"),
                        (("int32", "add", "registers", 6), "multiple of 4")):
        with pytest.raises(Exception, match=match):
            _core.bench_cm5_scalar_op(*args, 2, 0, 1)


def test_table4_combinations_and_shapes():
    combos = cm5.table4_combinations()
    assert len(combos) == len(set(combos)) == 3 * (3 * 9 + 2 * 4)
    assert ("allreduce", "bxor", "uint32") in combos and ("scan", "band", "float64") not in combos
    assert cm5.mesh_shapes(2) == [(1, 2), (2, 1)]
    assert cm5.mesh_shapes(4) == [(1, 4), (2, 2), (4, 1)]
    assert cm5.mesh_shapes(6) == [(1, 6), (2, 3), (3, 2), (6, 1)]
    assert cm5.mesh_shapes(7) == [(1, 7), (7, 1)]
    assert [cm5.hypercube_dimensions(p) for p in (2, 3, 4, 7, 8)] == [1, 1, 2, 2, 3]


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_every_reduction_validates():
    # One element per rank is validated by the suite's run; here a longer vector, once each.
    for coll, op, dtype in cm5.table4_combinations():
        samples = _core.bench_cm5_reduction(WORLD, coll, op, dtype, 37, 1, 0, True)
        check_all(WORLD, len(samples) == 1 and samples[0] >= 0, f"{coll} {op} {dtype}")


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_aligned_pingpong_and_hypercube_dimension_validate():
    for nbytes in (0, 1, 17, 333, 4096):
        for offset in cm5.ALIGNMENT_OFFSETS + (63,):
            samples = _core.bench_cm5_aligned_pingpong(WORLD, 0, SIZE - 1, nbytes, offset, 2, 1, 2, True)
            check_all(WORLD, len(samples) == (2 if WORLD.rank in (0, SIZE - 1) else 0), f"{nbytes} {offset}")
    for dim in range(cm5.hypercube_dimensions(SIZE)):
        for nbytes in (0, 8, 65536):
            samples = _core.bench_cm5_hypercube_dimension(WORLD, dim, nbytes, 3, 1, True)
            check_all(WORLD, len(samples) == 3 and all(s >= 0 for s in samples), f"dimension {dim}")


@pytest.mark.parallel(nprocs=[2, 3])
def test_bad_collective_arguments_fail_everywhere():
    raises_everywhere(WORLD, lambda: _core.bench_cm5_reduction(WORLD, "scan", "bxor", "float64", 1, 2, 0, False),
                      "DM_ERR_ARG", r"integer types only")
    raises_everywhere(WORLD, lambda: _core.bench_cm5_reduction(WORLD, "gather", "sum", "int32", 1, 2, 0, False),
                      "DM_ERR_ARG", r"unknown reduction collective")
    raises_everywhere(WORLD, lambda: _core.bench_cm5_reduction(WORLD, "scan", "sum", "int8", 1, 2, 0, False),
                      "DM_ERR_ARG", r"unknown element type")
    raises_everywhere(WORLD, lambda: _core.bench_cm5_aligned_pingpong(WORLD, 0, 1, 8, 64, 2, 0, 1, False),
                      "DM_ERR_ARG", r"offset")
    raises_everywhere(WORLD, lambda: _core.bench_cm5_hypercube_dimension(WORLD, cm5.hypercube_dimensions(SIZE), 8,
                                                                         2, 0, False), "DM_ERR_ARG", r"outside")


# ---------------------------------------------------------------------------
# The suite
# ---------------------------------------------------------------------------

@pytest.mark.parallel(nprocs=[2, 3])
def test_quick_suite_entries():
    doc = suites.run_suites(["cm5"], WORLD, quick=True, validate=True)
    ok, why = True, ""
    if WORLD.rank == 0:
        by_kernel = {}
        for entry in doc["results"]:
            by_kernel.setdefault(entry["kernel"], []).append(entry)
        problems = []

        def expect(cond, what):
            if not cond:
                problems.append(what)

        expect(sorted(by_kernel) == sorted(report_cm5.EXPERIMENT_KERNELS), f"kernels {sorted(by_kernel)}")
        expect(all(SUMMARY <= set(row) for e in doc["results"] for row in e["rows"]), "summary fields")
        scalar, = by_kernel["cm5_scalar_ops"]
        expect(sorted((r["operands"], r["op"], r["dtype"]) for r in scalar["rows"])
               == sorted((f, o, d) for f in cm5.SCALAR_OPERANDS for o in cm5.SCALAR_OPS for d in cm5.SCALAR_DTYPES),
               "scalar rows")
        expect(all(r["ns_per_statement"] > 0 and r["mops"] > 0 for r in scalar["rows"]), "scalar rates")
        reductions, = by_kernel["cm5_reduction_ops"]
        measured = {(r["collective"], r["op"], r["dtype"]) for r in reductions["rows"]}
        expect(set(cm5.table4_combinations()) <= measured, "Table 4 combinations")
        expect({("segscan", "sum" if o == "add" else o, d) for d, o in cm5.SEGSCAN_COMBOS} <= measured, "segscans")
        expect(all(r["ranks"] == SIZE and r["count"] == 1 for r in reductions["rows"]), "reduction rows")
        alignment, = by_kernel["cm5_alignment"]
        offsets = {r["offset"] for r in alignment["rows"]}
        zero = sorted(r["bytes"] for r in alignment["rows"] if r["offset"] == 0)
        expect(offsets == set(cm5.ALIGNMENT_OFFSETS) and zero[0] == 0 and max(np.diff(zero)) <= 8, "alignment")
        distance, = by_kernel["cm5_distance"]
        expect(sorted((r["bytes"], r["dst"]) for r in distance["rows"])
               == [(b, d) for b in cm5.DISTANCE_SIZES for d in range(1, SIZE)], "distance rows")
        meshes = by_kernel["cm5_mesh_shift"]
        expect([tuple(m["params"]["mesh"]) for m in meshes] == cm5.mesh_shapes(SIZE), "mesh shapes")
        expect(all(m["params"]["placement"] == "shuffle" and {r["direction"] for r in m["rows"]}
                   == {"north", "east", "west", "south"}
                   and all(0 < r["min_rank_median_us"] <= r["max_rank_median_us"] for r in m["rows"])
                   for m in meshes), "mesh rows")
        hyper, = by_kernel["cm5_hypercube_dimension"]
        expect({r["dimension"] for r in hyper["rows"]} == set(range(cm5.hypercube_dimensions(SIZE))), "dimensions")
        aggregate = by_kernel["cm5_aggregate_flops"]
        expect({(e["params"]["op"], e["params"]["dtype"]) for e in aggregate}
               == {(f"a={op}", d) for op in ("s*b+c", "b*c+d*e") for d in ("float32", "float64")}, "aggregate ops")
        expect(all([r["ranks"] for r in e["rows"]] == list(range(1, SIZE + 1))
                   and all(r["aggregate_mflops"] > 0 and r["min_rank_mflops"] <= r["max_rank_mflops"]
                           for r in e["rows"]) for e in aggregate), "aggregate rows")
        ok, why = not problems, "; ".join(problems)
    check_all(WORLD, ok, why)


# ---------------------------------------------------------------------------
# The report (serial)
# ---------------------------------------------------------------------------

def _row(median, **fields):
    return {**fields, "median_us": median, "p05_us": 0.9 * median, "p95_us": 1.2 * median, "mean_us": median,
            "min_us": 0.8 * median, "ci95_us": [0.95 * median, 1.05 * median], "reps": 3,
            "samples_us": [0.9 * median, median, 1.1 * median]}


def synthetic_cm5_results():
    """A results document with every experiment of the cm5 suite on 4 ranks, and a cumulative hypercube."""
    results = [{"kernel": "cm5_scalar_ops", "params": {"elements": 512},
                "rows": [_row(0.3e-3, operands=f, op=o, dtype=d, ops_per_statement=2 if o == "madd" else 1,
                              ns_per_statement=0.3, mops=3333.0, ranks=1, elements=512)
                         for f in cm5.SCALAR_OPERANDS for o in cm5.SCALAR_OPS for d in cm5.SCALAR_DTYPES]}]
    rows = [_row(2.0 + i * 0.01, collective=c, op=o, dtype=d, count=1, bytes=4, ranks=4)
            for i, (c, o, d) in enumerate(cm5.table4_combinations())]
    rows += [_row(5.0, collective="allreduce", op="sum", dtype="float64", count=8192, bytes=65536, ranks=4)]
    rows += [_row(3.0, collective="segscan", op="sum" if o == "add" else o, dtype=d, count=1, bytes=8, ranks=4)
             for d, o in cm5.SEGSCAN_COMBOS]
    results.append({"kernel": "cm5_reduction_ops", "params": {"ranks": 4, "segment_length": 10}, "rows": rows})
    results.append({"kernel": "cm5_alignment", "params": {"offsets": list(cm5.ALIGNMENT_OFFSETS)},
                    "rows": [_row(1.0 + b / 1000 + 0.1 * (b % 16 != 0) + 0.05 * off, bytes=b, offset=off, ranks=2)
                             for b in range(0, 577, 4) for off in cm5.ALIGNMENT_OFFSETS if off == 0 or b >= 256]})
    results.append({"kernel": "cm5_distance", "params": {"sizes": [16, 1024]},
                    "rows": [_row(2.0 + b / 1000 + 0.1 * d, bytes=b, ranks=2, src=0, dst=d)
                             for b in (16, 1024) for d in (1, 2, 3)]})
    for r, c in cm5.mesh_shapes(4):
        results.append({"kernel": "cm5_mesh_shift", "params": {"placement": "shuffle", "mesh": [r, c]},
                        "rows": [{**_row(5.0 + b / 4000, direction=d, bytes=b, ranks=4),
                                  "min_rank_median_us": 4.0 + b / 4000, "max_rank_median_us": 5.0 + b / 4000}
                                 for d in ("north", "east", "west", "south") for b in (16384, 65536)]})
    results.append({"kernel": "cm5_hypercube_dimension", "params": {},
                    "rows": [_row(3.0 + b / 5000, dimension=d, bytes=b, ranks=4) for d in (0, 1)
                             for b in (16, 1024, 65536)]})
    results.append({"kernel": "hypercube", "params": {},
                    "rows": [_row(6.0 + d * b / 5000, dimension=d, bytes=b, ranks=2 ** d) for d in (1, 2)
                             for b in (16, 1024, 65536)]})
    for op in ("s*b+c", "b*c+d*e"):
        results.append({"kernel": "cm5_aggregate_flops", "params": {"op": f"a={op}", "dtype": "float64",
                                                                    "elements": 4096, "flops_per_element": 2},
                        "rows": [_row(1.0, ranks=p, elements=4096, bytes=32768, aggregate_mflops=8000.0 * p,
                                      min_rank_mflops=7900.0, max_rank_mflops=8100.0,
                                      aggregate_wall_mflops=7000.0 * p) for p in (1, 2, 3, 4)]})
    return {"schema": "datamotion.bench/1", "provenance": {"ranks": 4}, "quick": True, "validated": True,
            "warnings": [], "results": results}


SUBSECTIONS = ("cm5-scalar", "cm5-reductions", "cm5-alignment", "cm5-distance-1k", "cm5-mesh-shapes",
               "cm5-hypercube-dimension", "cm5-aggregate")


def test_report_renders_every_subsection_beside_the_paper(tmp_path):
    index = write_report(synthetic_cm5_results(), str(tmp_path))
    text = open(index, encoding="utf-8").read()
    for sid in SUBSECTIONS:
        match = re.search(rf'<section id="{sid}">(.*?)</section>', text, re.S)
        assert match, sid
        body = match.group(1)
        assert "<div class=beside>" in body and "the paper: " in body, sid
        assert "<img src=" in body and "<table>" in body, sid
    for name in re.findall(r'<img src="([^"]+)"', text):
        assert (tmp_path / name).stat().st_size > 2000, name
    assert 'id="other"' not in text  # every cm5 kernel has a section
    # The paper's numbers are quoted as published.
    assert "84.65" in text and "57.35" in text and "16.55" in text and "13.59" in text and "1.76" in text
    # Every Table 4 operator of ours is a column of our table.
    reductions = re.search(r'<section id="cm5-reductions">(.*?)</section>', text, re.S).group(1)
    for op in ("sum", "prod", "max", "min", "band", "bor", "bxor", "land", "lor"):
        assert f"<th>{op}</th>" in reductions, op
    meshes = re.search(r'<section id="cm5-mesh-shapes">(.*?)</section>', text, re.S).group(1)
    for shape in ("1x4", "2x2", "4x1"):
        assert shape in meshes, shape


def test_report_without_cm5_experiments_has_none_of_their_subsections(tmp_path):
    doc = synthetic_cm5_results()
    doc["results"] = [e for e in doc["results"] if e["kernel"] == "hypercube"]
    text = open(write_report(doc, str(tmp_path)), encoding="utf-8").read()
    assert not any(f'id="{sid}"' in text for sid in SUBSECTIONS)
