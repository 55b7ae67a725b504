"""The Paragon/SP2/CS-2 paper's measurements (Bokhari, 1995) in the report: bandwidth,
the 0-2000 byte sweep in steps of 16 (its Figure 2), contention (Section 7, Figure 5),
memcpy by alignment (Section 4) and the summary of every fitted parameter (Table 1),
each beside the paper's own numbers."""

from __future__ import annotations

import html
import math
from typing import Any, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..fit import fit_barrier, fit_piecewise_linear
from .compare import Item, Row, find, one, pick
from .format import Entry, by_kernel, ci_text, fmt, num, r2_text, seed_section, size_label, size_text, table
from .plots import Plots, bytes_axis, draw_piecewise, errorbars, piecewise_fits, value_axis

TITLE = "Communication overhead (the Paragon, SP2 and CS-2 paper)"
SEED = ("Bokhari, Communication overhead on the Intel Paragon, IBM SP2 and Meiko CS-2 (1995), "
        "measured on those three machines")
BANDWIDTH_KERNELS = ("pingpong", "exchange", "stream", "bidir")
PARAGON_KERNELS = ("paragon_sweep", "paragon_contention", "paragon_memcpy_alignment", "paragon_barrier")
KERNELS = frozenset(BANDWIDTH_KERNELS + PARAGON_KERNELS + ("barrier", "memcopy"))
"""The kernels this section draws (barrier and memcopy only in the Table 1 summary)."""

MACHINES = ("Intel Paragon", "IBM SP2", "Meiko CS-2")
SEED_MACHINES = "Intel Paragon (nx), IBM SP2 (MPI-F), Meiko CS-2 (mpsc)"

# The paper's Table 1 ("Summary of performance figures"), as published: memory copy in
# µs per byte, barrier a d + b µs on 2^d processors, communication time in µs for zero,
# small and large messages of m bytes as t0 + s m.
TABLE1_MEMCPY_US_PER_BYTE = {"Intel Paragon": 0.0140, "IBM SP2": 0.0043, "Meiko CS-2": 0.0153}
TABLE1_BARRIER = {"Intel Paragon": (126.0, -113.0), "IBM SP2": (72.0, -52.0), "Meiko CS-2": (17.0, -5.6)}
TABLE1_ZERO_US = {"Intel Paragon": 58.0, "IBM SP2": 48.0, "Meiko CS-2": 103.0}
TABLE1_SMALL = {"Intel Paragon": (75.0, 0.011), "IBM SP2": (70.0, 0.043), "Meiko CS-2": (105.0, 0.025)}
TABLE1_LARGE = {"Intel Paragon": (135.0, 0.011), "IBM SP2": (-50.0, 0.056), "Meiko CS-2": (105.0, 0.025)}
# Section 2: where small messages end and large ones begin (the CS-2 has one line).
SHORT_LONG_BYTES = {"Intel Paragon": 8640, "IBM SP2": 10000}
# Section 2 and Figure 2: the sweep's range and step; ITERS messages per exchange.
FIGURE2_RANGE = (0, 2000, 16)
ITERS = {"Intel Paragon": 200, "IBM SP2": 1000, "Meiko CS-2": 200}
# Section 7 and Figure 5 (Paragon only): a chain of n = 2..32 nodes, node i exchanging
# with n-1-i, gives contention n/2 = 1..16 on the middle link; at 16 the time grows
# "by a factor of almost 3"; the staircase steps at the 1792-byte packet size.
FIGURE5_MAX_CONTENTION = 16
FIGURE5_SLOWDOWN_AT_MAX = 3.0
FIGURE5_PACKET_BYTES = 1792
# Section 4: memcpy ns per byte; the Paragon's 14 needs a start address that is a
# multiple of 16, otherwise it "can go up by an order of magnitude"; SP2 and CS-2 do
# not suffer from such problems.
SECTION4_MEMCPY_NS = {"Intel Paragon": 14.0, "IBM SP2": 4.3, "Meiko CS-2": 15.3}
SECTION4_ALIGNMENT = 16
SECTION4_MISALIGNED_FACTOR = 10.0

