"""The Paragon/SP2/CS-2 paper's experiments: the quick suite gives the documented
kernels, rows and params at 2 and 3 ranks; the contention exchange checks every
message it receives; memcpy copies exactly the bytes asked for at every offset and
touches nothing around them; the report of a synthetic results document (serial, no
MPI) draws every subsection beside the paper's numbers and recovers known fits."""

import os
import re

import pytest

from datamotion import _core
from datamotion.measure import report, suites
from datamotion.measure.report import paragon as paragon_report
from datamotion.measure.report.format import Entry
from datamotion.measure.suites import paragon
from dmtest import WORLD, check_all, raises_everywhere

SIZE = WORLD.size
SUMMARY = {"median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_us", "reps", "samples_us"}


# ---------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------


def test_memcpy_copies_exactly_at_every_offset():
    # validate fills the source, guards the destination pages and checks every byte
    # inside the copy and around it after each repetition.
    for src in range(64):
        for dst in range(64):
            samples = _core.bench_memcpy_offsets(100, src, dst, 1, 0, 1, True)
            assert len(samples) == 1 and samples[0] >= 0, (src, dst)
    for nbytes in (0, 1, 15, 16, 17, 4095, 4096, 70001):
        for src, dst in ((0, 0), (1, 0), (0, 1), (63, 17), (4095, 4095)):
            samples = _core.bench_memcpy_offsets(nbytes, src, dst, 2, 1, 3, True)
            assert len(samples) == 2 and min(samples) >= 0, (nbytes, src, dst)


def test_memcpy_rejects_offsets_outside_a_page():
    for src, dst in ((-1, 0), (0, -1), (4096, 0), (0, 4096)):
        with pytest.raises(Exception, match="offsets must be in 0 .. 4095"):
            _core.bench_memcpy_offsets(64, src, dst, 1, 0, 1, False)
    with pytest.raises(Exception, match="reps and iters must be positive"):
        _core.bench_memcpy_offsets(64, 0, 0, 0, 0, 1, False)


