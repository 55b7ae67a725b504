"""Plots of the report: Matplotlib's Agg canvas on Figure objects (never pyplot, so no
global backend or figure state changes), axes that label sizes, counts and ranks."""

from __future__ import annotations

import html
import math
import os
import re
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..._extras import MissingExtra
from ..._files import atomic_write

# Matplotlib is the [plots] extra; this module is the report's only place that imports it.
try:
    from matplotlib import ticker
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
except ModuleNotFoundError as exc:
    if exc.name != "matplotlib":
        raise
    raise MissingExtra("matplotlib", "plots", "drawing the report's plots") from None
from ..predict import predict as predict_model
from .format import Entry, num, size_text

DPI = 110


def tick_size(value: float, _pos=None) -> str:
    if value <= 0:
        return "0"
    return size_text(value).replace(" ", "\u202f") if float(value).is_integer() else f"{value:g}"


def tick_count(value: float, _pos=None) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def tick_g(value: float, _pos=None) -> str:
    return f"{value:g}"


class LogTicks(ticker.Locator):
    """Major ticks of a logarithmic axis that label at least three values: powers of
    ten while three of them are in view, else 1-2-5 steps, else evenly spaced round
    numbers (a log axis over a small range would otherwise show one tick or none)."""

    MIN_TICKS, MAX_TICKS = 3, 8

    def __init__(self):
        self.candidates = (ticker.LogLocator(base=10), ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        self.linear = ticker.MaxNLocator(nbins=5, steps=[1, 2, 2.5, 5, 10])

    def set_axis(self, axis):
        super().set_axis(axis)
        for locator in self.candidates + (self.linear,):
            locator.set_axis(axis)

    def __call__(self):
        vmin, vmax = self.axis.get_view_interval()
        return self.tick_values(vmin, vmax)

    def tick_values(self, vmin, vmax):
        vmin, vmax = sorted((float(vmin), float(vmax)))
        if vmax <= 0:
            return []
        vmin = vmin if vmin > 0 else vmax / 10
        for locator in self.candidates:
            ticks = locator.tick_values(vmin, vmax)
            if self.MIN_TICKS <= sum(vmin <= t <= vmax for t in ticks) <= self.MAX_TICKS:
                return ticks
        return [t for t in self.linear.tick_values(vmin, vmax) if t > 0]


class Plots:
    """Writes figures as PNG files in the report folder, with unique names; ``note``
    goes under every figure (the report says there when ranks share cores)."""

    def __init__(self, folder: str, note: str = ""):
        self.folder = folder
        self.note = note  # said under every figure (ranks that share cores)
        self.files: List[str] = []

    def figure(self, width: float = 6.4, height: float = 4.2, ncols: int = 1):
        fig = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
        FigureCanvasAgg(fig)
        axes = fig.subplots(1, ncols, squeeze=False)[0]
        for ax in axes:
            ax.grid(True, which="major", alpha=0.35)
            ax.grid(True, which="minor", alpha=0.12)
        return fig, (axes[0] if ncols == 1 else list(axes))

    def save(self, fig: Figure, name: str, alt: str, caption: str = "") -> str:
        stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") or "plot"
        filename, n = f"{stem}.png", 2
        while filename in self.files:
            filename, n = f"{stem}-{n}.png", n + 1
        with atomic_write(os.path.join(self.folder, filename), "wb") as f:
            fig.savefig(f, format="png")
        fig.clear()
        self.files.append(filename)
        if self.note:
            caption = (caption + " " if caption else "") + f"<span class=bad>{html.escape(self.note)}</span>"
        cap = f"<figcaption>{caption}</figcaption>" if caption else ""
        return f'<figure><img src="{filename}" alt="{html.escape(alt, quote=True)}">{cap}</figure>'


def bytes_axis(ax, sizes: Iterable[float], log: bool = True, label: str = "message size (bytes)",
                counts: bool = False) -> None:
    """Log base-2 axis of sizes (symlog when 0 is among them), labelled 1, 4, 16, ... 1 KiB
    (plain numbers for ``counts`` of elements or rows)."""
    ax.set_xlabel(label)
    values = [float(s) for s in sizes]
    positive = [v for v in values if v > 0]
    if not log or not positive:
        return
    lo, hi = int(math.floor(math.log2(min(positive)))), int(math.ceil(math.log2(max(positive))))
    hi = max(hi, lo + 1)
    measured = sorted(set(positive))
    gaps = np.diff(np.log2(measured))
    step = next(s for s in (1, 2, 4, 8, 10, 20, 40) if (hi - lo) / s <= 8)
    powers = [2.0 ** e for e in range(lo, hi + 1) if e % step == 0] or [2.0 ** lo]
    if len(measured) <= 8 and (not len(gaps) or gaps.min() >= (hi - lo) / 10):
        ticks = measured  # few sizes, well apart: label each one
    else:
        ticks = powers
    if len(ticks) < 3:  # at least three labels: powers of two, and over a narrow range the sizes between them
        ticks = sorted(set(ticks) | set(powers))
    if len(ticks) < 3:
        ticks = sorted(set(ticks) | {3 * 2.0 ** (e - 1) for e in range(lo, hi)})
    if any(v <= 0 for v in values):
        ax.set_xscale("symlog", base=2, linthresh=max(1.0, 2.0 ** lo), linscale=0.5)
        ticks = [0.0] + ticks
    else:
        ax.set_xscale("log", base=2)
    ax.relim()  # margins computed again on the new scale
    ax.autoscale_view()
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_minor_locator(ticker.FixedLocator([2.0 ** e for e in range(lo, hi + 1)]))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(tick_count if counts else tick_size))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def value_axis(ax, values: Iterable[float], label: str, log: Optional[bool] = None, axis: str = "y") -> None:
    """A time or rate axis: logarithmic when the values span more than a factor 20
    (or when asked), with plain-number labels."""
    which = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_ylabel if axis == "y" else ax.set_xlabel)(label)
    positive = [float(v) for v in values if v is not None and float(v) > 0]
    if log is None:
        log = bool(positive) and max(positive) / min(positive) > 20
    if not log or not positive:
        if axis == "y":
            ax.set_ylim(bottom=0)
        return
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    which.set_major_locator(LogTicks())
    which.set_major_formatter(ticker.FuncFormatter(tick_g))
    which.set_minor_formatter(ticker.NullFormatter())