SWEEP_MIN_POINTS = 8
"""Fewest sizes (128 bytes of the sweep) a fitted segment of the 0-2000 byte sweep spans."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return [_bandwidth_section(entries, plots), _sweep_section(entries, plots),
            _contention_section(entries, plots), _memcpy_section(entries, plots),
            _summary_section(entries)]


def _bandwidth_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, BANDWIDTH_KERNELS)
              if len(e.series("bytes", where=lambda r: num(r.get("bytes")) > 0)[0])]
    if not chosen:
        return ""
    fig, ax = plots.figure()
    allx, peaks = [], []
    for e in chosen:
        x, t, rows = e.series("bytes", where=lambda r: num(r.get("bytes")) > 0 and num(r.get("median_us")) > 0)
        if not len(x):
            continue
        bw = x / t
        ax.plot(x, bw, marker="o", markersize=4, label=e.label)
        allx += list(x)
        peak = int(np.argmax(bw))
        half = next((xi for xi, b in zip(x, bw) if b >= bw[peak] / 2), None)
        fits = piecewise_fits(e)
        asym = fits[0][1].get("segments", [{}])[-1].get("bandwidth_MBps") if fits and fits[0][1].get("segments") \
            else None
        peaks.append((html.escape(e.label), fmt(bw[peak]), size_text(x[peak]), size_text(half), fmt(asym)))
    bytes_axis(ax, allx)
    value_axis(ax, [], "bandwidth (MB/s)", log=False)
    ax.set_title("bandwidth: message size / median time")
    ax.legend(fontsize="small")
    figure = plots.save(fig, "bandwidth", "bandwidth versus message size",
                        "Bytes of one message divided by its median time (bidir: one direction's bytes).")
    return ('<section id="bandwidth"><h3>Bandwidth</h3>'
            f"<div class=plots>{figure}</div>"
            + table(["kernel", "peak (MB/s)", "at size", "half peak from", "fitted, largest segment (MB/s)"],
                     peaks, "Measured peak and the size that reaches half of it")
            + "</section>")


# ---------------------------------------------------------------------------
# Fits drawn here: the model document's when it has one, else fitted on the spot
# ---------------------------------------------------------------------------


def _piecewise(entry: Entry, where=None, max_breakpoints: int = 2, min_points: int = 3,
               weighting: str = "relative") -> Optional[Mapping[str, Any]]:
    """The entry's piecewise fit (a PiecewiseFit dict): the model document's (fitted
    with relative weights) where that is the weighting asked for, or one fitted here
    to the rows ``where`` selects; None when there are too few."""
    fits = piecewise_fits(entry)
    if fits and where is None and weighting == "relative":
        return fits[0][1]
    x, t, _ = entry.series("bytes", where=where)
    try:
        return fit_piecewise_linear(x, t, max_breakpoints=max_breakpoints, min_points=min_points,
                                    weighting=weighting).to_dict()
    except ValueError:
        return None


def _sweep_fit(entry: Entry) -> Optional[Mapping[str, Any]]:
    """The sweep's fit over 16 bytes and up (the paper gives zero bytes apart); a
    protocol step spans at least SWEEP_MIN_POINTS sizes, so a lone spike is no segment."""
    return _piecewise(entry, where=lambda r: num(r.get("bytes")) > 0, max_breakpoints=2,
                      min_points=SWEEP_MIN_POINTS)


def _copy_fit(entry: Entry, where=None) -> Optional[Mapping[str, Any]]:
    """memcpy over sizes weighted alike, so the large blocks decide the rate per byte
    (the paper's figure is for large blocks); the model document's fit when it has one."""
    return _piecewise(entry, where=where, weighting="uniform")


def _quoted(value: float) -> str:
    """A number of the paper as printed there."""
    return f"{value:g}".replace("-", "−")


def _expression(t0: Any, slope: Any, show=fmt) -> str:
    """``t0 + s·m`` as the paper writes its fits."""
    if num(t0) is None or num(slope) is None:
        return "—"
    sign = "−" if num(slope) < 0 else "+"
    return f"{show(t0)} {sign} {show(abs(num(slope)))}m".replace("-", "−")


def _paper_expression(pair: Tuple[float, float]) -> str:
    return _expression(*pair, show=_quoted)


def _paper_barrier(pair: Tuple[float, float]) -> str:
    a, b = pair
    return f"{_quoted(a)}d {'−' if b < 0 else '+'} {_quoted(abs(b))}"


def _flags(fit: Optional[Mapping[str, Any]]) -> str:
    flags = [str(f) for f in (fit or {}).get("flags") or []]
    return f' <span class=bad>({html.escape(", ".join(flags))})</span>' if flags else ""


def _method(e: Entry) -> str:
    return str(e.params.get("method", e.kernel))


# ---------------------------------------------------------------------------
# The 0-2000 byte sweep (Figure 2)
# ---------------------------------------------------------------------------


def _seed_sweep_plot(plots: Plots) -> str:
    fig, ax = plots.figure(width=5.2, height=3.8)
    m = np.arange(FIGURE2_RANGE[0], FIGURE2_RANGE[1] + 1, FIGURE2_RANGE[2], dtype=float)
    for i, machine in enumerate(MACHINES):
        t0, slope = TABLE1_SMALL[machine]
        ax.plot(m[1:], t0 + slope * m[1:], color=f"C{i}", label=f"{machine}: {_paper_expression((t0, slope))}")
        ax.plot([0], [TABLE1_ZERO_US[machine]], color=f"C{i}", marker="o", linestyle="none")
    ax.set_xlabel("message size (bytes)")
    value_axis(ax, [], "time (µs)", log=False)
    ax.set_title("Table 1 small-message lines over Figure 2's range")
    ax.legend(fontsize="small")
    return plots.save(fig, "paragon-sweep-seed", "the paper's small-message lines from 0 to 2000 bytes",
                      "The paper's Table 1 expressions for small messages, dots its zero-byte times; Figure 2 "
                      "itself shows steps on the Paragon from packetization.")


def _sweep_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, ("paragon_sweep",)) if len(e.series("bytes")[0])]
    if not chosen:
        return ""
    fig, ax = plots.figure()
    ally, seg_rows = [], []
    for i, e in enumerate(chosen):
        x, t, rows = e.series("bytes")
        errorbars(ax, x, rows, color=f"C{i}", label=_method(e))
        ally += list(t)
        fit = _sweep_fit(e)
        zero = next((num(r.get("median_us")) for r in rows if num(r.get("bytes")) == 0), None)
        if fit is None:
            seg_rows.append((html.escape(_method(e)), fmt(zero), "—", "—", "—", "—", "—"))
            continue
        draw_piecewise(ax, fit, float(x.min()), float(x.max()), color=f"C{i}", label=None, log=False)
        for s in fit.get("segments", []):
            seg_rows.append((html.escape(_method(e)), fmt(zero),
                             f"{size_text(s.get('start_bytes'))} – {size_text(s.get('end_bytes'))}",
                             ci_text(s.get("t0_us"), s.get("t0_ci95")), fmt(s.get("us_per_byte"), 4),
                             fmt(s.get("bandwidth_MBps")), r2_text(s.get("r2")) + _flags(s)))
    ax.set_xlabel("message size (bytes)")
    value_axis(ax, ally, "time per message (µs)", log=False)
    ax.set_ylim(0, 1.6 * max(ally))  # medians decide the scale; a rare slow sample does not
    ax.set_title("0 to 2000 bytes in steps of 16")
    ax.legend(fontsize="small")
    ours = plots.save(fig, "paragon-sweep", "time per message from 0 to 2000 bytes in steps of 16",
                      "Median time per message (band: 5th to 95th percentile) and the piecewise fit over 16 bytes "
                      "and up, dashed, breakpoints dotted. pingpong: half a round trip; exchange: one "
                      "nonblocking exchange; paper: ITERS messages each way at once, time / (2 ITERS).")
    ours += table(["method", "0 bytes (µs)", "segment", "t0 (µs) [95 % CI]", "µs/byte", "MB/s", "r²"], seg_rows,
                  "Zero-byte time and fitted segments t0 + s·m (16 bytes and up)", numeric_from=1)
    seed_rows = [(html.escape(m), _quoted(TABLE1_ZERO_US[m]), _paper_expression(TABLE1_SMALL[m]), str(ITERS[m]))
                 for m in MACHINES]
    seed = _seed_sweep_plot(plots) + table(["machine", "zero (µs)", "small (µs)", "ITERS"], seed_rows,
                                           "Table 1: zero-byte and small-message times (m bytes)")
    return seed_section(
        "paragon-sweep", "0 to 2000 bytes in steps of 16 (Figure 2)",
        "Every multiple of 16 bytes up to 2000, to expose protocol steps (the Paragon's came from "
        "packetization).",
        ours, seed, SEED_MACHINES)


# ---------------------------------------------------------------------------
# Contention (Section 7, Figure 5)
# ---------------------------------------------------------------------------


def _slowdown(row: Mapping[str, Any]) -> Optional[float]:
    return num(row.get("slowdown"))


def contention_slope(entry: Entry) -> Optional[Tuple[float, float, float]]:
    """(bytes, slope s, largest k) of slowdown = 1 + s (k - 1) fitted through the origin
    at the entry's largest message size; None with fewer than two levels k."""
    sizes = entry.distinct("bytes")
    if not sizes:
        return None
    k, slow, _ = entry.series("k", "slowdown", where=lambda r: num(r.get("bytes")) == sizes[-1])
    if len(k) < 2 or not np.any(k > 1):
        return None
    slope = float(np.sum((k - 1) * (slow - 1)) / np.sum((k - 1) ** 2))
    return sizes[-1], slope, float(k.max())


def _contention_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, ("paragon_contention",)) if len(e.series("bytes")[0])]
    if not chosen:
        return ""
    figures, pivot = [], []
    for e in chosen:
        mode = str(e.params.get("mode", "?"))
        levels = e.distinct("k")
        sizes = e.distinct("bytes")
        fig, (left, right) = plots.figure(width=11.0, height=4.2, ncols=2)
        ally = []
        for i, k in enumerate(levels):
            x, t, rows = e.series("bytes", where=lambda r, k=k: num(r.get("k")) == k)
            errorbars(left, x, rows, color=f"C{i}", label=f"k = {k:g}")
            ally += list(t)
        bytes_axis(left, sizes)
        value_axis(left, ally, "time of the exchange (µs)", log=True)
        left.set_title(f"{mode}: time vs message size")
        left.legend(fontsize="small")
        for i, b in enumerate(sizes):
            k, slow, _ = e.series("k", "slowdown", where=lambda r, b=b: num(r.get("bytes")) == b)
            right.plot(k, slow, marker="o", markersize=4, color=f"C{i}", label=size_label(b))
        right.axhline(1.0, color="grey", linewidth=0.8)
        right.set_xlabel("contention k (messages sharing a path)")
        value_axis(right, [], "slowdown over k = 1", log=False)
        right.set_title(f"{mode}: slowdown vs k")
        right.legend(fontsize="small", title="message size", title_fontsize="small")
        what = ("k messages each way at once between ranks 0 and 1" if mode == "messages"
                else "k pairs, rank i with 2k−1−i, all crossing the middle of the chain")
        figures.append(plots.save(fig, f"paragon-contention-{mode}", f"contention ({mode}) against size and k",
                                  html.escape(f"{mode}: {what}; the slowest rank's time from the barrier to the "
                                              "last completion.")))
        for b in sizes:
            base = next((num(r.get("median_us")) for r in e.rows
                         if num(r.get("bytes")) == b and num(r.get("k")) == levels[0]), None)
            slow = {num(r.get("k")): _slowdown(r) for r in e.rows if num(r.get("bytes")) == b}
            pivot.append((html.escape(mode), size_text(b), fmt(base), {k: fmt(slow.get(k)) for k in levels[1:]}))
    higher = sorted({k for e in chosen for k in e.distinct("k")[1:]})
    headers = ["mode", "bytes", "k = 1 (µs)"] + [f"k = {k:g}" for k in higher]
    pivot = [r[:3] + tuple(r[3].get(k, "—") for k in higher) for r in pivot]
    slopes = [(html.escape(str(e.params.get("mode"))), size_text(s[0]), fmt(s[1]), fmt(1 + s[1] * (s[2] - 1)),
               f"{s[2]:g}") for e in chosen for s in [contention_slope(e)] if s]
    ours = "".join(figures) + table(headers, pivot, "Time at k = 1 and the slowdown T(k) / T(1) per message size",
                                    numeric_from=1)
    if slopes:
        ours += table(["mode", "bytes", "slope s", "slowdown at largest k", "largest k"], slopes,
                      "Contention slope: slowdown = 1 + s (k − 1) at the largest size")
    paragon_slope = (FIGURE5_SLOWDOWN_AT_MAX - 1) / (FIGURE5_MAX_CONTENTION - 1)
    seed = table(["quantity", "Intel Paragon"], [
        ("chain of n nodes, i with n−1−i", "n = 2 … 32"),
        ("contention on the middle link", f"n/2 = 1 … {FIGURE5_MAX_CONTENTION}"),
        (f"slowdown at contention {FIGURE5_MAX_CONTENTION}", f"almost {FIGURE5_SLOWDOWN_AT_MAX:g}"),
        ("slope s implied (slowdown = 1 + s (k − 1))", f"≈ {fmt(paragon_slope)}"),
        ("staircase step (packet size)", f"{FIGURE5_PACKET_BYTES} bytes"),
    ], "Section 7 and Figure 5 (the SP2 and CS-2 routes could not be contrived)", numeric_from=1)
    return seed_section(
        "paragon-contention", "Contention (Section 7, Figure 5)",
        "k messages sharing one path: the paper's chain, where node i exchanges with n−1−i so that "
        "n/2 messages cross the middle link, and, where only two ranks exist, k messages at once between one "
        "pair (the same path through the node carries k). Our slowdown per pair of ranks in shared memory "
        "is bounded by memory bandwidth, not by a mesh link.",
        ours, seed, "Intel Paragon (16 × 32 mesh, row-column routing)")