@pytest.mark.parallel(nprocs=[2, 3, 4])
def test_chain_exchange_with_validation():
    for pairs in range(1, SIZE // 2 + 1):
        for messages in (1, 3, 17):
            for nbytes in (0, 1, 1792, 70000):
                samples = _core.bench_chain_exchange(WORLD, pairs, messages, nbytes, 3, 1, True)
                check_all(WORLD, len(samples) == 3 and min(samples) >= 0,
                          f"{pairs} pair(s), {messages} message(s), {nbytes} B: {samples}")


@pytest.mark.parallel(nprocs=[2, 3])
def test_chain_exchange_rejects_too_many_pairs_everywhere():
    raises_everywhere(WORLD, lambda: _core.bench_chain_exchange(WORLD, SIZE // 2 + 1, 1, 8, 1, 0, False),
                      match="need")
    raises_everywhere(WORLD, lambda: _core.bench_chain_exchange(WORLD, 1, 0, 8, 1, 0, False),
                      match="messages must be positive")


# ---------------------------------------------------------------------------
# The quick suite
# ---------------------------------------------------------------------------


@pytest.mark.parallel(nprocs=[2, 3])
def test_quick_suite_entries():
    doc = suites.run_suites(["paragon"], WORLD, quick=True, validate=True)
    ok, why = True, ""
    if WORLD.rank == 0:
        by_kernel = {}
        for e in doc["results"]:
            by_kernel.setdefault(e["kernel"], []).append(e)
        sweeps = by_kernel.get("paragon_sweep", [])
        contention = {e["params"]["mode"]: e for e in by_kernel.get("paragon_contention", [])}
        copy, = by_kernel.get("paragon_memcpy_alignment", [None])
        barrier, = by_kernel.get("paragon_barrier", [None])
        checks = {
            "kernels": sorted(by_kernel) == ["paragon_barrier", "paragon_contention", "paragon_memcpy_alignment",
                                             "paragon_sweep"],
            "sweep methods": [e["params"]["method"] for e in sweeps] == list(paragon.SWEEP_METHODS)
            and sweeps[-1]["params"].get("iters") == paragon.PAPER_ITERS,
            "sweep sizes": all([r["bytes"] for r in e["rows"]] == list(range(0, 2001, 16)) for e in sweeps),
            "sweep rows": all(SUMMARY <= set(r) and r["median_us"] > 0 and r["ranks"] == 2
                              for e in sweeps for r in e["rows"]),
            "contention modes": sorted(contention) == sorted(paragon.CONTENTION_MODES),
            "messages rows": [(r["k"], r["messages"], r["pairs"], r["bytes"]) for r in contention["messages"]["rows"]]
            == [(k, k, 1, b) for k in paragon.QUICK_CONTENTION_LEVELS for b in paragon.QUICK_CONTENTION_SIZES],
            "chain rows": [(r["k"], r["pairs"], r["ranks"], r["bytes"]) for r in contention["chain"]["rows"]]
            == [(k, k, 2 * k, b) for k in range(1, SIZE // 2 + 1) for b in paragon.QUICK_CONTENTION_SIZES],
            "slowdown": all(r["slowdown"] == 1.0 for e in contention.values() for r in e["rows"] if r["k"] == 1)
            and all(r["slowdown"] > 0 and SUMMARY <= set(r) for e in contention.values() for r in e["rows"]),
            "memcpy rows": copy is not None and sorted((r["sweep"], r["bytes"], r["src_offset"], r["dst_offset"])
                                                       for r in copy["rows"]) == sorted(
                [("size", b, 0, 0) for b in paragon.QUICK_MEMCPY_RATE_SIZES]
                + [(s, b, o if s != "dst" else 0, o if s != "src" else 0) for b in paragon.QUICK_MEMCPY_SIZES
                   for o in paragon.QUICK_MEMCPY_OFFSETS for s in paragon.MEMCPY_SWEEPS]),
            "memcpy values": copy is not None and all(r["ns_per_byte"] >= 0 and r["ranks"] == 1 and SUMMARY <= set(r)
                                                      for r in copy["rows"]),
            "barrier rows": barrier is not None and [r["ranks"] for r in barrier["rows"]] == list(range(2, SIZE + 1)),
        }
        failed = [name for name, good in checks.items() if not good]
        ok, why = not failed, f"failed: {failed}"
    check_all(WORLD, ok, why)


# ---------------------------------------------------------------------------
# The report (serial)
# ---------------------------------------------------------------------------


def summary(median, **fields):
    return {**fields, "median_us": median, "p05_us": 0.95 * median, "p95_us": 1.2 * median, "mean_us": median,
            "min_us": 0.9 * median, "ci95_us": [0.97 * median, 1.03 * median], "reps": 3,
            "samples_us": [0.9 * median, median, 1.1 * median]}


def synthetic_results():
    """Every entry the paragon suite writes, with known models: the sweep steps at
    1024 bytes; contention slowdown 1 + 0.5 (k - 1); memcpy 2 ns/byte, 3 at offsets
    that are not multiples of 16; barrier 3 log2 P + 1."""
    results = []
    for method, t0 in (("pingpong", 2.0), ("exchange", 4.0), ("paper", 1.0)):
        rows = [summary(t0 + b / 1000.0 + (2.0 if b >= 1024 else 0.0), bytes=b, ranks=2, src=0, dst=1)
                for b in range(0, 2001, 16)]
        results.append({"kernel": "paragon_sweep", "params": {"method": method}, "rows": rows})
    sizes = [0, 1792, 16384, 262144]
    for mode, levels in (("messages", (1, 2, 4, 16)), ("chain", (1, 2))):
        rows = []
        for k in levels:
            for b in sizes:
                base = 5.0 + b / 10000.0
                rows.append(summary(base * (1 + 0.5 * (k - 1)), k=k, pairs=1 if mode == "messages" else k,
                                    messages=k if mode == "messages" else 1, bytes=b, ranks=2,
                                    slowdown=1 + 0.5 * (k - 1)))
        results.append({"kernel": "paragon_contention", "params": {"mode": mode}, "rows": rows})
    copy = [summary(0.05 + 0.002 * b, sweep="size", bytes=b, src_offset=0, dst_offset=0, ranks=1,
                    ns_per_byte=1e3 * (0.05 + 0.002 * b) / b) for b in (1 << k for k in range(10, 25, 2))]
    for b in (4096, 1 << 20):
        for sweep in ("src", "dst", "both"):
            for o in range(64):
                ns = 2.0 if o % 16 == 0 else 3.0
                copy.append(summary(ns * b / 1e3, sweep=sweep, bytes=b, src_offset=0 if sweep == "dst" else o,
                                    dst_offset=0 if sweep == "src" else o, ranks=1, ns_per_byte=ns))
    results.append({"kernel": "paragon_memcpy_alignment", "params": {"page_bytes": 4096}, "rows": copy})
    results.append({"kernel": "paragon_barrier", "params": {},
                    "rows": [summary(3.0 * (p.bit_length() - 1) + 1.0, bytes=0, ranks=p) for p in (2, 4, 8)]})
    return {"schema": "datamotion.bench/1", "provenance": {"ranks": 8}, "quick": True, "validated": True,
            "warnings": [], "results": results}


def entries_of(doc):
    return [Entry(i, raw) for i, raw in enumerate(doc["results"])]


def test_report_draws_every_subsection_beside_the_paper(tmp_path):
    index = report.write_report(synthetic_results(), str(tmp_path))
    text = open(index, encoding="utf-8").read()
    for section in ("paragon-sweep", "paragon-contention", "paragon-memcpy", "paragon-table1"):
        match = re.search(f'<section id="{section}">(.*?)</section>', text, flags=re.S)
        assert match, section
        assert "class=beside" in match.group(1) and "the paper:" in match.group(1), section
    for published in ("126d − 113", "72d − 52", "17d − 5.6", "75 + 0.011m", "−50 + 0.056m", "105 + 0.025m",
                      "0.0043", "1792 bytes", "almost 3", "8640"):
        assert published in text, published
    names = re.findall(r'<img src="([^"]+)"', text)
    assert {"paragon-sweep.png", "paragon-sweep-seed.png", "paragon-contention-messages.png",
            "paragon-contention-chain.png", "paragon-memcpy-alignment.png", "paragon-memcpy-rate.png"} <= set(names)
    for name in names:
        with open(os.path.join(tmp_path, name), "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", name
    assert "Other kernels" not in text  # every paragon kernel has its section


def test_report_recovers_the_known_models():
    entries = entries_of(synthetic_results())
    rows = {r[0]: r for r in paragon_report.summary_rows(entries)}
    barrier = rows["barrier (µs), d = log2 P"]
    assert barrier[1].startswith("3.00d + 1.00"), barrier
    assert rows["memory copy (µs/byte)"][1].startswith("0.00200 (500 MB/s"), rows["memory copy (µs/byte)"]
    # The sweep: two segments split at 1024 bytes, 1 µs per 1000 bytes in each, in one row beside
    # the paper's small-message line (once, not once per segment).
    small = [r for name, r in rows.items() if name.startswith("small messages (µs), paper")]
    assert len(small) == 1 and small[0][3] == "75 + 0.011m", small
    assert "1000 MB/s, 16–1008" in small[0][1] and "other segments: 3.00 + 1.00e−03m" in small[0][1], small
    messages = next(e for e in entries if e.params.get("mode") == "messages")
    nbytes, slope, top = paragon_report.contention_slope(messages)
    assert (nbytes, top) == (262144, 16) and slope == pytest.approx(0.5)
    chain = next(e for e in entries if e.params.get("mode") == "chain")
    assert paragon_report.contention_slope(chain)[1] == pytest.approx(0.5)


def test_report_without_paragon_entries_has_no_paragon_subsections(tmp_path):
    doc = synthetic_results()
    doc["results"] = [e for e in doc["results"] if e["kernel"] == "paragon_barrier"]
    text = open(report.write_report(doc, str(tmp_path)), encoding="utf-8").read()
    assert 'id="paragon-table1"' in text  # the barrier alone is a row of Table 1
    for section in ("paragon-sweep", "paragon-contention", "paragon-memcpy"):
        assert f'id="{section}"' not in text
