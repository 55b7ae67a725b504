"""The memory hierarchy and physical fits of datamotion.measure: cache breakpoints
recovered from synthetic data, small-message bandwidths held at the large-message
one, predictions inside an unmeasured gap warned of, and the stencil and
redistribution predictors on synthetic models. Serial, no MPI, no timing."""

import json
import os
import math

import numpy as np
import pytest

from datamotion.measure import fit as dmm
from datamotion.measure import memory, programs
from datamotion.measure.predict import prediction

L1, L2 = 48 << 10, 2 << 20


def sweep_times(working_sets, noise=0.0, seed=1):
    """Time of one fixed sweep at each working set: 1 us in L1, 1.6 us in L2, 3 us beyond."""
    rng = np.random.default_rng(seed)
    t = np.where(np.asarray(working_sets) <= L1, 1.0, np.where(np.asarray(working_sets) <= L2, 1.6, 3.0))
    return t * (1 + noise * rng.standard_normal(t.size))


def test_cache_breakpoints_are_recovered_from_a_working_set_sweep():
    ws = memory.working_sets(16 << 20, smallest=8 << 10)
    fit = memory.fit_hierarchy(ws, sweep_times(ws, noise=0.01))
    assert len(fit.breakpoints_bytes) == 2
    first, second = fit.breakpoints_bytes
    assert L1 < first <= 2 * L1 and L2 < second <= 2 * L2  # the first size measured past each level
    assert memory.rate_at(fit, 16 << 10) == pytest.approx(1.0, rel=0.05)
    assert memory.rate_at(fit, 1 << 20) == pytest.approx(1.6, rel=0.05)
    assert memory.rate_at(fit, 64 << 20) == pytest.approx(3.0, rel=0.05)  # beyond the range: the last level
    assert "rate changes at" in memory.levels_text(fit, [{"level": 1, "bytes": L1}])


def test_fit_results_gives_cache_kernels_their_breakpoints():
    """A repeated memcpy of l bytes runs at the bandwidth of the level its 2 l bytes
    fit in (100, 40 then 10 bytes/us): with CACHE_BREAKPOINTS it is fitted with both
    bends and no flag."""
    sizes = [1 << k for k in range(6, 25)]

    def t(l):
        return 0.01 + l / (100 if 2 * l <= L1 else 40 if 2 * l <= L2 else 10)

    doc = {"schema": dmm.RESULTS_SCHEMA, "results": [
        {"kernel": "memcopy", "params": {}, "rows": [{"bytes": l, "ranks": 1, "median_us": t(l)} for l in sizes]}]}
    fitted = dmm.fit_results(doc)
    fit = fitted["models"]["memcopy"]["fit"]
    assert len(fit["breakpoints_bytes"]) >= 2
    assert not dmm.flagged_fits(fitted)
    assert [s["bandwidth_MBps"] for s in fit["segments"]] == pytest.approx([100, 40, 10])


def test_an_unphysical_small_message_bandwidth_is_held_at_the_large_message_one():
    """Small messages: 1 us plus noise that a free fit reads as 25000 MB/s; large ones
    10000 MB/s. The small segment's bandwidth is held at 10000 MB/s, and says so."""
    small = [0, 8, 64, 512, 1024, 4096]
    large = [65536, 262144, 1 << 20, 4 << 20]
    times = [1.0, 1.0, 1.002, 1.02, 1.04, 1.16] + [20.0 + l / 10000 for l in large]
    fit = dmm.fit_piecewise_linear(small + large, times, max_breakpoints=2)
    first, last = fit.segments[0], fit.segments[-1]
    assert first.end_bytes <= 4096
    assert first.bandwidth_MBps <= last.bandwidth_MBps * (1 + 1e-9)
    assert "held at" in first.constraint and "free fit" in first.constraint
    again = dmm.PiecewiseFit.from_dict(json.loads(json.dumps(fit.to_dict())))
    assert again.segments[0].constraint == first.constraint
    free = dmm.fit_piecewise_linear(small, times[:len(small)], max_breakpoints=0)  # alone: nothing to hold it to
    assert free.segments[0].bandwidth_MBps > 20000 and not free.segments[0].constraint


def model_doc(fits):
    models = {k: {"kernel": k, "params": {}, "model": "piecewise", "ranks": [2 if k == "exchange" else 1],
                  "fit": f.to_dict()} for k, f in fits.items()}
    return {"schema": dmm.MODEL_SCHEMA, "models": models, "skipped": {}, "notes": []}