# ---------------------------------------------------------------------------
# memcpy by alignment (Section 4)
# ---------------------------------------------------------------------------


def _alignment_rows(e: Entry) -> List[Tuple[str, ...]]:
    out = []
    for sweep in ("src", "dst", "both"):
        for b in e.distinct("bytes"):
            rows = [r for r in e.rows if r.get("sweep") == sweep and num(r.get("bytes")) == b
                    and num(r.get("ns_per_byte")) is not None]
            if not rows:
                continue
            field = "dst_offset" if sweep == "dst" else "src_offset"
            ns = {int(num(r.get(field)) or 0): num(r["ns_per_byte"]) for r in rows}
            aligned = [v for o, v in ns.items() if o % SECTION4_ALIGNMENT == 0]
            other = [v for o, v in ns.items() if o % SECTION4_ALIGNMENT != 0]
            worst = max(ns, key=ns.get)
            ratio = ns[worst] / ns[0] if ns.get(0) else None
            out.append((sweep, size_text(b), fmt(ns.get(0)), fmt(np.mean(aligned) if aligned else None),
                        fmt(np.mean(other) if other else None), f"{fmt(ns[worst])} (at {worst})", fmt(ratio)))
    return out


def _memcpy_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, ("paragon_memcpy_alignment",)) if e.rows]
    if not chosen:
        return ""
    e = chosen[0]
    sweeps = [s for s in ("src", "dst", "both") if any(r.get("sweep") == s for r in e.rows)]
    offset_sizes = sorted({num(r.get("bytes")) for r in e.rows if r.get("sweep") in sweeps} - {None})
    figures = []
    if sweeps:
        fig, axes = plots.figure(width=4.2 * len(sweeps), height=4.0, ncols=len(sweeps))
        axes = axes if isinstance(axes, list) else [axes]
        for ax, sweep in zip(axes, sweeps):
            field = "dst_offset" if sweep == "dst" else "src_offset"
            ally = []
            for i, b in enumerate(offset_sizes):
                x, y, _ = e.series(field, "ns_per_byte",
                                   where=lambda r, b=b: r.get("sweep") == sweep and num(r.get("bytes")) == b)
                if len(x):
                    ax.plot(x, y, marker="o", markersize=3, color=f"C{i}", label=size_label(b))
                    ally += list(y)
            for o in range(0, 64, SECTION4_ALIGNMENT):
                ax.axvline(o, color="grey", linestyle=":", linewidth=0.8)
            ax.set_xlabel({"src": "source offset (destination aligned)", "dst": "destination offset (source "
                           "aligned)", "both": "offset of source and destination"}[sweep] + " (bytes)")
            value_axis(ax, ally, "ns per byte", log=False)
            ax.set_title(f"memcpy time per byte: {sweep} offset")
            ax.legend(fontsize="small")
        figures.append(plots.save(fig, "paragon-memcpy-alignment", "memcpy time per byte against offsets",
                                  "Median memcpy time per byte at offsets 0–63 from a 4096-byte boundary; dotted: "
                                  "multiples of 16, where the paper's Paragon was fast."))
    x, t, _ = e.series("bytes", where=lambda r: r.get("sweep") == "size")
    if len(x):
        fig, ax = plots.figure()
        ax.plot(x, x / t, marker="o", markersize=4, color="C0", label="offsets 0, 0")
        bytes_axis(ax, x, label="copy size (bytes)")
        value_axis(ax, [], "MB/s", log=False)
        ax.set_title("aligned memcpy rate vs size")
        figures.append(plots.save(fig, "paragon-memcpy-rate", "aligned memcpy rate against size",
                                  "Bytes per median time, both buffers page aligned."))
    ours = "".join(figures) + table(
        ["offset varied", "bytes", "offset 0 (ns/B)", "multiples of 16 (ns/B)", "other offsets (ns/B)",
         "worst (ns/B)", "worst / offset 0"], _alignment_rows(e), "memcpy ns per byte by offset", numeric_from=2)
    seed_rows = [(html.escape(m), _quoted(SECTION4_MEMCPY_NS[m]),
                  f"up to ~{SECTION4_MISALIGNED_FACTOR:g}× (“an order of magnitude”) unless the start address is a "
                  f"multiple of {SECTION4_ALIGNMENT}" if m == "Intel Paragon" else "not sensitive")
                 for m in MACHINES]
    seed = table(["machine", "memcpy (ns/byte)", "alignment"], seed_rows,
                 "Section 4 (arrays aligned to 4 KiB pages throughout)", numeric_from=1)
    return seed_section(
        "paragon-memcpy", "memcpy by alignment (Section 4)",
        "memcpy time against the source and destination offsets from a page boundary.",
        ours, seed, SEED_MACHINES)


