"""Performance-model fitting (datamotion.measure.fit): serial, no MPI.

Synthetic timings with known parameters and small multiplicative noise (fixed
seeds) must give those parameters back; bad input must fail with ValueError.
"""

import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

SRC = Path(__file__).resolve().parents[2] / "python"

from datamotion.measure import fit as dmm  # noqa: E402
from datamotion.measure import lsq  # noqa: E402
from datamotion.measure.predict import prediction, predict  # noqa: E402

# Sizes on a quarter-octave grid from 1 byte to 4 MiB (84 distinct sizes).
GRID = np.unique(np.round(2.0 ** (np.arange(0, 89) / 4)))


def piecewise_truth(sizes, segments, breakpoints):
    """segments: [(t0_us, bandwidth_MBps)]; segment i starts at breakpoints[i - 1]."""
    sizes = np.asarray(sizes, dtype=float)
    idx = np.searchsorted(np.asarray(breakpoints, dtype=float), sizes, side="right")
    t0 = np.array([s[0] for s in segments])[idx]
    bw = np.array([s[1] for s in segments])[idx]
    return t0 + sizes / bw


def noisy(times, seed, rel=0.005):
    rng = np.random.default_rng(seed)
    return np.asarray(times, dtype=float) * (1 + rel * rng.standard_normal(np.shape(times)))


def close(value, truth, rel=0.02):
    return abs(value - truth) <= rel * abs(truth)


def grid_step(size):
    return int(np.searchsorted(GRID, size))


def check_segments(fit, segments, rel=0.02):
    assert len(fit.segments) == len(segments), fit.breakpoints_bytes
    for got, (t0, bw) in zip(fit.segments, segments):
        assert close(got.t0_us, t0, rel), (got.t0_us, t0)
        assert close(got.bandwidth_MBps, bw, rel), (got.bandwidth_MBps, bw)
        assert got.bandwidth_MBps == pytest.approx(1 / got.us_per_byte)


def check_breakpoints(fit, breakpoints):
    assert len(fit.breakpoints_bytes) == len(breakpoints)
    for got, want in zip(fit.breakpoints_bytes, breakpoints):
        assert abs(grid_step(got) - grid_step(want)) <= 1, (fit.breakpoints_bytes, breakpoints)


def json_round_trip(data):
    return json.loads(json.dumps(data, allow_nan=False))


# ---------------------------------------------------------------------------
# Piecewise point-to-point fits
# ---------------------------------------------------------------------------


def test_one_segment_recovers_start_up_and_bandwidth():
    truth = [(1.5, 8000.0)]
    fit = dmm.fit_piecewise_linear(GRID, noisy(piecewise_truth(GRID, truth, []), seed=1))
    check_segments(fit, truth)
    assert fit.breakpoints_bytes == []
    seg = fit.segments[0]
    assert seg.start_bytes == 1 and seg.end_bytes == GRID[-1] and seg.n == GRID.size == fit.n
    assert seg.t0_ci95[0] < seg.t0_us < seg.t0_ci95[1]
    assert seg.us_per_byte_ci95[0] < seg.us_per_byte < seg.us_per_byte_ci95[1]
    assert seg.t0_ci95[0] <= 1.5 <= seg.t0_ci95[1]
    assert fit.r2 > 0.999 and seg.r2 > 0.999
    assert fit.rmse_us > 0


def test_two_segments_recover_the_protocol_switch():
    truth, bps = [(1.0, 4000.0), (6.0, 11000.0)], [16384]
    fit = dmm.fit_piecewise_linear(GRID, noisy(piecewise_truth(GRID, truth, bps), seed=2))
    check_segments(fit, truth)
    check_breakpoints(fit, bps)
    assert fit.segments[0].end_bytes < fit.breakpoints_bytes[0] == fit.segments[1].start_bytes


def test_three_segments_recover_both_breakpoints():
    truth, bps = [(0.8, 2000.0), (4.0, 5000.0), (30.0, 12000.0)], [4096, 131072]
    fit = dmm.fit_piecewise_linear(GRID, noisy(piecewise_truth(GRID, truth, bps), seed=3))
    check_segments(fit, truth)
    check_breakpoints(fit, bps)
    assert [s["breakpoints"] for s in fit.selection] == [0, 1, 2]
    assert fit.bic == min(s["bic"] for s in fit.selection)


def test_several_samples_per_size():
    truth, bps = [(1.0, 4000.0), (6.0, 11000.0)], [16384]
    sizes = np.repeat(GRID[::2], 5)
    fit = dmm.fit_piecewise_linear(sizes, noisy(piecewise_truth(sizes, truth, bps), seed=4, rel=0.01))
    check_segments(fit, truth)
    assert len(fit.breakpoints_bytes) == 1
    assert abs(np.searchsorted(GRID[::2], fit.breakpoints_bytes[0]) - np.searchsorted(GRID[::2], 16384)) <= 1
    assert fit.n == sizes.size


