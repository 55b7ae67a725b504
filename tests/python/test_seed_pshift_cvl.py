"""The PSHIFT and CVL papers' experiments (suites "pshift" and "cvl") and their report
sections: each quick suite returns its kernels and rows at several rank counts
(validated against NumPy), Eq. 1's fit recovers known constants, and the report of a
synthetic results document draws every subsection. No timing is asserted."""

import itertools
import os

import numpy as np
import pytest

from datamotion.measure import report, suites
from datamotion.measure.suites import cvl, pshift
from dmtest import WORLD, check_all

SUMMARY = {"median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_us", "reps", "samples_us"}


def _quick_run(suite):
    """The quick, validated suite's document and, on rank 0, its entries by kernel (None elsewhere)."""
    doc = suites.run_suites([suite], WORLD, quick=True, validate=True)
    if WORLD.rank != 0:
        return doc, None
    got = {}
    for entry in doc["results"]:
        got.setdefault(entry["kernel"], []).append(entry)
    return doc, got


@pytest.mark.parallel(nprocs=[2, 3])
def test_pshift_suite_quick_entries():
    doc, got = _quick_run("pshift")
    ok, why = True, ""
    if got is not None:
        tables = got["pshift_table"]
        shapes, = got["pshift_shapes"]
        setup, = got["pshift_setup"]
        model, = got["pshift_model"]
        expected_shapes = pshift.non_square_shapes(pshift.QUICK_SHAPE_EXTENTS)
        constants = list(model["params"]["eq1"]["constants_us"].values()) \
            + list(model["params"]["extended"]["constants_us"].values())
        ok = (sorted(got) == ["pshift_model", "pshift_setup", "pshift_shapes", "pshift_table"]
              and [t["params"]["rank"] for t in tables] == [1, 2, 3, 4]
              and all([(r["L"], r["method"]) for r in t["rows"]]
                      == [(L, m) for L in pshift.QUICK_EXTENTS[t["params"]["rank"]] for m in pshift.METHODS]
                      for t in tables)
              and all(r["shape"] == [r["L"]] * t["params"]["rank"] and r["ranks"] == WORLD.size
                      for t in tables for r in t["rows"])
              and all(set(t["params"]["eq2"]) == {"a_us", "b_us", "c_us"} for t in tables)
              and [(r["shape"], r["method"]) for r in shapes["rows"]]
              == [(s, m) for s in expected_shapes for m in pshift.METHODS]
              and [r["shape"] for r in setup["rows"]]
              == [[L] * k for k, Ls in pshift.QUICK_EXTENTS.items() for L in Ls]
              and all(r["setup_over_execute"] > 0 for r in setup["rows"])
              and len(model["rows"]) == sum(len(Ls) for Ls in pshift.QUICK_EXTENTS.values()) + len(expected_shapes)
              and all(c >= 0 for c in constants)
              and all(r["predicted_us"] >= 0 for r in model["rows"])
              and all(SUMMARY <= set(r) for e in doc["results"] if e["kernel"] != "pshift_model" for r in e["rows"]))
        why = f"kernels {sorted(got)}"
    check_all(WORLD, ok, why)


@pytest.mark.parallel(nprocs=[2, 3])
def test_cvl_suite_quick_entries():
    doc, got = _quick_run("cvl")
    ok, why = True, ""
    if got is not None:
        buffers, = got["cvl_buffer_size"]
        sweeps = got["cvl_sweep"]
        table2, = got["cvl_table2"]
        scaling, = got["cvl_scaling"]
        nesl = got["cvl_nesl"]
        ok = (sorted(got) == ["cvl_buffer_size", "cvl_nesl", "cvl_scaling", "cvl_sweep", "cvl_table2"]
              and [r["ranks"] for r in scaling["rows"]] == list(range(2, WORLD.size + 1))
              and [e["params"]["benchmark"] for e in nesl] == list(cvl.NESL_BENCHMARKS)
              and all([r["elements_per_rank"] for r in e["rows"]] == cvl.QUICK_NESL_ELEMENTS for e in nesl)
              and [(r["method"], r["buffer_bytes"]) for r in buffers["rows"]]
              == [("buffered", b) for b in cvl.QUICK_BUFFER_BYTES] + [("vector.permute", None)]
              and all(r["messages_per_rank"] >= 1 and r["mwords_per_s"] > 0 for r in buffers["rows"])
              and [e["params"]["op"] for e in sweeps] == list(cvl.SWEEP_OPS)
              and all([r["elements_per_rank"] for r in e["rows"]] == cvl.QUICK_SWEEP_ELEMENTS for e in sweeps)
              and all(r["ranks"] == WORLD.size for e in sweeps for r in e["rows"])
              and [r["op"] for r in table2["rows"]] == list(cvl.TABLE_OPS) + ["plus-reduce overhead"]
              and all(r["mflops"] > 0 for r in table2["rows"] if r["op"] in ("add", "mul", "scan", "reduce"))
              and table2["params"]["flops_equivalent"] > 0 and table2["params"]["ratio"] > 0
              and all(SUMMARY <= set(r) for e in doc["results"] for r in e["rows"]))
        why = f"kernels {sorted(got)}; buffer rows {[r.get('buffer_bytes') for r in buffers['rows']]}"
    check_all(WORLD, ok, why)