# ---------------------------------------------------------------------------
# Table 1: every fitted parameter beside the paper's
# ---------------------------------------------------------------------------


def _first(entries: Sequence[Entry], kernel: str, **params) -> Optional[Entry]:
    return next((e for e in entries if e.kernel == kernel and e.rows
                 and all(e.params.get(k) == v for k, v in params.items())), None)


def _paper(values: Mapping[str, Any], show) -> Tuple[str, ...]:
    return tuple(show(values[m]) if m in values else "—" for m in MACHINES)


def _segment_text(s: Mapping[str, Any]) -> str:
    return (f"{_expression(s.get('t0_us'), s.get('us_per_byte'))} ({fmt(s.get('bandwidth_MBps'))} MB/s, "
            f"{size_text(s.get('start_bytes'))}–{size_text(s.get('end_bytes'))}, r² {r2_text(s.get('r2'))})"
            + _flags(s))


def _segments_text(segments: Sequence[Mapping[str, Any]]) -> str:
    """The first segment as the one the paper's line compares with; the rest in a line
    after it. A segment whose r² is negative is no line: it is marked, not compared."""
    first, rest = segments[0], segments[1:]
    text = _segment_text(first)
    if (num(first.get("r2")) or 0) < 0:
        text += " <span class=bad>(r² < 0: not comparable with the paper's line)</span>"
    if rest:
        text += f"<br><span class=ci>other segments: {'; '.join(_segment_text(s) for s in rest)}</span>"
    return text