def test_bokhari_sp2_short_and_long_messages():
    # Table 1 of the Paragon/SP2/CS-2 report: 70 + 0.043 m below 10000 bytes, -50 + 0.056 m above,
    # measured every 64 bytes from 0 to 16000. The long-message line's start-up time is negative, which
    # no physical segment has: the fit holds it at 0 and says so.
    sizes = np.arange(0, 16001, 64.0)
    times = np.where(sizes <= 10000, 70 + 0.043 * sizes, -50 + 0.056 * sizes)
    fit = dmm.fit_piecewise_linear(sizes, noisy(times, seed=5))
    assert abs(fit.breakpoints_bytes[0] - 10000) <= 64
    short, *longer = fit.segments
    assert close(short.t0_us, 70) and close(short.us_per_byte, 0.043)
    assert short.flags == ()
    assert all(s.t0_us >= 0 and s.us_per_byte >= 0 for s in longer)
    assert all(any(f.startswith("t0 held at 0") for f in s.flags) for s in longer)
    assert any("t0 held at 0" in f for f in fit.flags)
    assert np.max(np.abs(fit.predict(sizes) / times - 1)) < 0.05  # still describes the times


def test_noise_free_data_is_recovered_exactly():
    for truth, bps in [([(1.5, 8000.0)], []),
                       ([(1.0, 4000.0), (6.0, 11000.0)], [16384]),
                       ([(0.8, 2000.0), (4.0, 5000.0), (30.0, 12000.0)], [4096, 131072])]:
        times = piecewise_truth(GRID, truth, bps)
        for weighting in ("relative", "uniform"):
            fit = dmm.fit_piecewise_linear(GRID, times, weighting=weighting)
            assert fit.breakpoints_bytes == [GRID[grid_step(b)] for b in bps]
            for got, (t0, bw) in zip(fit.segments, truth):
                assert got.t0_us == pytest.approx(t0, rel=1e-8)
                assert got.bandwidth_MBps == pytest.approx(bw, rel=1e-8)
            assert fit.r2 == pytest.approx(1.0, abs=1e-12)
            assert fit.predict(GRID) == pytest.approx(times, rel=1e-9)


def test_straight_lines_gain_no_breakpoints():
    for seed in range(12):
        sizes = GRID[::3] if seed % 2 else 2.0 ** np.arange(18)
        times = noisy(2.0 + sizes / 5000.0, seed=100 + seed, rel=0.01)
        fit = dmm.fit_piecewise_linear(sizes, times)
        assert fit.breakpoints_bytes == [], (seed, fit.breakpoints_bytes, fit.selection)
        assert close(fit.segments[0].t0_us, 2.0) and close(fit.segments[0].bandwidth_MBps, 5000.0)


def brute_force_bic(sizes, times, max_breakpoints, min_points):
    """Every segmentation enumerated, each segment fitted by weighted least squares with t0, slope >= 0."""
    order = np.argsort(sizes, kind="stable")
    x, y = np.asarray(sizes, float)[order], np.asarray(times, float)[order]
    w = 1 / y ** 2
    distinct = np.unique(x)
    m, n = distinct.size, x.size
    best = {}
    for k in range(max_breakpoints + 1):
        for cuts in itertools.combinations(range(1, m), k):
            bounds = (0,) + cuts + (m,)
            if min(hi - lo for lo, hi in zip(bounds[:-1], bounds[1:])) < min_points:
                continue
            sse = 0.0
            for lo, hi in zip(bounds[:-1], bounds[1:]):
                sel = (x >= distinct[lo]) & (x <= distinct[hi - 1])
                A = np.column_stack([np.ones(sel.sum()), x[sel]]) * np.sqrt(w[sel])[:, None]
                b = y[sel] * np.sqrt(w[sel])
                coef = np.linalg.lstsq(A, b, rcond=None)[0]
                if np.all(coef >= 0):
                    sse += float(np.sum((b - A @ coef) ** 2))
                else:  # the best physical line: flat, or through the origin
                    sse += min(float(np.sum((b - A[:, j:j + 1] @ np.linalg.lstsq(A[:, j:j + 1], b, rcond=None)[0])
                                            ** 2)) for j in (0, 1))
            bic = n * math.log(sse / n) + (3 * k + 2) * math.log(n) + 3 * k * math.log(m)
            if bic < best.get(k, (math.inf,))[0]:
                best[k] = (bic, [distinct[c] for c in cuts])
    return best