@pytest.mark.parallel(nprocs=[2, 3])
def test_cvl_suite_runs_on_the_communicator_it_is_given():
    """Even and odd ranks run the suite side by side, each on its own group."""
    half = WORLD.Split(WORLD.rank % 2, WORLD.rank)
    try:
        entries = cvl.run(half, quick=True, validate=True)
        ok = half.rank != 0 or (
            sorted({e["kernel"] for e in entries})
            == ["cvl_buffer_size", "cvl_nesl", "cvl_scaling", "cvl_sweep", "cvl_table2"]
            and all(r["ranks"] == half.size for e in entries for r in e["rows"]))
        check_all(WORLD, ok, f"entries on {half.size} ranks")
    finally:
        half.Free()


# ---------------------------------------------------------------------------
# Eq. 1 and Eq. 2 (serial)
# ---------------------------------------------------------------------------

GRIDS = {1: ([2], [4], [1]), 2: ([2, 1], [2, 2], [4, 2]), 3: ([2, 1, 1], [2, 2, 2], [2, 2, 1]), 4: ([2, 1, 1, 1],)}


def synthetic_model_rows(constants):
    """Rows of Eq. 1's multipliers for square and non-square subgrids on several grids,
    timed exactly by ``constants``."""
    rows = []
    for k, grids in GRIDS.items():
        for dims in grids:
            for L in (2, 4, 8, 16):
                for factors in itertools.product((1, 2), repeat=k):
                    shape = [L * f for f in factors]
                    row = {"rank": k, "shape": shape, "grid": dims, "elements": int(np.prod(shape)), "ranks": 4,
                           **pshift.eq1_terms(shape, dims)}
                    row["median_us"] = pshift.predict_cost(constants, row)
                    rows.append(row)
    return rows


def test_eq1_terms_match_the_paper():
    # Square L^k, shift 1, every axis split: Eq. 2's b L^(k-1) (transfer, exchange) and c L^k (moves).
    terms = pshift.eq1_terms([8, 8, 8], [2, 2, 2])
    assert terms["Tmm"] == 2 * 2 * 3 * 64 * 7
    assert terms["Tmt_tm"] == 2 * 2 * 3 * 64
    assert terms["Tex"] == 64  # ceil(2 * 64 / 2)
    # An axis the grid does not split moves all its lines locally.
    local = pshift.eq1_terms([8, 4], [2, 1])
    assert local["Tmm"] == 2 * 2 * 4 * 7 + 2 * 2 * 8 * 4
    assert local["Tmt_tm"] == 2 * 2 * 4 and local["Tex"] == 4
    assert pshift.eq1_terms([5], [1])["Tex"] == 0


@pytest.mark.parametrize("terms", [pshift.EQ1_TERMS, pshift.EXTENDED_TERMS])
def test_eq1_fit_recovers_known_constants(terms):
    known = dict(zip(pshift.EXTENDED_TERMS, (6.0, 0.0008, 0.004, 0.3, 0.7)))
    known = {t: known[t] for t in terms}
    fit = pshift.fit_cost_model(synthetic_model_rows(known), terms)
    for t in terms:
        assert fit["constants_us"][t] == pytest.approx(known[t], rel=1e-6), t
    assert fit["r2"] == pytest.approx(1.0) and fit["rel_rms"] < 1e-9