def summary_rows(entries: Sequence[Entry]) -> List[Tuple[str, ...]]:
    """Table 1's rows: (quantity, ours, source, Paragon, SP2, CS-2), HTML cells."""
    rows: List[Tuple[str, ...]] = []
    # Memory copy: the largest-size segment (the paper's rate for large blocks).
    copy = _first(entries, "memcopy")
    fit, source = (_copy_fit(copy), "memcopy") if copy else (None, "")
    if fit is None:
        aligned = _first(entries, "paragon_memcpy_alignment")
        if aligned:
            fit = _copy_fit(aligned, where=lambda r: r.get("sweep") == "size")
            source = "paragon_memcpy_alignment, offsets 0"
    if fit and fit.get("segments"):
        s = fit["segments"][-1]
        rows.append(("memory copy (µs/byte)", f"{fmt(s.get('us_per_byte'), 3)} ({fmt(s.get('bandwidth_MBps'))} MB/s, "
                     f"from {size_text(s.get('start_bytes'))})" + _flags(s), source)
                    + _paper(TABLE1_MEMCPY_US_PER_BYTE, _quoted))
    # Barrier: a d + b on 2^d ranks (d = log2 P).
    barrier = _first(entries, "paragon_barrier") or _first(entries, "barrier")
    if barrier:
        p, t, _ = barrier.series("ranks")
        d = math.log2(p.min()) if len(p) else 1.0
        paper = _paper(TABLE1_BARRIER, lambda v: f"{_paper_barrier(v)} ({fmt(v[0] * d + v[1])} at P = {2 ** d:g})")
        fitted = barrier.fit.get("fit") if barrier.fit and barrier.fit.get("model") == "log2" else None
        if fitted is None and len(np.unique(p)) >= 2:
            try:
                fitted = fit_barrier(p, t).to_dict()
            except ValueError:
                fitted = None
        if fitted:
            ours = (f"{fmt(fitted.get('a'))}d {'−' if (num(fitted.get('b')) or 0) < 0 else '+'} "
                    f"{fmt(abs(num(fitted.get('b')) or 0))} (r² {r2_text(fitted.get('r2'))})" + _flags(fitted))
        else:
            ours = "; ".join(f"{fmt(ti)} at P = {pi:g}" for pi, ti in zip(p, t)) + " (one rank count: no slope)"
        rows.append(("barrier (µs), d = log2 P", ours, barrier.kernel) + paper)
    # Communication: zero bytes and small messages from the sweep, per method.
    for e in by_kernel(entries, ("paragon_sweep",)):
        zero = next((num(r.get("median_us")) for r in e.rows if num(r.get("bytes")) == 0), None)
        if zero is not None:
            rows.append((f"zero-byte message (µs), {html.escape(_method(e))}", fmt(zero), "paragon_sweep")
                        + _paper(TABLE1_ZERO_US, _quoted))
        segments = (_sweep_fit(e) or {}).get("segments") or []
        if segments:  # the paper's small-message line: our first segment; the others are listed with it
            rows.append((f"small messages (µs), {html.escape(_method(e))}", _segments_text(segments),
                         "paragon_sweep") + _paper(TABLE1_SMALL, _paper_expression))
    # Large messages: the largest-size segment of each point-to-point fit (the paper's "large" line).
    large = [e for e in by_kernel(entries, ("pingpong", "exchange"))]
    k1 = _first(entries, "paragon_contention", mode="messages")
    fits = [(f"messages (µs), {html.escape(e.label)}", _piecewise(e), e.kernel) for e in large]
    if not large and k1:
        fits.append(("messages (µs), one exchange",
                     _piecewise(k1, where=lambda r: num(r.get("k")) == 1 and num(r.get("bytes")) > 0),
                     "paragon_contention, k = 1"))
    for what, fit, source in fits:
        segments = (fit or {}).get("segments") or []
        if segments:
            rows.append((what, _segments_text(segments[::-1]), source) + _paper(TABLE1_LARGE, _paper_expression))
    # Contention slope: slowdown = 1 + s (k - 1) at the largest size.
    for e in by_kernel(entries, ("paragon_contention",)):
        s = contention_slope(e)
        if s:
            paragon = (FIGURE5_SLOWDOWN_AT_MAX - 1) / (FIGURE5_MAX_CONTENTION - 1)
            rows.append((f"contention slope s, {html.escape(str(e.params.get('mode')))}",
                         f"{fmt(s[1])} at {size_text(s[0])} (×{fmt(1 + s[1] * (s[2] - 1))} at k = {s[2]:g})",
                         "paragon_contention",
                         f"≈ {fmt(paragon)} (×≈{FIGURE5_SLOWDOWN_AT_MAX:g} at k = {FIGURE5_MAX_CONTENTION}, "
                         "Figure 5)", "not measured", "not measured"))
    return rows


