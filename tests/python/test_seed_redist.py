"""The redistribution paper's experiments (datamotion bench redist): the literal
K-phase algorithms (MPI_Sendrecv, ready mode, synchronised nonblocking receives, and
the self-describing wildcard ones with the simple and random schedules) give the
array datamotion's RedistPlan and a NumPy oracle give, at 1-4 ranks with
uneven sizes and ranks that own nothing; the paper's schedule construction matches
the library's and Figure 8; the quick suite returns its kernels and rows; the
report renders every subsection from a synthetic document (serial)."""

import math

import numpy as np
import pytest

from datamotion.measure import report, suites
from datamotion.measure.suites import redist as seed
from datamotion.redist import RedistPlan, optimal_schedule
from dmtest import WORLD, check_all

SIZE = WORLD.size
CASES = [(0, 3, 2), (5, 4, 2), (7, 1, 3), (37, 3, 5), (100, 4, 1), (1000, 4, 12), (97, 2, 4)]
"""(n, r, K): empty, ranks owning nothing, partial last block and superblock, K = 1,
and K sharing a factor with P (g > 1)."""


def run_variants(n, r, K, schedule=None):
    """Collective. Problems found on this rank: each K-phase variant against the oracle
    and RedistPlan, on arrays made like the suite's."""
    _, src, dst = seed.expansion_arrays(WORLD, n, r, K)
    RedistPlan(src, dst).execute(src, dst)
    reference = dst.local.copy()
    expected = seed.owned(n, K * r, SIZE, WORLD.rank).astype(seed.DTYPE)
    problems = [] if np.array_equal(reference, expected) else ["RedistPlan != oracle"]
    expansion = seed.KPhaseExpansion(WORLD, n, r, K, seed.DTYPE, schedule)
    try:
        for name in ("sendrecv", "rsend", "irecv"):
            dst.local[...] = -1
            getattr(expansion, name)(src.local, dst.local)
            if not np.array_equal(dst.local, expected) or not np.array_equal(dst.local, reference):
                problems.append(f"{name}: {dst.local[:8]} != {expected[:8]}")
    finally:
        expansion.free()
    if schedule is None:  # the self-describing variants bring their own (simple, random) schedules
        runs = seed.self_describing_runs(WORLD, n, r, K, seed.SELF_DESCRIBING, src, dst)
        for name, run in runs.items():
            dst.local[...] = -1
            WORLD.Barrier()
            run()
            if not np.array_equal(dst.local, expected):
                problems.append(f"{name}: {dst.local[:8]} != {expected[:8]}")
    return problems


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("n,r,K", CASES)
def test_k_phase_variants_match_redistplan_and_oracle(n, r, K):
    problems = run_variants(n, r, K)
    check_all(WORLD, not problems, f"n={n} r={r} K={K}: {problems}")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
@pytest.mark.parametrize("layout", seed.LAYOUTS)
def test_k_phase_with_either_permutation_block_layout(layout):
    for n, r, K in ((1000, 4, 12), (61, 2, 6)):
        problems = run_variants(n, r, K, seed.paper_schedule(SIZE, K, layout))
        check_all(WORLD, not problems, f"layout {layout} n={n} r={r} K={K}: {problems}")


@pytest.mark.parallel(nprocs=[1, 2, 3, 4])
def test_a_wrong_schedule_is_caught_before_timing():
    K, r = 2, 3
    good = optimal_schedule(SIZE, K)
    wrong = type(good)(good.send_block, good.send_proc, good.send_local[::-1].copy(), good.recv_block,
                       good.recv_proc, good.recv_slot)  # every process sends its blocks in the wrong phase
    outcome = ""
    try:
        seed.checked_runs(WORLD, SIZE * K * r * 3, r, K, ("sendrecv",), wrong)
    except RuntimeError as exc:
        outcome = str(exc)
    check_all(WORLD, "sendrecv differs" in outcome, f"expected a RuntimeError, got {outcome!r}")


def test_paper_schedule_is_the_library_schedule():
    for P in range(1, 13):
        for K in range(1, 13):
            ours, lib = seed.paper_schedule(P, K, "a"), optimal_schedule(P, K)
            for field in ("send_block", "send_proc", "send_local", "recv_block", "recv_proc", "recv_slot"):
                assert np.array_equal(getattr(ours, field), getattr(lib, field)), (P, K, field)


def test_layout_b_is_an_optimal_schedule():
    for P in range(1, 17):
        for K in range(1, 17):
            s = seed.paper_schedule(P, K, "b")
            for k in range(K):
                assert sorted(s.send_proc[k]) == list(range(P)) and sorted(s.recv_proc[k]) == list(range(P))
            for p in range(P):  # every process sends each of its K blocks of a superblock once
                assert sorted(s.send_local[:, p]) == list(range(K))
            assert np.array_equal(s.send_block % P, np.broadcast_to(np.arange(P), (K, P)))
            if math.gcd(P, K) <= 2:
                assert np.array_equal(s.send_block, seed.paper_schedule(P, K, "a").send_block)


def test_figures_6_8_and_9_as_printed_are_the_library_schedules():
    from datamotion.measure.report import redist as section

    small, large = optimal_schedule(4, 3), optimal_schedule(16, 12)
    for field, printed in section.FIGURE6.items():
        assert getattr(small, field).tolist() == [list(r) for r in printed], field
    assert large.send_block.tolist() == [list(r) for r in section.FIGURE8A]
    assert large.recv_block.tolist() == [list(r) for r in section.FIGURE9A]


