"""The Paragon/SP2/CS-2 paper's measurements (Bokhari, 1995) in the report: bandwidth."""

from __future__ import annotations

import html
from typing import List, Sequence

import numpy as np

from .format import Entry, by_kernel, fmt, num, size_text, table
from .plots import Plots, bytes_axis, piecewise_fits, value_axis

TITLE = "Communication overhead (the Paragon, SP2 and CS-2 paper)"
SEED = ("Bokhari, Communication overhead on the Intel Paragon, IBM SP2 and Meiko CS-2 (1995), "
        "measured on those three machines")
BANDWIDTH_KERNELS = ("pingpong", "exchange", "stream", "bidir")
KERNELS = frozenset(BANDWIDTH_KERNELS)
"""The kernels this section draws."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return [_bandwidth_section(entries, plots)]


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