def _summary_section(entries: Sequence[Entry]) -> str:
    rows = summary_rows(entries)
    if not rows:
        return ""
    ours = table(["quantity", "datamotion, this machine", "from", "Intel Paragon", "IBM SP2", "Meiko CS-2"], rows,
                 "Every fitted parameter beside the paper's Table 1 (m in bytes; t0 + s·m in µs)", numeric_from=6)
    published = [(html.escape(m), _quoted(TABLE1_MEMCPY_US_PER_BYTE[m]), _paper_barrier(TABLE1_BARRIER[m]),
                  _quoted(TABLE1_ZERO_US[m]), _paper_expression(TABLE1_SMALL[m]), _paper_expression(TABLE1_LARGE[m]),
                  size_text(SHORT_LONG_BYTES.get(m))) for m in MACHINES]
    seed = table(["machine", "mem. copy (µs/byte)", "barrier (µs), 2^d procs", "zero", "small", "large",
                  "small/large divide (bytes)"], published, "Table 1: summary of performance figures",
                 numeric_from=1)
    return seed_section(
        "paragon-table1", "Summary of fitted parameters (Table 1)",
        "Our fits, from the model document where it has the kernel and fitted here otherwise; the zero, "
        "small and large rows of the paper are its exchange (ITERS messages each way, time / 2 ITERS), "
        "our rows name the method.",
        ours, seed, SEED_MACHINES)


# ---------------------------------------------------------------------------
# Every numbered table and figure beside ours (measure/report/compare.py)
# ---------------------------------------------------------------------------