def test_predict_warns_inside_an_unmeasured_gap():
    sizes = [0, 8, 64, 512, 4096, 32768, 65536, 262144]
    times = [1 + l / 5000 if l <= 4096 else 10 + l / 10000 for l in sizes]
    fit = dmm.fit_piecewise_linear(sizes, times, max_breakpoints=1)
    assert fit.breakpoints_bytes == [32768]
    model = model_doc({"pingpong": fit})
    inside = prediction(model, "pingpong", size_bytes=16000)
    assert inside.gaps == ("4096-32768 bytes",) and "unmeasured gap" in inside.note()
    assert not inside.extrapolated
    measured = prediction(model, "pingpong", size_bytes=4096)
    assert not measured.gaps and measured.note() == ""
    outside = prediction(model, "pingpong", size_bytes=1 << 20)
    assert outside.extrapolated and not outside.gaps


def synthetic_model():
    """exchange 5 us + 1 us per 10 KB, memcopy 0.01 us + 1 us per 20 KB, ufunc 1 us + 1 us per 8 KB."""
    line = lambda t0, bw, hi: dmm.fit_piecewise_linear([0, hi // 2, hi], [t0, t0 + hi / 2 / bw, t0 + hi / bw],  # noqa: E731
                                                       max_breakpoints=0)
    return model_doc({"exchange": line(5.0, 10000.0, 1 << 24), "memcopy": line(0.01, 20000.0, 1 << 24),
                      "ufunc": line(1.0, 8000.0, 1 << 26)})


def msg(peer, nbytes, runs, sending, transport="point to point"):
    return {"peer": peer, "round": 0, "bytes": nbytes, "runs": runs, "sending": sending, "transport": transport}


def test_stencil_and_redistribution_predictions_on_a_synthetic_model():
    model = synthetic_model()
    # A halo between two ranks: one message each way of two rows of 1024 doubles.
    halo = [[msg(1, 16384, 2, True), msg(1, 16384, 2, False)], [msg(0, 16384, 2, True), msg(0, 16384, 2, False)]]
    p = programs.stencil_step(model, halo, [512 * 1024, 512 * 1024])
    exchange = 5.0 + 16384 / 10000
    pack = 2 * 2 * (0.01 + 8192 / 20000)  # two runs packed, two unpacked
    compute = 4 * (1.0 + 8 * 512 * 1024 / 8000)
    assert p["halo_us"] == pytest.approx(exchange + pack)
    assert p["compute_us"] == pytest.approx(compute)
    assert p["total_us"] == pytest.approx(exchange + pack + compute)
    assert not p["warnings"]
    # A redistribution: rank 0 sends one contiguous run and keeps 64 rows as local copies.
    redist = [[msg(1, 1 << 20, 1, True), msg(1, 1 << 20, 128, False), msg(-1, 8192, 64, True)],
              [msg(0, 1 << 20, 128, True), msg(0, 1 << 20, 1, False)]]
    r = programs.redistribution(model, redist)
    rank0 = (5.0 + (1 << 20) / 10000) + 128 * (0.01 + 8192 / 20000) + 64 * (0.01 + 128 / 20000)
    assert r["by_rank"][0]["total_us"] == pytest.approx(rank0)
    assert r["slowest_rank"] == 0 and r["total_us"] == pytest.approx(rank0)
    assert all(math.isfinite(v) and v >= 0 for row in r["by_rank"] for v in row.values())


def test_an_on_node_message_is_one_copy_run_against_run_at_the_rate_of_the_working_set():
    """On a node the receiver copies the message out of the sender's memory: no
    exchange of its bytes, no pack; two small exchanges (control, answer); each side
    waits for the slower copy of the pair, in the larger run count of the two sides.
    The copy rate is that of every byte the rank copies in the execution: a
    memcopy that is slower per byte past 1 MiB slows a plan whose pieces are small
    but whose whole is not."""
    sizes = [64 << k for k in range(20)]
    times = [0.01 + b / 20000 if b <= 1 << 20 else 0.01 + (1 << 20) / 20000 + (b - (1 << 20)) / 5000 for b in sizes]
    model = synthetic_model()
    fit = dmm.fit_piecewise_linear(sizes, times, max_breakpoints=1)
    model["models"]["memcopy"]["fit"] = fit.to_dict()
    memcopy = lambda b: float(fit.predict(b))  # noqa: E731
    half = 1 << 20
    assert memcopy(2 * half) / (2 * half) > 1.5 * memcopy(half) / half
    plan = [[msg(1, half, 1, True, "onnode"), msg(1, half, 256, False, "onnode"), msg(-1, half, 256, True, "copy")],
            [msg(0, half, 256, True, "onnode"), msg(0, half, 1, False, "onnode"), msg(-1, half, 256, True, "copy")]]
    r = programs.redistribution(model, plan)
    assert programs.copied_bytes(plan[0]) == 2 * half  # the incoming message and the local copy
    per_byte = memcopy(2 * half) / (2 * half)  # past the breakpoint: the slower rate
    copy = max(half * per_byte, 256 * memcopy(half / 256))
    control = 2 * (5.0 + 8 / 10000)
    for row in r["by_rank"]:
        assert row["exchange_us"] == 0 and row["pack_us"] == 0
        assert row["on_node_us"] == pytest.approx(control + copy)
        assert row["copy_us"] == pytest.approx(copy)
    assert copy > 256 * memcopy(half / 256) and r["total_us"] == pytest.approx(control + 2 * copy)
    called = programs.redistribution(model, plan, call_us=1.5)
    assert [row["total_us"] for row in called["by_rank"]] == pytest.approx([row["total_us"] + 1.5 for row in r["by_rank"]])
    with pytest.raises(ValueError, match="call_us"):
        programs.redistribution(model, plan, call_us=-1.0)
    # The same plan by MPI messages: the bytes travel by exchange and are unpacked.
    by_message = [[{**m, "transport": "point to point" if m["peer"] >= 0 else "copy"} for m in rank] for rank in plan]
    assert programs.redistribution(model, by_message)["by_rank"][0]["exchange_us"] == pytest.approx(5.0 + half / 10000)


def test_program_predictors_reject_bad_input():
    model = synthetic_model()
    with pytest.raises(ValueError, match="one list of messages per rank"):
        programs.plan_time(model, [])
    with pytest.raises(ValueError, match="must have"):
        programs.plan_time(model, [[{"peer": 1}]])
    with pytest.raises(ValueError, match="no exchange"):
        programs.plan_time({"models": {}}, [[]])
    with pytest.raises(ValueError, match="local_elements"):
        programs.stencil_step(model, [[], []], [1])


def test_machine_caches_reads_a_sysfs_tree(tmp_path):
    for index, (level, kind, size, cpus) in enumerate([(1, "Data", "48K", "0"), (1, "Instruction", "32K", "0"),
                                                       (2, "Unified", "2048K", "0"), (3, "Unified", "300M", "0-1")]):
        folder = tmp_path / f"index{index}"
        folder.mkdir()
        for name, value in (("level", level), ("type", kind), ("size", size), ("shared_cpu_list", cpus)):
            (folder / name).write_text(f"{value}\n")
    caches = memory.machine_caches(str(tmp_path))
    assert [(c["level"], c["bytes"], c["shared_by"]) for c in caches] == [(1, 48 << 10, 1), (2, 2 << 20, 1),
                                                                        (3, 300 << 20, 2)]
    assert memory.machine_caches(str(tmp_path / "absent")) == []


def test_a_flat_segment_within_its_noise_is_not_flagged_for_its_r2():
    """Small messages at a constant 1 us with 2 % noise: r² near 0 (the times vary only
    by noise) but residuals of 2 %: not flagged. With 40 % noise it is."""
    sizes = [0, 8, 16, 32, 64, 128, 256, 512]
    rng = np.random.default_rng(3)
    quiet = dmm.fit_piecewise_linear(sizes, 1 + 0.02 * rng.standard_normal(len(sizes)), max_breakpoints=0)
    assert quiet.r2 < 0.9 and not quiet.flags
    noisy = dmm.fit_piecewise_linear(sizes, 1 + 0.4 * np.abs(rng.standard_normal(len(sizes))), max_breakpoints=0)
    assert noisy.flags


# Judging fits against the measured spread of each time (the 95 % interval of a row's
# median): synthetic rows as `datamotion bench` writes them, no MPI, no timing.

COPY_SIZES = [1 << k for k in range(6, 25)]  # 64 B to 16 MiB, as the local suite's memcopy


def copy_time(l):
    """memcpy of l bytes: 100000 MB/s while 2 l fits in L1, 40000 in L2, 10000 beyond."""
    return 0.01 + l / (100000 if 2 * l <= L1 else 40000 if 2 * l <= L2 else 10000)


def rows_with_spread(sizes, times, spread):
    """Result rows whose medians have a 95 % interval of +-spread of the time."""
    return [{"bytes": int(l), "ranks": 1, "median_us": float(t), "ci95_us": [t * (1 - spread), t * (1 + spread)]}
            for l, t in zip(sizes, times)]


def fit_copy(times, spread):
    doc = {"schema": dmm.RESULTS_SCHEMA, "results": [
        {"kernel": "memcopy", "params": {}, "rows": rows_with_spread(COPY_SIZES, times, spread)}]}
    fitted = dmm.fit_results(doc)
    return fitted, fitted["models"]["memcopy"]["fit"]


def test_cache_breakpoints_are_recovered_and_not_flagged_on_noisy_times():
    """memcpy times with 10 % noise and intervals that say so: the two cache bends are found
    (the first size past each level), no flag; a noisy run is noted, not flagged."""
    truth = np.array([copy_time(l) for l in COPY_SIZES])
    for seed in range(3):
        times = truth * (1 + 0.10 * np.random.default_rng(seed).standard_normal(truth.size))
        fitted, fit = fit_copy(times, spread=0.12)
        assert {32768, 2 << 20} <= set(fit["breakpoints_bytes"]), (seed, fit["breakpoints_bytes"])
        assert not dmm.flagged_fits(fitted), dmm.flagged_fits(fitted)
        piecewise = dmm.PiecewiseFit.from_dict(fit)
        for size, bandwidth in ((8192, 100000), (262144, 40000), (8 << 20, 10000)):
            segment = piecewise.segments[piecewise.segment_index(size)]
            assert segment.bandwidth_MBps == pytest.approx(bandwidth, rel=0.25), (seed, size)
        assert any(n.startswith("noisy:") for n in fit["noise"])
        # Much noisier: flagged by r² and relative RMSE without spreads, not with spreads that say so.
        times = truth * np.exp(0.35 * np.random.default_rng(seed).standard_normal(truth.size))
        assert dmm.fit_piecewise_linear(COPY_SIZES, times, 4).flags
        fitted, fit = fit_copy(times, spread=0.4)
        assert not dmm.flagged_fits(fitted), (seed, dmm.flagged_fits(fitted))


def test_a_straight_line_through_cache_bends_is_flagged_against_the_spread():
    """The same quiet memcpy times with one line only (no breakpoints): whole ranges of sizes
    lie on one side of it beyond their spread, which is the flag, whatever the noise level."""
    times = np.array([copy_time(l) for l in COPY_SIZES])
    for spread in (0.01, 0.10):
        line = dmm.fit_piecewise_linear(COPY_SIZES, times, max_breakpoints=0, spreads=spread * times)
        assert any("the model's shape does not follow them" in f for f in line.flags), line.flags
        bent = dmm.fit_piecewise_linear(COPY_SIZES, times, max_breakpoints=2, spreads=spread * times)
        assert bent.flags == () and bent.breakpoints_bytes == [32768, 2 << 20]


def test_a_bend_at_the_end_of_the_range_is_flagged():
    """A line fits every size but the two largest, which are 3 times slower (memory after
    cache): too few for a segment of their own, so the end of the range is flagged."""
    sizes = [8, 64, 512, 4096, 32768, 262144, 1 << 20]
    times = [1 + l / 5000 for l in sizes]
    times[-2:] = [3 * t for t in times[-2:]]
    fit = dmm.fit_piecewise_linear(sizes, times, spreads=0.02 * np.array(times))
    assert any("largest sizes, off the fit" in f for f in fit.flags), fit.flags


def test_one_disturbed_size_is_noted_not_flagged():
    """A load burst makes one small size 5 times slower than the next: it is set aside
    (weighed as nothing), named in the noise notes, and the fit is not flagged."""
    times = np.array([copy_time(l) for l in COPY_SIZES])
    times[3] *= 5
    fitted, fit = fit_copy(times, spread=0.02)
    assert not dmm.flagged_fits(fitted)
    assert any(n.startswith("disturbed times at 512 B") for n in fit["noise"]), fit["noise"]
    assert dmm.noise_notes(fitted)[0][0] == "memcopy"
    assert fit["breakpoints_bytes"] == [32768, 2 << 20]


def test_times_unrelated_to_the_size_are_flagged_even_with_wide_spreads():
    rng = np.random.default_rng(5)
    times = rng.uniform(1.0, 100.0, len(COPY_SIZES))
    fit = dmm.fit_piecewise_linear(COPY_SIZES, times, spreads=0.05 * times)
    assert any("too disturbed to judge" in f for f in fit.flags), fit.flags


def test_an_unphysical_bandwidth_is_still_flagged_with_spreads():
    """Message times that claim more bandwidth than memcpy at the same sizes: flagged, with
    spreads as without; and a small-message segment alone above the large-message one is
    still held at it (constrained, said in its constraint)."""
    sizes = [0, 8, 64, 512, 4096, 32768, 262144, 1 << 20]
    fast = [1.0 + l / 500000 for l in sizes]  # 500000 MB/s, five times memcpy's best
    copy = [copy_time(l) for l in COPY_SIZES]
    doc = {"schema": dmm.RESULTS_SCHEMA, "results": [
        {"kernel": "memcopy", "params": {}, "rows": rows_with_spread(COPY_SIZES, copy, 0.02)},
        {"kernel": "pingpong", "params": {}, "rows": [dict(r, ranks=2) for r in rows_with_spread(sizes, fast, 0.02)]}]}
    fitted = dmm.fit_results(doc)
    names = [name for name, _ in dmm.flagged_fits(fitted)]
    assert names == ["pingpong"] and "above memcpy's" in dmm.flagged_fits(fitted)[0][1][0]
    small = [0, 8, 64, 512, 1024, 4096]
    large = [65536, 262144, 1 << 20, 4 << 20]
    times = np.array([1.0, 1.0, 1.002, 1.02, 1.04, 1.16] + [20.0 + l / 10000 for l in large])
    held = dmm.fit_piecewise_linear(small + large, times, max_breakpoints=2, spreads=0.02 * times)
    assert held.segments[0].bandwidth_MBps <= held.segments[-1].bandwidth_MBps * (1 + 1e-9)
    assert "held at" in held.segments[0].constraint


def test_collective_and_barrier_fits_are_judged_against_the_spread():
    """The models over rank counts are judged as the piecewise ones, at each rank count:
    a noisy but right model is not flagged where r² and relative RMSE flag it, a bend
    they cannot follow is, at the rank counts where it is."""
    grid = [(l, P) for P in (2, 4, 8, 16) for l in (8, 64, 512, 4096, 32768, 262144, 1 << 20)]
    sizes, ranks = (np.array(v, dtype=float) for v in zip(*grid))
    truth = (2 + 0.0005 * sizes) * np.log2(ranks) + 3 + 0.0008 * sizes
    noisy_times = truth * np.exp(0.5 * np.random.default_rng(7).standard_normal(truth.size))
    assert dmm.fit_collective(sizes, ranks, noisy_times).flags
    judged = dmm.fit_collective(sizes, ranks, noisy_times, spreads=0.55 * noisy_times)
    assert judged.flags == () and any("noisy:" in n for n in judged.noise)
    assert dmm.CollectiveFit.from_dict(json.loads(json.dumps(judged.to_dict()))).noise == judged.noise
    bent = truth * np.where(sizes >= 262144, 4.0, 1.0)  # memory after cache: one line per P cannot follow
    flags = dmm.fit_collective(sizes, ranks, bent, spreads=0.02 * bent).flags
    assert any(f.startswith("at P=") and "largest sizes" in f for f in flags), flags
    gathered = dmm.fit_allgather(sizes, ranks, bent, spreads=0.02 * bent)
    assert gathered.flags
    counts = np.array([2, 4, 8, 16, 32, 64], dtype=float)
    barrier = (1.5 * np.log2(counts) + 3) * np.exp(0.3 * np.random.default_rng(8).standard_normal(counts.size))
    assert not dmm.fit_barrier(counts, barrier, spreads=0.4 * barrier).flags
    linear = 0.5 * counts  # grows with P, not log2 P: the log model misses both ends
    assert dmm.fit_barrier(counts, linear, spreads=0.02 * linear).flags


def test_a_segment_of_two_sizes_one_disturbed_keeps_its_line():
    """A memcopy run (two sizes per octave) in which several times were disturbed by
    load: a disturbed time weighs next to nothing but still determines, with its
    neighbour, the line of a two-size segment; the fit stands (it once failed as
    rank deficient, skipping the kernel)."""
    sizes = [int(round(64 * 2 ** (k / 2))) for k in range(39)]
    times = [0.001777, 0.001701, 0.001581, 0.003604, 0.003505, 0.005388, 0.01285, 0.007142, 0.009593, 0.01288,
             0.01346, 0.023, 0.03291, 0.04731, 0.06407, 0.08009, 0.1129, 0.1655, 2.298, 1.127, 3.994, 2.378, 3.421,
             4.302, 6.307, 22.65, 14.06, 18.65, 40.11, 84.93, 140.2, 208.8, 319.5, 394.7, 615.3, 887.2, 1169.0,
             1752.0, 2704.0]
    spreads = [1.18e-05, 3.11e-06, 3.14e-05, 1.69e-05, 5e-06, 1.41e-05, 4.59e-06, 3.47e-05, 4.68e-05, 1.03e-05,
               2.42e-06, 0.000762, 0.000171, 0.000182, 0.00206, 0.000491, 0.00194, 0.00134, 0.0123, 0.00242,
               0.00886, 0.00605, 0.0115, 0.00793, 0.0237, 0.00851, 0.212, 0.188, 0.654, 0.425, 0.252, 0.304, 7.94,
               8.76, 8.5, 5.58, 18.9, 155.0, 222.0]
    fit = dmm.fit_piecewise_linear(sizes, times, max_breakpoints=3, spreads=spreads)
    assert fit.breakpoints_bytes and all(np.isfinite(seg.us_per_byte) for seg in fit.segments)
    assert float(fit.predict(1 << 24)) == pytest.approx(1169.0, rel=0.25)


def test_other_work_is_told_apart_from_the_runs_own(tmp_path):
    """others_share: the cores' busy time less this process's and its jobs', plus the
    hypervisor's steal, as a share of the cores' time; a run's own ranks, which raise
    the load average, do not count. None where /proc/stat is unreadable."""
    from datamotion.measure.cores import CpuSnapshot, cpu_snapshot, others_share

    before = CpuSnapshot(wall=100.0, busy=500.0, stolen=10.0, children=40.0, own=5.0)
    own_run = CpuSnapshot(wall=110.0, busy=519.0, stolen=10.0, children=58.0, own=6.0)  # 2 cores, 10 s, all ours
    assert others_share(before, own_run, 2) == pytest.approx(0.0)
    shared = own_run._replace(busy=524.0, stolen=12.0)  # 5 s of other processes, 2 s stolen
    assert others_share(before, shared, 2) == pytest.approx(7.0 / 20.0)
    assert others_share(before, None, 2) is None and others_share(shared, before, 2) is None
    stat = tmp_path / "stat"
    stat.write_text("cpu  100 0 50 1000 0 0 0 7 0 0\ncpu0 50 0 25 500 0 0 0 3 0 0\n")
    snap = cpu_snapshot(str(stat))
    tick = os.sysconf("SC_CLK_TCK")
    assert snap.busy == pytest.approx(150 / tick) and snap.stolen == pytest.approx(7 / tick)
    assert cpu_snapshot(str(tmp_path / "absent")) is None


def test_a_program_the_model_cannot_price_keeps_its_measured_times():
    """bench programs: a model without a kernel a prediction needs (one its points could
    not fit) leaves that row unpredicted, saying why, instead of ending the run; the
    report shows the measured time and the reason."""
    from datamotion.measure.report import predicted
    from datamotion.measure.report.format import Entry
    from datamotion.measure.suites import programs as suite

    model = synthetic_model()
    del model["models"]["memcopy"]
    plan = [[msg(1, 4096, 2, True), msg(1, 4096, 2, False)], [msg(0, 4096, 2, True), msg(0, 4096, 2, False)]]
    p, why = suite._predicted(lambda m, c: programs.redistribution(m, plan, call_us=c), model, 1.0)
    assert p is None and "memcopy" in why
    assert suite._error_pct(None, {"median_us": 5.0}) is None
    row = {"n": 64, "ranks": 2, "median_us": 5.0, "predicted_us": None, "error_pct": None, "not_predicted": why,
           "error_by_round_pct": []}
    html = predicted._programs_table([Entry(0, {"kernel": "redistribution", "params": {}, "rows": [row]})])
    assert "not predicted" in html and "5.0" in html