def whole_number_ticks(ax, values: Iterable[float]) -> None:
    """x ticks at exactly ``values``, labelled as whole numbers."""
    ax.xaxis.set_major_locator(ticker.FixedLocator(list(values)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:.0f}"))


def ranks_axis(ax, ranks: Sequence[float]) -> None:
    """Rank counts: log base 2 when they span a factor 8 or more. Ticks are whole rank
    counts only: the measured counts (with the powers of two between them on a log
    axis, so that it has at least three), or, for many counts, whole numbers chosen
    by the locator (powers of two on a log axis)."""
    ax.set_xlabel("ranks P")
    ranks = sorted({int(round(r)) for r in ranks if r >= 1})
    log = bool(ranks) and ranks[-1] / ranks[0] >= 8
    if not log:
        whole_ticks(ax, ranks)
    else:
        ax.set_xscale("log", base=2)
        if len(ranks) <= 16:
            ticks = set(ranks)
            if len(ticks) < 3:
                ticks |= {2 ** e for e in range(ranks[0].bit_length(), ranks[-1].bit_length()) if 2 ** e < ranks[-1]}
        else:
            ticks = {2 ** e for e in range(ranks[-1].bit_length()) if ranks[0] <= 2 ** e <= ranks[-1]}
        ax.xaxis.set_major_locator(ticker.FixedLocator(sorted(ticks)))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:.0f}"))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def errorbars(ax, x, rows, color=None, label=None, marker="o", linestyle="-"):
    """Median per row with the 5th-95th percentile range as error bars (when known)."""
    med = np.array([num(r.get("median_us")) for r in rows], dtype=float)
    lo = np.array([num(r.get("p05_us")) if num(r.get("p05_us")) is not None else m for r, m in zip(rows, med)])
    hi = np.array([num(r.get("p95_us")) if num(r.get("p95_us")) is not None else m for r, m in zip(rows, med)])
    if len(rows) > 40:  # dense sweeps: a band reads better than a forest of bars
        line, = ax.plot(x, med, color=color, label=label, linestyle=linestyle, linewidth=1.2)
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2, linewidth=0)
        return line
    err = np.vstack([np.maximum(med - lo, 0), np.maximum(hi - med, 0)])
    return ax.errorbar(x, med, yerr=err, color=color, label=label, marker=marker, markersize=4, linestyle=linestyle,
                       linewidth=1.2, elinewidth=0.8, capsize=2)