FIGURE1_SIZES = (0, 1024, 4096, 8192, 12288, 16000)
"""Sizes of Figure 1's 0-16000 byte sweep at which ours stands beside Table 1's lines."""
FIGURE4_SPREAD_PCT = {"Intel Paragon": 60.0, "Meiko CS-2": 25.0, "IBM SP2": 100.0}
"""Section 6 and Figure 4: the variation over 256 random matchings of 64 nodes (the SP2's "can exceed 100%")."""


def paper_time(machine: str, nbytes: float) -> float:
    """Table 1's time of one message of ``nbytes`` on ``machine``: zero, small or large line."""
    if nbytes == 0:
        return TABLE1_ZERO_US[machine]
    large = nbytes > SHORT_LONG_BYTES.get(machine, math.inf)
    t0, slope = (TABLE1_LARGE if large else TABLE1_SMALL)[machine]
    return t0 + slope * nbytes


def _item_figure1(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "pingpong_fine")
    rows = []
    for b in FIGURE1_SIZES:
        ours = pick(e, bytes=b) if e else None
        if ours is None and e is not None:  # the nearest size measured
            x, t, _ = e.series("bytes")
            if len(x):
                i = int(np.argmin(abs(x - b)))
                b, ours = float(x[i]), float(t[i])
        for m in MACHINES:
            rows.append(Row(f"{b:.0f} bytes, {m}", ours, paper_time(m, b), "µs", "paper: Table 1's line for the size"))
    return rows


def _item_figure2(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "paragon_sweep", method="paper") or one(entries, "paragon_sweep")
    if e is None:
        return []
    fit = _sweep_fit(e)
    seg = (fit or {}).get("segments", [{}])[0]
    bad = num(seg.get("r2")) is not None and num(seg.get("r2")) < 0
    note = "ours: r² < 0, the line does not describe the sweep" if bad else ""
    rows = []
    for m in MACHINES:
        rows += [Row(f"zero bytes, {m}", pick(e, bytes=0), TABLE1_ZERO_US[m], "µs"),
                 Row(f"small messages t0, {m}", num(seg.get("t0_us")), TABLE1_SMALL[m][0], "µs", note,
                     compared=not bad),
                 Row(f"small messages per byte, {m}", num(seg.get("us_per_byte")), TABLE1_SMALL[m][1], "µs/byte",
                     note, compared=not bad)]
    return rows


def _item_figure3(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "hypercube")
    rows = []
    if e is None:
        return rows
    sizes = [b for b in e.distinct("bytes") if b <= 16384] or e.distinct("bytes")
    b = sizes[-1]
    first = pick(e, dimension=1, bytes=b)
    for d in e.distinct("dimension"):
        t = pick(e, dimension=d, bytes=b)
        rows.append(Row(f"d = {d:.0f}, {b:.0f} bytes", t, d * paper_time("Intel Paragon", b), "µs",
                        "paper: d × Table 1's Paragon time (the text: linear in d)"))
        if d > 1:  # T(1) / (1 T(1)) is 1 by definition, not a finding
            rows.append(Row(f"d = {d:.0f}: T(d) / (d T(1))", t / (d * first) if t and first else None, 1.0, "",
                            "1 = linear in d, as the paper finds on the Paragon and SP2"))
    if max(e.distinct("dimension") or [0]) < 2:
        rows.append(Row("T(d) / (d T(1)) for d ≥ 2", None, 1.0, "",
                        "needs a hypercube of dimension 2 or more (4 or more ranks): not measured in this run",
                        compared=False))
    return rows


def _item_figure4(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "matching")
    rows = []
    if e is None:
        return rows
    for r in sorted(e.rows, key=lambda r: num(r.get("bytes")) or 0):
        if (num(r.get("ranks")) or 0) < 4:  # 2 ranks have one matching: a spread would be noise
            rows += [Row(f"{size_text(r.get('bytes'))}: slowest / fastest matching − 1, {m}", None, pct, "%",
                         f"needs 4 or more ranks (with {fmt(r.get('ranks'))} every matching is the same pairing): "
                         "not measured in this run", compared=False) for m, pct in FIGURE4_SPREAD_PCT.items()]
            continue
        spread = num(r.get("spread"))
        if spread is None:
            samples = [s for s in (num(v) for v in r.get("samples_us") or []) if s]
            spread = max(samples) / min(samples) if samples else None
        for m, pct in FIGURE4_SPREAD_PCT.items():
            rows.append(Row(f"{size_text(r.get('bytes'))}: slowest / fastest matching − 1, {m}",
                            100.0 * (spread - 1) if spread else None, pct, "%",
                            f"ours: {fmt(r.get('matchings'))} matchings of {fmt(r.get('ranks'))} ranks"
                            + ("; paper: more than 100 %" if m == "IBM SP2" else "")))
    return rows