def test_breakpoint_search_is_exhaustive():
    rng = np.random.default_rng(21)
    sizes = np.repeat(2.0 ** np.arange(13), 2)
    for trial in range(4):
        truth = [(1 + rng.random(), 2000 * (1 + rng.random())), (4 + rng.random(), 6000.0), (9.0, 9000.0)]
        times = noisy(piecewise_truth(sizes, truth, [2 ** (2 + trial), 2 ** (8 + trial // 2)]), seed=30 + trial,
                      rel=0.02 * (trial + 1))
        fit = dmm.fit_piecewise_linear(sizes, times, max_breakpoints=3, min_points=3)
        best = brute_force_bic(sizes, times, 3, 3)
        for item in fit.selection:
            assert item["bic"] == pytest.approx(best[item["breakpoints"]][0], rel=1e-9, abs=1e-9)
        k = len(fit.breakpoints_bytes)
        assert best[k][0] == min(v[0] for v in best.values())
        assert fit.breakpoints_bytes == best[k][1]


def test_max_breakpoints_and_min_points_limit_the_search():
    truth, bps = [(0.8, 2000.0), (4.0, 5000.0), (30.0, 12000.0)], [4096, 131072]
    times = noisy(piecewise_truth(GRID, truth, bps), seed=6)
    assert dmm.fit_piecewise_linear(GRID, times, max_breakpoints=0).breakpoints_bytes == []
    assert len(dmm.fit_piecewise_linear(GRID, times, max_breakpoints=1).segments) == 2
    # 12 sizes, at least 5 per segment: one breakpoint at most, whatever max_breakpoints says
    sizes = 2.0 ** np.arange(12)
    fit = dmm.fit_piecewise_linear(sizes, piecewise_truth(sizes, [(1, 100), (5, 100), (9, 100)], [16, 256]),
                                   max_breakpoints=3, min_points=5)
    assert len(fit.segments) <= 2
    assert all(s.n >= 5 for s in fit.segments)
    assert fit.selection[2]["bic"] is None and fit.selection[3]["bic"] is None


def test_predict_uses_the_segment_holding_the_size():
    truth, bps = [(1.0, 4000.0), (6.0, 11000.0)], [16384]
    fit = dmm.fit_piecewise_linear(GRID, noisy(piecewise_truth(GRID, truth, bps), seed=7))
    first, second = fit.segments
    bp = fit.breakpoints_bytes[0]
    assert isinstance(fit.predict(100), float)
    assert fit.predict(100) == pytest.approx(first.t0_us + 100 * first.us_per_byte)
    assert fit.predict(bp) == pytest.approx(second.t0_us + bp * second.us_per_byte)
    assert fit.predict(bp - 1) == pytest.approx(first.t0_us + (bp - 1) * first.us_per_byte)
    beyond = 1 << 30
    assert fit.predict(beyond) == pytest.approx(second.predict(beyond))
    assert fit.predict(0) == pytest.approx(first.t0_us)
    sizes = np.array([[0, 100], [bp, beyond]])
    out = fit.predict(sizes)
    assert out.shape == (2, 2)
    assert out == pytest.approx(np.vectorize(fit.predict)(sizes))
    assert list(fit.segment_index([0, bp - 1, bp, beyond])) == [0, 0, 1, 1]
    # the fitted values at the measured sizes are the segments' lines
    assert np.sqrt(np.mean((fit.predict(GRID) - piecewise_truth(GRID, truth, bps)) ** 2)) < 0.01 * 400


def test_piecewise_round_trips_through_json():
    truth, bps = [(0.8, 2000.0), (4.0, 5000.0), (30.0, 12000.0)], [4096, 131072]
    fit = dmm.fit_piecewise_linear(GRID, noisy(piecewise_truth(GRID, truth, bps), seed=8))
    again = dmm.PiecewiseFit.from_dict(json_round_trip(fit.to_dict()))
    assert again == fit
    assert again.predict(GRID) == pytest.approx(fit.predict(GRID), rel=0, abs=0)
    assert dmm.Segment.from_dict(json_round_trip(fit.segments[1].to_dict())) == fit.segments[1]


def test_non_finite_values_become_null_in_json():
    # two samples per segment line: no residual degrees of freedom, NaN intervals; a flat line: infinite bandwidth
    fit = dmm.fit_piecewise_linear([8, 16], [2.0, 2.0], min_points=2)
    seg = fit.segments[0]
    assert seg.us_per_byte == pytest.approx(0, abs=1e-12)
    assert math.isnan(seg.t0_ci95[0])
    data = json_round_trip(fit.to_dict())
    assert data["segments"][0]["t0_ci95"] == [None, None]
    back = dmm.PiecewiseFit.from_dict(data)
    assert math.isnan(back.segments[0].t0_ci95[0])
    assert back.predict(1000) == pytest.approx(fit.predict(1000))


def test_flat_segments_have_infinite_bandwidth():
    seg = dmm.Segment(start_bytes=0, end_bytes=64, t0_us=2.0, us_per_byte=0.0, t0_ci95=(1.9, 2.1),
                      us_per_byte_ci95=(-1e-4, 1e-4), r2=1.0, n=5)
    assert seg.bandwidth_MBps == math.inf
    data = json_round_trip(seg.to_dict())
    assert data["bandwidth_MBps"] is None
    assert dmm.Segment.from_dict(data) == seg
    assert dmm.Segment.from_dict(data).predict([0, 64]) == pytest.approx([2.0, 2.0])


def test_t_quantiles_match_the_t_distribution():
    # Quantiles checked against a numerical integration of the Student-t density.
    for dof in (1, 2, 3, 5, 10, 29, 30, 31, 45, 100, 1000):
        q = lsq.t975(dof)
        x = np.linspace(0, q, 200001)
        logc = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)
        pdf = np.exp(logc - (dof + 1) / 2 * np.log1p(x * x / dof))
        cdf = 0.5 + np.sum((pdf[1:] + pdf[:-1]) / 2 * np.diff(x))
        assert cdf == pytest.approx(0.975, abs=2e-6), dof
    assert math.isnan(lsq.t975(0))
    assert lsq.t975(10 ** 9) == pytest.approx(1.959964, abs=1e-6)


# ---------------------------------------------------------------------------
# Barrier and collectives
# ---------------------------------------------------------------------------

RANKS = np.array([2, 4, 8, 16, 32, 64, 128, 256] * 3, dtype=float)


def test_barrier_recovers_log2_coefficients():
    fit = dmm.fit_barrier(RANKS, noisy(1.5 * np.log2(RANKS) + 3.0, seed=9))
    assert close(fit.a, 1.5) and close(fit.b, 3.0)
    assert fit.a_ci95[0] <= 1.5 <= fit.a_ci95[1] and fit.b_ci95[0] <= 3.0 <= fit.b_ci95[1]
    assert fit.r2 > 0.99 and fit.n == RANKS.size
    assert fit.predict(1024) == pytest.approx(fit.a * 10 + fit.b)
    assert fit.predict([1, 2, 4]) == pytest.approx([fit.b, fit.a + fit.b, 2 * fit.a + fit.b])


def test_barrier_paragon_and_cm5_forms():
    # Bokhari, Table 1: Paragon barrier 126 d - 113 us on 2**d nodes: a negative time at one node,
    # which a physical model cannot have; the intercept is held at 0 and the fit flagged.
    fit = dmm.fit_barrier(RANKS, noisy(126 * np.log2(RANKS) - 113, seed=10, rel=0.01))
    assert fit.b == 0 and fit.a > 0
    assert any(f.startswith("b held at 0") for f in fit.flags)
    # CM-5: 5 us whatever the partition size.
    exact = dmm.fit_barrier([32, 64, 256, 512], [5.0] * 4)
    assert exact.a == pytest.approx(0, abs=1e-9) and exact.b == pytest.approx(5.0)
    assert exact.r2 == 1.0


def test_barrier_round_trips_through_json():
    fit = dmm.fit_barrier(RANKS, noisy(1.5 * np.log2(RANKS) + 3.0, seed=11))
    assert dmm.LogFit.from_dict(json_round_trip(fit.to_dict())) == fit


def collective_grid():
    sizes, ranks = np.meshgrid(2.0 ** np.arange(3, 21), 2.0 ** np.arange(1, 7))
    return sizes.ravel(), ranks.ravel()


def test_collective_recovers_all_four_coefficients():
    a, b, c, d = 2.0, 0.0005, 3.0, 0.0008
    sizes, ranks = collective_grid()
    times = noisy((a + b * sizes) * np.log2(ranks) + c + d * sizes, seed=12)
    fit = dmm.fit_collective(sizes, ranks, times)
    for got, want in zip((fit.a, fit.b, fit.c, fit.d), (a, b, c, d)):
        assert close(got, want), (got, want)
    for (lo, hi), want in zip((fit.a_ci95, fit.b_ci95, fit.c_ci95, fit.d_ci95), (a, b, c, d)):
        assert lo < want < hi
    assert fit.r2 > 0.999
    # the CM-5 paper's per-partition lines: t0 = c + a log2 P, time per byte = d + b log2 P
    assert sorted(fit.per_ranks) == [2, 4, 8, 16, 32, 64]
    for P, line in fit.per_ranks.items():
        assert close(line.t0_us, c + a * math.log2(P))
        assert close(line.us_per_byte, d + b * math.log2(P))
    assert fit.predict(1024, 16) == pytest.approx((fit.a + fit.b * 1024) * 4 + fit.c + fit.d * 1024)
    grid = fit.predict(np.array([[8.0], [1e6]]), np.array([2, 64]))
    assert grid.shape == (2, 2)
    assert dmm.CollectiveFit.from_dict(json_round_trip(fit.to_dict())) == fit


def test_allgather_recovers_the_concatenation_model():
    sizes, ranks = collective_grid()
    times = noisy(5.0 + 0.001 * ranks * sizes, seed=13)
    fit = dmm.fit_allgather(sizes, ranks, times)
    assert close(fit.c, 5.0) and close(fit.d, 0.001)
    assert fit.bandwidth_MBps == pytest.approx(1 / fit.d)
    # CM-5 concatenation, noise free: 23.44 + 0.975 P l
    l, P = np.meshgrid([1.0, 2, 4, 8, 16], [32.0, 64, 256, 512])
    exact = dmm.fit_allgather(l.ravel(), P.ravel(), 23.44 + 0.975 * (P * l).ravel())
    assert exact.c == pytest.approx(23.44) and exact.d == pytest.approx(0.975)
    assert exact.predict(4, 128) == pytest.approx(23.44 + 0.975 * 512)
    assert dmm.AllgatherFit.from_dict(json_round_trip(fit.to_dict())) == fit


# ---------------------------------------------------------------------------
# LogGP
# ---------------------------------------------------------------------------


def test_loggp_from_pingpong():
    truth, bps = [(1.0, 4000.0), (6.0, 11000.0)], [16384]
    out = dmm.loggp_from_pingpong(GRID, noisy(piecewise_truth(GRID, truth, bps), seed=14))
    assert close(out["L_plus_2o_us"], 1.0 + 1 / 4000.0)
    assert close(out["G_us_per_byte"], 1 / 11000.0)
    assert close(out["bandwidth_MBps"], 11000.0)
    assert close(out["large_message_t0_us"], 6.0)
    assert out["G_ci95"][0] < out["G_us_per_byte"] < out["G_ci95"][1]
    assert set(out["not_measurable"]) == {"L", "o", "g"}
    assert len(out["breakpoints_bytes"]) == 1
    assert json_round_trip(out) == out
    assert dmm.PiecewiseFit.from_dict(out["fit"]).breakpoints_bytes == out["breakpoints_bytes"]


# ---------------------------------------------------------------------------
# Whole results documents
# ---------------------------------------------------------------------------


def row(size, ranks, median):
    return {"bytes": int(size), "ranks": int(ranks), "samples_us": [median] * 3, "median_us": float(median),
            "p05_us": float(median), "p95_us": float(median), "mean_us": float(median),
            "ci95_us": [float(median), float(median)], "reps": 3}


def results_document():
    pp_truth, pp_bps = [(1.0, 4000.0), (6.0, 11000.0)], [16384]
    pp = noisy(piecewise_truth(GRID, pp_truth, pp_bps), seed=15)
    far = noisy(piecewise_truth(GRID, [(1.4, 3000.0)], []), seed=16)
    barrier = noisy(1.5 * np.log2(RANKS) + 3.0, seed=17)
    sizes, ranks = collective_grid()
    bcast = noisy((2.0 + 0.0005 * sizes) * np.log2(ranks) + 3.0 + 0.0008 * sizes, seed=18)
    allgather = noisy(5.0 + 0.001 * ranks * sizes, seed=19)
    exch = {P: noisy(piecewise_truth(GRID, [(1.0 + P / 8, 3000.0)], []), seed=20 + P) for P in (2, 4)}
    return {
        "schema": "datamotion.bench/1",
        "provenance": {"datamotion": "0.1.0", "ranks": 64},
        "results": [
            {"kernel": "pingpong", "params": {"peer": 1}, "rows": [row(s, 2, t) for s, t in zip(GRID, pp)]},
            {"kernel": "pingpong", "params": {"peer": 63}, "rows": [row(s, 2, t) for s, t in zip(GRID, far)]},
            {"kernel": "barrier", "rows": [row(0, P, t) for P, t in zip(RANKS, barrier)]},
            {"kernel": "bcast", "params": {"root": 0},
             "rows": [row(s, P, t) for s, P, t in zip(sizes, ranks, bcast)]},
            {"kernel": "allgather", "rows": [row(s, P, t) for s, P, t in zip(sizes, ranks, allgather)]},
            {"kernel": "exchange", "rows": [row(s, P, t) for P in (2, 4) for s, t in zip(GRID, exch[P])]},
            {"kernel": "halo", "params": {"width": 1}, "rows": [row(8, 4, 3.0)]},
            {"kernel": "distance", "params": {"bytes": 8}, "rows": [row(8, 2, 1.0 + 0.01 * p) for p in range(1, 8)]},
            {"kernel": "stream", "rows": [row(8, 2, 1.0), row(16, 2, 1.1)]},
        ],
    }


def test_fit_results_fits_every_known_kernel_and_skips_the_rest():
    doc = results_document()
    model = dmm.fit_results(doc)
    assert model["schema"] == "datamotion.model/1"
    assert model["provenance"] == doc["provenance"]
    assert json_round_trip(model) == model
    models = model["models"]
    assert set(models) == {"pingpong[peer=1]", "pingpong[peer=63]", "barrier", "bcast", "allgather", "exchange"}
    assert models["barrier"]["model"] == "log2"
    assert models["bcast"]["model"] == "collective"
    assert models["allgather"]["model"] == "allgather"
    assert models["exchange"]["model"] == "piecewise_by_ranks"
    assert models["pingpong[peer=1]"]["model"] == "piecewise"
    assert models["pingpong[peer=1]"]["params"] == {"peer": 1}
    assert len(models["pingpong[peer=1]"]["fit"]["breakpoints_bytes"]) == 1
    assert set(model["skipped"]) == {"halo", "distance", "stream"}  # unknown kernels; too few sizes
    assert any("halo" in note for note in model["notes"])
    assert any("stream" in note for note in model["notes"])
    lf = dmm.LogFit.from_dict(models["barrier"]["fit"])
    assert close(lf.a, 1.5) and close(lf.b, 3.0)


def test_predict_from_a_results_model():
    model = json_round_trip(dmm.fit_results(results_document()))
    near = predict(model, "pingpong[peer=1]", size_bytes=1 << 20)
    assert near == pytest.approx(6.0 + (1 << 20) / 11000.0, rel=0.02)
    assert predict(model, "barrier", ranks=1024) == pytest.approx(1.5 * 10 + 3.0, rel=0.02)
    assert predict(model, "bcast", size_bytes=4096, ranks=32) == pytest.approx(
        (2.0 + 0.0005 * 4096) * 5 + 3.0 + 0.0008 * 4096, rel=0.02)
    assert predict(model, "allgather", size_bytes=4096, ranks=32) == pytest.approx(
        5.0 + 0.001 * 32 * 4096, rel=0.02)
    assert predict(model, "exchange", size_bytes=0, ranks=4) == pytest.approx(1.5, rel=0.02)
    out = predict(model, "bcast", size_bytes=np.array([8, 4096]), ranks=8)
    assert out.shape == (2,)
    with pytest.raises(ValueError, match="more than once"):
        predict(model, "pingpong", size_bytes=8)
    with pytest.raises(ValueError, match="no model for kernel 'halo'"):
        predict(model, "halo", size_bytes=8)
    with pytest.raises(ValueError, match="needs ranks"):
        predict(model, "bcast", size_bytes=8)
    with pytest.raises(ValueError, match="needs size_bytes"):
        predict(model, "allgather", ranks=8)
    with pytest.raises(ValueError, match="no fit at ranks"):
        predict(model, "exchange", size_bytes=8, ranks=16)


def test_fit_results_falls_back_and_never_raises_on_odd_entries():
    sizes = 2.0 ** np.arange(3, 20)
    doc = {
        "schema": "something/else",
        "results": [
            {"kernel": "bcast", "rows": [row(s, 16, 4 + s / 900) for s in sizes]},        # one rank count
            {"kernel": "allreduce", "rows": [row(8, P, 1 + np.log2(P)) for P in (2, 4, 8, 16)]},  # one size
            {"kernel": "barrier", "rows": [{"bytes": 0, "ranks": 4}]},                   # no median
            {"kernel": "pingpong", "rows": []},
            {"kernel": "exchange", "rows": 5},
            {"rows": []},
            "not an entry",
        ],
    }
    model = dmm.fit_results(doc)
    assert model["models"]["bcast"]["model"] == "piecewise"
    assert model["models"]["allreduce"]["model"] == "log2"
    assert predict(model, "allreduce", ranks=32) == pytest.approx(6.0)
    assert set(model["skipped"]) == {"barrier", "pingpong", "exchange", "#5", "#6"}
    assert any("schema" in note for note in model["notes"])
    with pytest.raises(ValueError, match="results"):
        dmm.fit_results({"schema": "datamotion.bench/1"})
    with pytest.raises(ValueError, match="dict"):
        dmm.fit_results([1, 2, 3])


# ---------------------------------------------------------------------------
# Honest models: physical parameters, intervals, quality flags
# ---------------------------------------------------------------------------


def test_known_piecewise_model_is_recovered_with_its_breakpoint_interval():
    truth, bps = [(2.0, 3000.0), (8.0, 9000.0)], [32768]
    times = noisy(piecewise_truth(GRID, truth, bps), seed=40, rel=0.01)
    fit = dmm.fit_piecewise_linear(GRID, times)
    check_segments(fit, truth, rel=0.03)
    assert fit.breakpoints_bytes == [32768]
    (lo, hi), = fit.breakpoints_ci95
    assert lo < 32768 <= hi and lo < fit.breakpoints_bytes[0] <= hi
    assert grid_step(hi) - grid_step(lo) <= 8  # a few grid steps, not the whole range
    for seg in fit.segments:
        assert seg.r2 > 0.99 and 0 < seg.rmse_us and seg.relative_rmse < 0.02
        assert 0 < seg.max_relative_residual < 0.05
        assert seg.flags == ()
    assert fit.flags == ()
    data = json_round_trip(fit.to_dict())
    assert data["breakpoints_ci95"] == [[lo, hi]] and data["flags"] == []
    assert all(s["flags"] == [] and s["max_relative_residual"] > 0 for s in data["segments"])
    assert dmm.PiecewiseFit.from_dict(data) == fit


@pytest.mark.parametrize("seed", range(6))
def test_a_fit_on_noise_is_flagged(seed):
    rng = np.random.default_rng(50 + seed)
    times = rng.uniform(1.0, 100.0, GRID.size)  # nothing to do with the size
    fit = dmm.fit_piecewise_linear(GRID, times)
    assert fit.flags, fit
    assert any(s.flags for s in fit.segments)
    sizes, ranks = collective_grid()
    noise = rng.uniform(1.0, 100.0, sizes.size)
    assert dmm.fit_collective(sizes, ranks, noise).flags
    assert dmm.fit_allgather(sizes, ranks, noise).flags
    assert dmm.fit_barrier(RANKS, rng.uniform(1.0, 100.0, RANKS.size)).flags
    model = dmm.fit_results({"schema": "datamotion.bench/1", "results": [
        {"kernel": "pingpong", "rows": [row(s, 2, t) for s, t in zip(GRID, times)]}]})
    assert [name for name, _ in dmm.flagged_fits(model)] == ["pingpong"]


def test_parameters_an_unconstrained_fit_makes_negative_are_held_at_zero_and_flagged():
    sizes = np.arange(10000, 16001, 64.0)
    long_only = dmm.fit_piecewise_linear(sizes, noisy(-50 + 0.056 * sizes, seed=60), max_breakpoints=0)
    seg, = long_only.segments
    assert seg.t0_us == 0 and seg.us_per_byte > 0 and seg.t0_ci95[0] == 0
    assert any(f.startswith("t0 held at 0 (unconstrained fit: -") for f in seg.flags)
    falling = np.arange(0, 4097, 256.0)
    down = dmm.fit_piecewise_linear(falling, noisy(10.0 - 0.001 * falling, seed=61), max_breakpoints=0)
    assert down.segments[0].us_per_byte == 0 and down.segments[0].bandwidth_MBps == math.inf
    assert down.segments[0].t0_us == pytest.approx(np.mean(10.0 - 0.001 * falling), rel=0.05)
    assert any(f.startswith("slope held at 0") for f in down.segments[0].flags)
    assert any("slope held at 0" in f for f in down.flags)
    sizes, ranks = collective_grid()
    neg = dmm.fit_allgather(sizes, ranks, noisy(np.maximum(-20 + 0.01 * ranks * sizes, 0.5), seed=62))
    assert neg.c >= 0 and neg.d > 0
    coll = dmm.fit_collective(sizes, ranks, noisy(np.maximum(30 - 2 * np.log2(ranks) + 0.001 * sizes, 0.5),
                                                  seed=63))
    assert min(coll.a, coll.b, coll.c, coll.d) >= 0
    assert any(f.startswith("a held at 0") for f in coll.flags)
    for fit in (long_only, down, neg, coll):  # what is fitted stays physical everywhere
        values = fit.predict(np.linspace(0, 1e9, 101)) if isinstance(fit, dmm.PiecewiseFit) \
            else fit.predict(np.linspace(0, 1e9, 101), 64)
        assert np.all(values >= 0)


def test_a_bandwidth_above_memcpy_is_flagged_not_clipped():
    doc = results_document()
    copy = noisy(piecewise_truth(GRID, [(0.05, 2000.0)], []), seed=64)  # memcpy slower than the messages
    doc["results"].append({"kernel": "memcopy", "rows": [row(s, 1, t) for s, t in zip(GRID, copy)]})
    model = dmm.fit_results(doc)
    pp = model["models"]["pingpong[peer=1]"]["fit"]
    assert all(any("above memcpy's" in f for f in seg["flags"]) for seg in pp["segments"])
    assert pp["segments"][-1]["bandwidth_MBps"] == pytest.approx(11000, rel=0.03)  # kept as fitted
    assert any("above memcpy's" in f for f in pp["flags"])
    assert model["models"]["memcopy"]["fit"]["flags"] == []
    names = [name for name, _ in dmm.flagged_fits(model)]
    assert "pingpong[peer=1]" in names and "exchange at P=2" in names and "memcopy" not in names
    assert not dmm.flagged_fits(dmm.fit_results(results_document()))  # good fits, no memcopy: nothing flagged


def test_a_local_kernel_whose_time_does_not_grow_is_flagged_as_no_bandwidth():
    # vector_sweep's bytes are a working set: a time flat in it fits a slope near 0,
    # a "bandwidth" of millions of MB/s, which must carry a flag saying it is none.
    doc = results_document()
    copy = noisy(piecewise_truth(GRID, [(0.05, 8000.0)], []), seed=70)
    doc["results"].append({"kernel": "memcopy", "rows": [row(s, 1, t) for s, t in zip(GRID, copy)]})
    flat = noisy(np.full(len(GRID), 40.0), seed=71)
    doc["results"].append({"kernel": "vector_sweep", "params": {"op": "add"},
                           "rows": [row(s, 1, t) for s, t in zip(GRID, flat)]})
    model = dmm.fit_results(doc)
    fit = model["models"]["vector_sweep"]["fit"]
    assert any("no bandwidth" in f for f in fit["flags"]), fit["flags"]
    assert "vector_sweep" in [name for name, _ in dmm.flagged_fits(model)]


def test_predict_is_never_negative_nor_nan_and_says_when_it_extrapolates():
    model = json_round_trip(dmm.fit_results(results_document()))
    sizes = np.concatenate([[0.0], np.geomspace(1, 1e9, 200)])
    for key, ranks in (("pingpong[peer=1]", None), ("bcast", 8), ("allgather", 8), ("exchange", 2)):
        out = predict(model, key, size_bytes=sizes, ranks=ranks)
        assert np.all(np.isfinite(out)) and np.all(out >= 0), key
    assert predict(model, "barrier", ranks=np.arange(1, 4097)).min() >= 0
    inside = prediction(model, "pingpong[peer=1]", size_bytes=1024)
    assert not inside.extrapolated and inside.note() == "" and inside.flags == ()
    assert inside.value_us == predict(model, "pingpong[peer=1]", size_bytes=1024)
    beyond = prediction(model, "pingpong[peer=1]", size_bytes=1 << 30)
    assert beyond.extrapolated
    assert beyond.note() == f"(extrapolated: outside the measured range 1-{int(GRID[-1])} bytes)"
    assert prediction(model, "bcast", size_bytes=4096, ranks=1024).outside == ("2-64 ranks",)
    assert prediction(model, "barrier", ranks=2).outside == ()
    # a document with a negative start-up time (written by hand): clamped at 0, and said so
    model["models"]["pingpong[peer=63]"]["fit"]["segments"][0]["t0_us"] = -5.0
    bad = prediction(model, "pingpong[peer=63]", size_bytes=np.array([0, 8, 1 << 20]))
    assert np.all(bad.value_us >= 0) and bad.value_us[0] == 0
    assert any("clamped at 0" in f for f in bad.flags)
    model["models"]["pingpong[peer=63]"]["fit"]["segments"][0]["t0_us"] = None
    with pytest.raises(ValueError, match="no finite parameters"):
        predict(model, "pingpong[peer=63]", size_bytes=8)
    with pytest.raises(ValueError, match="non-negative"):
        predict(model, "pingpong[peer=1]", size_bytes=-1)


def run_cli(args, capsys):
    from datamotion import cli

    message = ""
    try:
        code = cli.main(args)
    except SystemExit as exc:  # what the interpreter prints, and its exit status, for a message
        code, message = (1, f"{exc.code}\n") if isinstance(exc.code, str) else (exc.code, "")
    out = capsys.readouterr()
    return code, out.out, out.err + message


def test_model_cli_says_what_is_wrong_in_one_line(tmp_path, capsys):
    results = tmp_path / "r.json"
    doc = results_document()
    doc["results"][0]["rows"] = [row(s, 2, t) for s, t in zip(GRID, np.random.default_rng(70).uniform(1, 100,
                                                                                                       GRID.size))]
    results.write_text(json.dumps(doc))
    model = tmp_path / "m.json"
    code, out, _ = run_cli(["model", "fit", str(results), "--out", str(model)], capsys)
    assert code == 0
    warnings = [line for line in out.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and warnings[0].startswith("warning: pingpong[peer=1]: below the quality threshold")
    code, out, _ = run_cli(["model", "predict", str(model), "pingpong[peer=1]", "--bytes", "1024"], capsys)
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("pingpong[peer=1]: ") and lines[0].endswith(" us")
    assert lines[1].startswith("warning: the model of pingpong[peer=1] is below the quality threshold")
    code, out, _ = run_cli(["model", "predict", str(model), "pingpong[peer=63]", "--bytes", str(1 << 30)], capsys)
    assert code == 0 and out.strip().endswith(f"(extrapolated: outside the measured range 1-{int(GRID[-1])} bytes)")
    assert float(out.split(":")[1].split()[0]) >= 0
    (tmp_path / "bad.json").write_text("{not json")
    for args, message in (
            ([str(tmp_path / "missing.json"), "pingpong"], "cannot read model document"),
            ([str(tmp_path / "bad.json"), "pingpong"], "is not a JSON model document"),
            ([str(model), "nosuchkernel", "--bytes", "8"], "no model for kernel 'nosuchkernel'"),
            ([str(model), "pingpong", "--bytes", "8"], "fitted more than once"),
            ([str(model), "pingpong[peer=1]", "--bytes", "-8"], "argument --bytes: must be at least 0"),
            ([str(model), "bcast", "--bytes", "8"], "needs ranks")):
        code, out, err = run_cli(["model", "predict"] + args, capsys)
        assert code not in (0, None) and out == ""
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
        assert err.startswith("datamotion: error: ") and message in err, err
    code, out, _ = run_cli(["model", "predict", "--help"], capsys)
    assert code == 0
    assert all(kernel in out for kernel in dmm.KERNEL_MODELS)


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("call, message", [
    (lambda: dmm.fit_piecewise_linear([1, 2, 3], [1, 2]), "same length"),
    (lambda: dmm.fit_piecewise_linear([1, 2], [1, 2]), "too few points"),
    (lambda: dmm.fit_piecewise_linear([], []), "empty"),
    (lambda: dmm.fit_piecewise_linear([1, -2, 3, 4], [1, 2, 3, 4]), "sizes must be non-negative"),
    (lambda: dmm.fit_piecewise_linear([1, 2, 3, 4], [1, 2, -3, 4]), "times must be non-negative"),
    (lambda: dmm.fit_piecewise_linear([1, 2, 3, np.nan], [1, 2, 3, 4]), "finite"),
    (lambda: dmm.fit_piecewise_linear([[1, 2], [3, 4]], [[1, 2], [3, 4]]), "one-dimensional"),
    (lambda: dmm.fit_piecewise_linear(["a", "b", "c"], [1, 2, 3]), "numbers"),
    (lambda: dmm.fit_piecewise_linear([1, 2, 3, 4], [1, 2, 3, 4], max_breakpoints=-1), "max_breakpoints"),
    (lambda: dmm.fit_piecewise_linear([1, 2, 3, 4], [1, 2, 3, 4], min_points=1), "min_points"),
    (lambda: dmm.fit_piecewise_linear([1, 2, 3, 4], [1, 2, 3, 4], weighting="log"), "weighting"),
    (lambda: dmm.fit_barrier([2, 4, 8], [1, 2]), "same length"),
    (lambda: dmm.fit_barrier([4, 4, 4], [1, 2, 3]), "too few points"),
    (lambda: dmm.fit_barrier([0, 2, 4], [1, 2, 3]), "ranks must be at least 1"),
    (lambda: dmm.fit_collective([8, 16, 8, 16], [2, 2, 4], [1, 2, 3, 4]), "same length"),
    (lambda: dmm.fit_collective([8, 16, 32], [4, 4, 4], [1, 2, 3]), "too few points"),
    (lambda: dmm.fit_collective([8, 16, 8, 8], [2, 2, 4, 4], [1, 2, 3, 4]), "determine"),
    (lambda: dmm.fit_collective([-8, 16, 8, 16], [2, 2, 4, 4], [1, 2, 3, 4]), "sizes must be non-negative"),
    (lambda: dmm.fit_allgather([8, 8], [4, 4], [1, 2]), "too few points"),
    (lambda: dmm.loggp_from_pingpong([8], [1.0]), "too few points"),
])
def test_bad_input_raises_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_bad_predict_arguments_raise_value_error():
    fit = dmm.fit_piecewise_linear([1, 2, 4, 8], [1, 1.1, 1.2, 1.4])
    with pytest.raises(ValueError, match="non-negative"):
        fit.predict(-1)
    with pytest.raises(ValueError, match="ranks must be at least 1"):
        dmm.fit_barrier([2, 4, 8], [1, 2, 3]).predict(0)
    coll = dmm.fit_allgather([8, 16, 32], [2, 2, 2], [1, 2, 3])
    with pytest.raises(ValueError, match="broadcast"):
        coll.predict([1, 2, 3], [2, 4])


def test_import_loads_neither_mpi_nor_the_extension():
    code = ("import sys, datamotion.measure.fit, datamotion.measure.predict, datamotion.measure.report; "
            "bad = [m for m in ('mpi4py', 'datamotion._core') if m in sys.modules]; "
            "assert not bad, bad")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(SRC), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("module", [dmm, lsq], ids=["fit", "lsq"])
def test_everything_public_is_documented(module):
    assert module.__doc__.strip()
    names = getattr(module, "__all__", None) or [n for n, o in vars(module).items() if not n.startswith("_")
                                                 and getattr(o, "__module__", None) == module.__name__]
    for name in names:
        obj = getattr(module, name)
        if callable(obj):
            assert (obj.__doc__ or "").strip(), name
        if isinstance(obj, type):
            for member, value in vars(obj).items():
                if not member.startswith("_") and callable(getattr(value, "__func__", value)):
                    assert (getattr(value, "__func__", value).__doc__ or "").strip(), f"{name}.{member}"