# ---------------------------------------------------------------------------
# Fits
# ---------------------------------------------------------------------------


def piecewise_fits(entry: Entry) -> List[Tuple[str, Mapping[str, Any]]]:
    """(label, PiecewiseFit dict) for an entry fitted piecewise (per rank count or not)."""
    m = entry.fit
    if not m:
        return []
    if m.get("model") == "piecewise" and isinstance(m.get("fit"), Mapping):
        return [("", m["fit"])]
    if m.get("model") == "piecewise_by_ranks" and isinstance(m.get("fits"), Mapping):
        return [(f"P={k}", f) for k, f in sorted(m["fits"].items(), key=lambda kv: int(kv[0]))
                if isinstance(f, Mapping)]
    return []


def draw_piecewise(ax, fit: Mapping[str, Any], xmin: float, xmax: float, color="black", label="fit",
                    log: bool = True) -> None:
    """Each segment as its own line over its share of [xmin, xmax]; breakpoints dotted."""
    segs = [s for s in fit.get("segments", []) if num(s.get("t0_us")) is not None
            and num(s.get("us_per_byte")) is not None]
    if not segs:
        return
    bps = [float(b) for b in fit.get("breakpoints_bytes", [])][:len(segs) - 1]
    edges = [xmin] + [min(max(b, xmin), xmax) for b in bps] + [xmax]
    for i, seg in enumerate(segs):
        a, b = edges[i], edges[i + 1]
        if b <= a:
            continue
        start = max(a, 0.5) if log else a
        xs = np.geomspace(start, b, 64) if log and start > 0 else np.linspace(a, b, 64)
        ys = float(seg["t0_us"]) + float(seg["us_per_byte"]) * xs
        if log:
            ys = np.where(ys > 0, ys, np.nan)
        ax.plot(xs, ys, color=color, linestyle="--", linewidth=1.3, label=label if i == 0 else None, zorder=3)
    for b in bps:
        if xmin < b <= xmax:
            ax.axvline(b, color=color, linestyle=":", linewidth=0.9, alpha=0.7)


def predict_entry(entry: Entry, size_bytes=None, ranks=None) -> Optional[np.ndarray]:
    """The entry's fitted model at the given sizes / rank counts, or None."""
    if not entry.fit:
        return None
    try:
        out = predict_model({"models": {"m": entry.fit}}, "m", size_bytes=size_bytes, ranks=ranks)
    except (ValueError, KeyError, TypeError):
        return None
    return np.asarray(out, dtype=float)




def whole_ticks(ax, values: Iterable[float]) -> None:
    """Ticks on the x axis at whole numbers only (ranks, counts): every value when there
    are few, else whole numbers the locator picks. MaxNLocator(integer=True) alone
    gives fractions when the axis spans less than two integers (a single bar)."""
    whole = sorted({int(round(v)) for v in values})
    if 0 < len(whole) <= 16:
        ax.xaxis.set_major_locator(ticker.FixedLocator(whole))
    else:
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