def test_figure_7_blocks():
    from datamotion.measure.report import redist as section

    block_a = seed.permutation_block(16, 12, 0, "a")
    assert block_a == [list(row) for row in section.FIG8_FIRST_BLOCK]
    assert np.array_equal(seed.paper_schedule(16, 12, "a").send_block[:4, :4], block_a)
    block_b = seed.permutation_block(16, 12, 0, "b")
    assert block_b == [[0, 49, 98, 147], [48, 97, 146, 3], [96, 145, 2, 51], [144, 1, 50, 99]]
    with pytest.raises(ValueError, match="layout"):
        seed.permutation_block(16, 12, 0, "c")


@pytest.mark.parallel(nprocs=[2, 3])
def test_quick_suite_entries():
    from datamotion.measure.report import redist as section

    doc = suites.run_suites(["redist"], WORLD, quick=True)
    ok, why = True, ""
    if WORLD.rank == 0:
        got = {e["kernel"]: e for e in doc["results"]}
        expand, coll, fig7 = got.get("redist_expand"), got.get("redist_collectives"), got.get("redist_fig7b")
        keys = sorted((r["ranks"], r["K"], r["variant"]) for r in expand["rows"])
        want = sorted((P, K, v) for P in range(1, SIZE + 1) for K in seed.KS_QUICK for v in seed.VARIANTS)
        fields = {"variant", "ranks", "K", "r", "s", "bytes", "bytes_per_rank", "median_us", "ci95_us",
                  "samples_us", "reps"}
        tables = got["redist_schedules"]["params"]["schedules"]
        lib = optimal_schedule(16, 12)
        ok = (sorted(got) == ["redist_collectives", "redist_expand", "redist_fig7b", "redist_schedules"]
              and keys == want and tables["fig8_fig9"]["recv_block"] == lib.recv_block.tolist()
              and tables["fig6"]["send_block"] == [list(r) for r in section.FIGURE6["send_block"]]
              and all(fields <= set(r) and r["median_us"] > 0 and r["s"] == r["K"] * r["r"] for r in expand["rows"])
              and all(r["bytes"] == 0 for r in expand["rows"] if r["ranks"] == 1)
              and all(r["bytes"] > 0 for r in expand["rows"] if r["ranks"] > 1)
              and sorted((r["ranks"], r["op"]) for r in coll["rows"])
              == sorted((P, op) for P in range(1, SIZE + 1) for op in ("bcast", "alltoall"))
              and [r["layout"] for r in fig7["rows"]] == ["a", "b"]
              and all(r["ranks"] == SIZE and r["K"] == seed.FIG7_TIMED_K for r in fig7["rows"])
              and set(fig7["params"]["permutation_blocks"]) == {"a", "b"})
        why = f"kernels {sorted(got)}; expand rows {keys}"
    check_all(WORLD, ok, why)


def summary(median):
    return {"median_us": median, "p05_us": 0.9 * median, "p95_us": 1.2 * median, "mean_us": median,
            "min_us": 0.8 * median, "ci95_us": [0.95 * median, 1.05 * median], "reps": 3,
            "samples_us": [0.9 * median, median, 1.1 * median]}


def synthetic_document():
    expand = [{"variant": v, "ranks": P, "K": K, "r": 4, "s": 4 * K, "elements": 3200 * P, "bytes": 12800 * (P - 1),
               "bytes_per_rank": 12800, "phases": K, **({"method": "nonblocking"} if v == "datamotion" else {}),
               **summary(10.0 * P + K + i)}
              for P in (1, 2, 3, 4) for K in (2, 6, 20) for i, v in enumerate(seed.VARIANTS)]
    coll = [{"op": op, "ranks": P, "bytes": 12800, **summary(5.0 * P + i)}
            for P in (1, 2, 3, 4) for i, op in enumerate(("bcast", "alltoall"))]
    fig7 = {"kernel": "redist_fig7b",
            "params": {"P": 16, "K": 12, "Bprime": 0,
                       "permutation_blocks": {lay: seed.permutation_block(16, 12, 0, lay) for lay in seed.LAYOUTS}},
            "rows": [{"layout": lay, "variant": "sendrecv", "ranks": 4, "K": 12, "r": 4, "s": 48, "g": 4,
                      "elements": 12800, "bytes": 38400, **summary(50.0)} for lay in seed.LAYOUTS]}
    common = {"blocks_per_rank": 800, "r": 4, "dtype": "int32"}
    return {"schema": "datamotion.bench/1", "provenance": {"ranks": 4}, "results": [
        {"kernel": "redist_expand", "params": {**common, "Ks": [2, 6, 20]}, "rows": expand},
        {"kernel": "redist_collectives", "params": common, "rows": coll}, fig7]}


def test_report_renders_every_subsection(tmp_path):
    index = report.write_report(synthetic_document(), str(tmp_path))
    text = open(index, encoding="utf-8").read()
    for anchor in ("redist-fig11", "redist-ranks", "redist-variants", "redist-fig7"):
        assert f"<section id={anchor}>" in text, anchor
    assert "Figure 11(c)" in text and "22.9" in text and "144" in text  # quotes, Table 1, Figure 8
    assert "rsend / datamotion" in text and "nonblocking" in text
    assert "Other kernels" not in text or "redist_expand" not in text.split("Other kernels")[1]
    pngs = sorted(p.name for p in tmp_path.glob("*.png"))
    assert pngs == ["redist-against-p.png", "redist-figure-11-against-k.png", "redist-table-1-seed.png"]
    for name in pngs:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