def _item_figure5(entries: Sequence[Entry]) -> List[Row]:
    rows = []
    for e in find(entries, "paragon_contention"):
        s = contention_slope(e)
        if s:
            # The paper's contention is k pairs sharing the chain's middle link ("chain");
            # one pair sending k messages ("messages") is another experiment, shown apart.
            chain = e.params.get("mode") == "chain"
            note = "" if chain else "one pair sending k messages, not the paper's k pairs: not compared"
            rows.append(Row(f"{e.params.get('mode')}: slowdown at the largest k ({s[2]:g}), {size_text(s[0])}",
                            1 + s[1] * (s[2] - 1), 1 + (FIGURE5_SLOWDOWN_AT_MAX - 1) / (FIGURE5_MAX_CONTENTION - 1)
                            * (s[2] - 1), "×", note or "paper: slowdown 3 at k = 16, taken as linear in k",
                            compared=chain))
            rows.append(Row(f"{e.params.get('mode')}: slope s of slowdown = 1 + s (k − 1)", s[1],
                            (FIGURE5_SLOWDOWN_AT_MAX - 1) / (FIGURE5_MAX_CONTENTION - 1), "per message", note,
                            compared=chain))
    return rows


def _item_table1(entries: Sequence[Entry]) -> List[Row]:
    rows = []
    copy = one(entries, "memcopy")
    fit = _copy_fit(copy) if copy else None
    if fit and fit.get("segments"):
        last = fit["segments"][-1]
        r2 = num(last.get("r2"))
        loose = r2 is not None and r2 < 0.9  # the line does not describe its sizes: no rate to compare
        note = ("ours: the largest sizes' segment, sizes weighted alike" if not loose else
                f"ours: the largest sizes' segment fits them loosely (r² {r2:.2f}): not compared")
        for m in MACHINES:
            rows.append(Row(f"memory copy, {m}", num(last.get("us_per_byte")), TABLE1_MEMCPY_US_PER_BYTE[m],
                            "µs/byte", note, compared=not loose))
    barrier = one(entries, "paragon_barrier") or one(entries, "barrier")
    if barrier:
        p, t, _ = barrier.series("ranks")
        if len(np.unique(p)) >= 2:
            try:
                b = fit_barrier(p, t).to_dict()
            except ValueError:
                b = None
            if b:
                bad = (num(b.get("r2")) or 0) < 0
                for m in MACHINES:
                    rows.append(Row(f"barrier a (µs per log2 P), {m}", num(b.get("a")), TABLE1_BARRIER[m][0], "µs",
                                    "ours: r² < 0, not compared" if bad else "", compared=not bad))
        d = math.log2(p.max()) if len(p) else None
        for m in MACHINES:
            if d:
                rows.append(Row(f"barrier at P = {p.max():g}, {m}", float(t[-1]),
                                TABLE1_BARRIER[m][0] * d + TABLE1_BARRIER[m][1], "µs", "paper: a d + b at d = log2 P"))
    sweep = one(entries, "paragon_sweep", method="paper") or one(entries, "paragon_sweep")
    if sweep is not None:
        rows += [r for r in _item_figure2(entries) if not r.quantity.startswith("zero")]
    for e in find(entries, "pingpong")[:1]:
        fit = _piecewise(e)
        segs = (fit or {}).get("segments") or []
        if segs:
            s = segs[-1]
            bad = num(s.get("r2")) is not None and num(s.get("r2")) < 0
            for m in MACHINES:
                negative = TABLE1_LARGE[m][0] < 0  # the SP2's: an intercept below zero, no time to divide by
                rows.append(Row(f"large messages t0, {m}", num(s.get("t0_us")), TABLE1_LARGE[m][0], "µs",
                                "ours: r² < 0, not compared" if bad else
                                "the paper's t0 is negative (a fit's intercept, not a time): not compared"
                                if negative else "ours: pingpong, largest segment",
                                compared=not bad and not negative))
                rows.append(Row(f"large messages per byte, {m}", num(s.get("us_per_byte")), TABLE1_LARGE[m][1],
                                "µs/byte", "ours: r² < 0, not compared" if bad else "", compared=not bad))
    return rows


_MACHINES_TEXT = "Intel Paragon, IBM SP2 and Meiko CS-2"
ITEMS = (
    Item("paragon", "Figure 1", "message time from 0 to 16000 bytes", frozenset({"pingpong_fine"}), _item_figure1,
         _MACHINES_TEXT, "Ours: a blocking ping-pong (half the round trip) between ranks 0 and 1."),
    Item("paragon", "Figure 2", "0 to 2000 bytes in steps of 16", frozenset({"paragon_sweep"}), _item_figure2,
         _MACHINES_TEXT, "Ours: the paper's method, ITERS messages each way between two barriers."),
    Item("paragon", "Figure 3", "hypercube emulation", frozenset({"hypercube"}), _item_figure3, _MACHINES_TEXT,
         "Ours: the first 2^d ranks, one exchange per dimension in sequence."),
    Item("paragon", "Figure 4", "random matchings", frozenset({"matching"}), _item_figure4,
         "64 nodes of each machine, 256 matchings", "Ours: every rank paired at random, a few matchings."),
    Item("paragon", "Figure 5", "contention on the Paragon", frozenset({"paragon_contention"}), _item_figure5,
         "Intel Paragon, a chain of up to 32 nodes on its mesh",
         "Ours: shared memory, where a path is memory bandwidth, not a mesh link."),
    Item("paragon", "Table 1", "summary of performance figures",
         frozenset({"memcopy", "barrier", "paragon_barrier", "paragon_sweep", "pingpong"}), _item_table1,
         _MACHINES_TEXT),
)
"""The Paragon/SP2/CS-2 paper's numbered data tables and figures."""