def test_eq1_fit_keeps_constants_physical():
    """A true constant of zero, and noise, never give a negative constant."""
    known = {"T0": 5.0, "Tmm": 0.001, "Tmt_tm": 0.0, "Tex": 0.2}
    rows = synthetic_model_rows(known)
    rng = np.random.default_rng(7)
    for r in rows:
        r["median_us"] *= 1 + 0.05 * rng.standard_normal()
    fit = pshift.fit_cost_model(rows)
    assert all(c >= 0 for c in fit["constants_us"].values())
    assert fit["constants_us"]["T0"] == pytest.approx(5.0, rel=0.1)
    assert fit["constants_us"]["Tmm"] == pytest.approx(0.001, rel=0.1)
    entry = pshift.model_entry(rows)
    assert entry["kernel"] == "pshift_model" and len(entry["rows"]) == len(rows)
    assert all(r["predicted_us"] > 0 for r in entry["rows"])


def test_nnls_matches_the_active_set_optimum():
    rng = np.random.default_rng(3)
    A = rng.standard_normal((12, 4))
    b = A @ np.array([1.0, -2.0, 0.5, 0.0]) + 0.1 * rng.standard_normal(12)
    x = pshift.nnls(A, b)
    assert np.all(x >= 0)
    best = min((np.linalg.norm(A @ z - b), tuple(z)) for z in _subset_solutions(A, b))
    assert np.linalg.norm(A @ x - b) == pytest.approx(best[0], rel=1e-9)


def _subset_solutions(A, b):
    for mask in itertools.product((False, True), repeat=A.shape[1]):
        z = np.zeros(A.shape[1])
        if any(mask):
            z[list(mask)] = np.linalg.lstsq(A[:, list(mask)], b, rcond=None)[0]
        if np.all(z >= 0):
            yield z


def test_eq2_fit_recovers_known_constants():
    Ls = [2, 4, 8, 16, 32]
    fit = pshift.fit_eq2(Ls, [7.0 + 0.5 * L ** 2 + 0.01 * L ** 3 for L in Ls], 3)
    assert fit == pytest.approx({"a_us": 7.0, "b_us": 0.5, "c_us": 0.01}, rel=1e-6)
    assert pshift.fit_eq2([2, 4], [1.0, 2.0], 2) is None


# ---------------------------------------------------------------------------
# The report (serial)
# ---------------------------------------------------------------------------


def timed_row(median, **fields):
    return {**fields, "median_us": median, "p05_us": 0.9 * median, "p95_us": 1.2 * median, "mean_us": median,
            "min_us": 0.9 * median, "ci95_us": [0.95 * median, 1.05 * median], "reps": 3,
            "samples_us": [0.9 * median, median, 1.2 * median]}


def synthetic_pshift_entries():
    entries, fit_rows = [], []
    for k, Ls in pshift.QUICK_EXTENTS.items():
        rows = []
        for L in Ls:
            base = {"rank": k, "shape": [L] * k, "grid": [2] + [1] * (k - 1), "L": L, "elements": L ** k,
                    "bytes": 8 * L ** k, "ranks": 2, **pshift.eq1_terms([L] * k, [2] + [1] * (k - 1))}
            t = 5.0 + 0.001 * L ** k
            rows += [timed_row(t * f, method=m, **base) for m, f in zip(pshift.METHODS, (1.0, 2.0 * k, 0.6))]
        fit_rows += [r for r in rows if r["method"] == "pshift"]
        entries.append({"kernel": "pshift_table", "params": {"rank": k, "grid": [2] + [1] * (k - 1),
                        "eq2": pshift.fit_eq2(Ls, [5.0 + 0.001 * L ** k for L in Ls], k)}, "rows": rows})
    shapes = [timed_row(6.0 * f, method=m, rank=len(s), shape=s, grid=[2] + [1] * (len(s) - 1), L=s[0],
                        elements=int(np.prod(s)), ranks=2, **pshift.eq1_terms(s, [2] + [1] * (len(s) - 1)))
              for s in pshift.non_square_shapes([8]) for m, f in zip(pshift.METHODS, (1.0, 3.0, 0.5))]
    entries.append({"kernel": "pshift_shapes", "params": {}, "rows": shapes})
    setup = [timed_row(15.0, rank=r["rank"], shape=r["shape"], L=r["L"], elements=r["elements"], ranks=2,
                       execute_median_us=r["median_us"], setup_over_execute=15.0 / r["median_us"])
             for r in fit_rows]
    entries.append({"kernel": "pshift_setup", "params": {}, "rows": setup})
    entries.append(pshift.model_entry(fit_rows + [r for r in shapes if r["method"] == "pshift"]))
    return entries


def synthetic_cvl_entries():
    n = 1 << 14
    buffers = [timed_row(100.0 + 1e5 / b, method="buffered", buffer_bytes=b, messages_per_rank=n * 12 // b,
                         elements_per_rank=n, ranks=2, mwords_per_s=n / (100.0 + 1e5 / b))
               for b in cvl.QUICK_BUFFER_BYTES]
    buffers.append(timed_row(90.0, method="vector.permute", buffer_bytes=None, messages_per_rank=1,
                             elements_per_rank=n, ranks=2, mwords_per_s=n / 90.0))
    entries = [{"kernel": "cvl_buffer_size", "params": {"dtype": "float64"}, "rows": buffers}]
    for op, rate in zip(cvl.SWEEP_OPS, (2000.0, 900.0, 1800.0, 150.0)):
        rows = [timed_row(5.0 + m / rate, elements_per_rank=m, ranks=2, mwords_per_s=m / (5.0 + m / rate))
                for m in cvl.QUICK_SWEEP_ELEMENTS]
        entries.append({"kernel": "cvl_sweep", "params": {"op": op, **cvl.rate_fit(
            cvl.QUICK_SWEEP_ELEMENTS, [r["median_us"] for r in rows])}, "rows": rows})
    n = cvl.QUICK_TABLE_ELEMENTS
    rows = [timed_row(n / 1000.0, op=op, elements_per_rank=n, ranks=2, ns_per_element=1.0,
                      mflops=1000.0 if cvl.FLOPS[op] else None, mwords_per_s=1000.0 if op == "permute" else None)
            for op in cvl.TABLE_OPS]
    rows.append(timed_row(4.0, op="plus-reduce overhead", elements_per_rank=1, ranks=2, ns_per_element=4000.0,
                          mflops=None, mwords_per_s=None))
    entries.append({"kernel": "cvl_table2", "params": {"elements_per_rank": n, "reduce_overhead_us": 4.0,
                    "add_mflops": 1000.0, "flops_equivalent": 4000.0, "permute_mwords_per_s": 100.0, "ratio": 10.0,
                    "checked_mode": False}, "rows": rows})
    return entries


def test_report_draws_every_subsection(tmp_path):
    doc = {"schema": "datamotion.bench/1", "provenance": {"ranks": 2},
           "results": synthetic_pshift_entries() + synthetic_cvl_entries()}
    index = report.write_report(doc, str(tmp_path))
    text = open(index, encoding="utf-8").read()
    for sid in ("pshift-tables", "pshift-model", "pshift-setup", "pshift-shapes", "cvl-buffer", "cvl-sweep",
                "cvl-table2"):
        assert f'<section id="{sid}">' in text, sid
    for k in (1, 2, 3, 4):
        assert f"<h4>Table {k}: rank-{k} subgrids</h4>" in text
    # The papers' own numbers, beside ours.
    for published in ("26.767", "106.644", "0.81 µs", "4100", "1820", "104", "4 KiB"):
        assert published in text, published
    assert text.count("class=beside") == 4 + 1 + 3 + 3
    assert "Other kernels" not in text  # every entry has its section
    images = [f for f in os.listdir(tmp_path) if f.endswith(".png")]
    assert len(images) == 2 * 4 + 2 + 1 + 1 + 1 + 1 + 3  # the Eq. 2 curves (Figures 9-11) too
    for name in images:
        with open(tmp_path / name, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_report_sections_skip_missing_experiments(tmp_path):
    doc = {"schema": "datamotion.bench/1", "results": synthetic_cvl_entries()[-1:]}
    text = open(report.write_report(doc, str(tmp_path)), encoding="utf-8").read()
    assert '<section id="cvl-table2">' in text
    assert '<section id="cvl-sweep">' not in text and '<section id="pshift-tables">' not in text
