"""An offline report of benchmark results: PNG plots, HTML tables and a CSV.

:func:`write_report` turns a ``datamotion.bench/1`` results document (what
``datamotion bench`` writes, see docs/bench.md) into a folder that opens in any
browser without a network: ``index.html`` (inline CSS, no JavaScript), one PNG
per plot next to it, ``results.csv`` (every row of every kernel in long
format, without the raw samples) and ``model.json`` (the fits drawn). See
docs/report.md for what each section shows.

Nothing here loads MPI: a report can be written anywhere from the JSON file.
Plots are drawn with Matplotlib's Agg canvas on :class:`matplotlib.figure.Figure`
objects, never through ``pyplot``, so no global backend or figure state changes.
Sizes are in bytes, times in microseconds unless a column says otherwise,
bandwidths in MB/s (10**6 bytes per second).
"""

from __future__ import annotations

import csv
import html
import json
import math
import os
import re
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np
from matplotlib import ticker
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from . import model as _model
from ._files import atomic_write

__all__ = ["write_report", "load_results", "load_model", "KNOWN_KERNELS"]

LATENCY_KERNELS = ("pingpong", "exchange", "stream", "bidir", "pingpong_fine", "memcopy")
BANDWIDTH_KERNELS = ("pingpong", "exchange", "stream", "bidir")
COLLECTIVE_KERNELS = ("barrier", "bcast", "reduce", "allreduce", "scan", "exscan", "segscan", "allgather",
                      "alltoall")
PATTERN_KERNELS = ("matching", "hypercube", "chain", "mesh_shift")
KNOWN_KERNELS = frozenset(LATENCY_KERNELS + COLLECTIVE_KERNELS + PATTERN_KERNELS
                          + ("distance", "vector", "gauss_elimination"))
"""Kernels the report has a section for; entries of any other kernel are listed
in its "other kernels" table."""

_DESCRIBE = {
    "pingpong": "one-way time of a blocking ping-pong (half the round trip)",
    "exchange": "nonblocking exchange: both ranks post the receive, then send and wait",
    "stream": "time per message of a window of nonblocking sends",
    "bidir": "time per message of windows of nonblocking sends in both directions at once",
    "pingpong_fine": "ping-pong in small steps of size, to expose protocol changes (linear axes)",
    "memcopy": "one memcpy on rank 0",
    "barrier": "MPI_Barrier",
    "bcast": "broadcast of the message from one rank",
    "reduce": "sum of bytes / 8 doubles to one rank",
    "allreduce": "sum of bytes / 8 doubles to every rank",
    "scan": "inclusive prefix sum",
    "exscan": "exclusive prefix sum",
    "segscan": "segmented scan",
    "allgather": "concatenation: each rank contributes the message",
    "alltoall": "personalised all-to-all: the message per pair of ranks",
}
_DIRECTIONS = ("north", "east", "west", "south")
_LABEL_PARAMS = ("dtype", "op", "placement", "mesh", "ranks")  # what tells entries of one kernel apart
_DPI = 110


# ---------------------------------------------------------------------------
# Reading documents
# ---------------------------------------------------------------------------


def _read_json(path: str, what: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except OSError as exc:
        raise ValueError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path} is not a JSON {what}: {exc}") from None


def _check_results(doc: Any, where: str = "the document") -> None:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("results"), list):
        raise ValueError(f"{where} is not a datamotion results document (no 'results' list)")
    if doc.get("schema") != _model.RESULTS_SCHEMA:
        raise ValueError(f"{where} has schema {doc.get('schema')!r}, expected {_model.RESULTS_SCHEMA!r}")


def _check_model(doc: Any, where: str = "the model") -> None:
    if not isinstance(doc, Mapping) or not isinstance(doc.get("models"), Mapping):
        raise ValueError(f"{where} is not a datamotion model document (no 'models' table)")
    if doc.get("schema") != _model.MODEL_SCHEMA:
        raise ValueError(f"{where} has schema {doc.get('schema')!r}, expected {_model.MODEL_SCHEMA!r}")


def load_results(path: str) -> dict:
    """Reads a results document written by ``datamotion bench``.

    Raises:
        ValueError: with a one-line message when the file cannot be read, is
            not JSON, has no ``results`` list or a schema other than
            ``datamotion.bench/1``.
    """
    doc = _read_json(path, "results document")
    _check_results(doc, path)
    return doc


def load_model(path: str) -> dict:
    """Reads a model document written by ``datamotion model fit``.

    Raises:
        ValueError: with a one-line message when the file cannot be read, is
            not JSON, has no ``models`` table or a schema other than
            ``datamotion.model/1``.
    """
    doc = _read_json(path, "model document")
    _check_model(doc, path)
    return doc


# ---------------------------------------------------------------------------
# Values, rows and entries
# ---------------------------------------------------------------------------


def _num(value: Any) -> Optional[float]:
    """A finite float, or None for anything else (missing, null, text, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _params_text(params: Mapping[str, Any]) -> str:
    """Compact ``k=v;k=v`` (lists and tables as compact JSON)."""
    parts = []
    for key, value in params.items():
        if isinstance(value, (list, tuple, dict)):
            value = json.dumps(value, separators=(",", ":"))
        parts.append(f"{key}={value}")
    return ";".join(parts)


class _Entry:
    """One result entry: kernel, params, the rows that are tables, its fit."""

    def __init__(self, index: int, raw: Any):
        raw = raw if isinstance(raw, Mapping) else {}
        kernel = raw.get("kernel")
        self.index = index
        self.kernel = kernel if isinstance(kernel, str) else "(no kernel)"
        params = raw.get("params")
        self.params: Dict[str, Any] = dict(params) if isinstance(params, Mapping) else {}
        rows = raw.get("rows")
        self.rows: List[Mapping[str, Any]] = [r for r in rows if isinstance(r, Mapping)] if isinstance(rows, list) \
            else []
        self.nrows = len(rows) if isinstance(rows, list) else 0
        self.fit: Optional[Mapping[str, Any]] = None
        self.label = self.kernel

    def series(self, x: str, y: str = "median_us", where=None) -> Tuple[np.ndarray, np.ndarray, List[Mapping]]:
        """Rows with finite ``x`` and ``y``, sorted by ``x``."""
        picked = [r for r in self.rows if _num(r.get(x)) is not None and _num(r.get(y)) is not None
                  and (where is None or where(r))]
        picked.sort(key=lambda r: _num(r.get(x)))
        return (np.array([_num(r[x]) for r in picked], dtype=float),
                np.array([_num(r[y]) for r in picked], dtype=float), picked)

    def distinct(self, field: str) -> List[float]:
        return sorted({_num(r.get(field)) for r in self.rows if _num(r.get(field)) is not None})


def _entries(results: Mapping[str, Any], fitted: Mapping[str, Any]) -> List[_Entry]:
    entries = [_Entry(i, raw) for i, raw in enumerate(results["results"])]
    counts: Dict[str, int] = {}
    for e in entries:
        counts[e.kernel] = counts.get(e.kernel, 0) + 1
    for e in entries:
        if counts[e.kernel] > 1 and e.params:
            named = [_short(v) for k, v in e.params.items() if k in _LABEL_PARAMS] \
                or [f"{k}={_short(v)}" for k, v in e.params.items()]
            e.label = f"{e.kernel} ({', '.join(named)})"
    # Each fitted model belongs to the first entry with the same kernel and params.
    used = set()
    models = fitted.get("models") if isinstance(fitted.get("models"), Mapping) else {}
    for e in entries:
        for key, m in models.items():
            if key not in used and isinstance(m, Mapping) and m.get("kernel") == e.kernel \
                    and dict(m.get("params") or {}) == e.params:
                e.fit = m
                used.add(key)
                break
    return entries


def _short(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    return str(value)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------


def _fmt(value: Any, digits: int = 3) -> str:
    """A number for a table: about three significant digits, '—' when missing."""
    v = _num(value)
    if v is None:
        return "—" if value is None or isinstance(value, (int, float)) else html.escape(str(value))
    if v == 0:
        return "0"
    if isinstance(value, int):  # counts: ranks, elements, repetitions
        return str(value)
    a = abs(v)
    if a >= 10 ** digits:
        return f"{v:.0f}"
    decimals = max(0, digits - 1 - int(math.floor(math.log10(a))))
    return f"{v:.{min(decimals, 6)}f}" if a >= 1e-3 else f"{v:.2e}"


def _r2(value: Any) -> str:
    v = _num(value)
    return "—" if v is None else f"{v:.3f}"


def _size(value: Any) -> str:
    """Bytes for people: 8, 4 KiB, 1 MiB (exact multiples only)."""
    v = _num(value)
    if v is None:
        return "—"
    if v.is_integer():
        b = int(v)
        for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if b >= scale and b % scale == 0:
                return f"{b // scale} {unit}"
        return str(b)
    return _fmt(v)


def _size_label(value: Any) -> str:
    """A size for a legend: 8 B, 4 KiB."""
    text = _size(value)
    return text if text.endswith("iB") or text == "—" else f"{text} B"


def _tick_size(value: float, _pos=None) -> str:
    if value <= 0:
        return "0"
    return _size(value).replace(" ", "\u202f") if float(value).is_integer() else f"{value:g}"


def _tick_count(value: float, _pos=None) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:g}"


def _tick_g(value: float, _pos=None) -> str:
    return f"{value:g}"


def _ci_text(value: Any, ci: Any) -> str:
    text = _fmt(value)
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and _num(ci[0]) is not None and _num(ci[1]) is not None:
        text += f" <span class=ci>[{_fmt(ci[0])}, {_fmt(ci[1])}]</span>"
    return text


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], caption: str = "", numeric_from: int = 1) -> str:
    """An HTML table; cells are HTML already (escape text with html.escape)."""
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{caption}</caption>")
    out.append("<thead><tr>" + "".join(f"<th>{h}</th>" for h in headers) + "</tr></thead><tbody>")
    for row in rows:
        cells = [f"<td class=num>{c}</td>" if i >= numeric_from else f"<td>{c}</td>" for i, c in enumerate(row)]
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


# ---------------------------------------------------------------------------
# Plots
# ---------------------------------------------------------------------------


class _Plots:
    """Writes figures as PNG files in the report folder, with unique names."""

    def __init__(self, folder: str):
        self.folder = folder
        self.files: List[str] = []

    def figure(self, width: float = 6.4, height: float = 4.2, ncols: int = 1):
        fig = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
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
        cap = f"<figcaption>{caption}</figcaption>" if caption else ""
        return f'<figure><img src="{filename}" alt="{html.escape(alt, quote=True)}">{cap}</figure>'


def _bytes_axis(ax, sizes: Iterable[float], log: bool = True, label: str = "message size (bytes)",
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
    if len(measured) <= 8 and (not len(gaps) or gaps.min() >= (hi - lo) / 10):
        ticks = measured  # few sizes, well apart: label each one
    else:
        step = next(s for s in (1, 2, 4, 8, 10, 20, 40) if (hi - lo) / s <= 8)
        ticks = [2.0 ** e for e in range(lo, hi + 1) if e % step == 0] or [2.0 ** lo]
    if any(v <= 0 for v in values):
        ax.set_xscale("symlog", base=2, linthresh=max(1.0, 2.0 ** lo), linscale=0.5)
        ticks = [0.0] + ticks
    else:
        ax.set_xscale("log", base=2)
    ax.relim()  # margins computed again on the new scale
    ax.autoscale_view()
    ax.xaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.xaxis.set_minor_locator(ticker.FixedLocator([2.0 ** e for e in range(lo, hi + 1)]))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(_tick_count if counts else _tick_size))
    ax.xaxis.set_minor_formatter(ticker.NullFormatter())


def _value_axis(ax, values: Iterable[float], label: str, log: Optional[bool] = None, axis: str = "y") -> None:
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
    which.set_major_formatter(ticker.FuncFormatter(_tick_g))
    if max(positive) / min(positive) < 30:
        which.set_minor_formatter(ticker.FuncFormatter(
            lambda v, _pos: _tick_g(v) if f"{v:.0e}"[0] in "25" else ""))
    else:
        which.set_minor_formatter(ticker.NullFormatter())


def _ranks_axis(ax, ranks: Sequence[float]) -> None:
    """Rank counts: log base 2 when they span a factor 8 or more; ticks at the measured counts."""
    ax.set_xlabel("ranks P")
    ranks = sorted(set(ranks))
    if ranks and ranks[0] > 0 and ranks[-1] / ranks[0] >= 8:
        ax.set_xscale("log", base=2)
    if len(ranks) <= 16:
        ax.xaxis.set_major_locator(ticker.FixedLocator(ranks))
    else:
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _pos: f"{v:.0f}"))
    ax.xaxis.set_minor_locator(ticker.NullLocator())


def _errorbars(ax, x, rows, color=None, label=None, marker="o", linestyle="-"):
    """Median per row with the 5th-95th percentile range as error bars (when known)."""
    med = np.array([_num(r.get("median_us")) for r in rows], dtype=float)
    lo = np.array([_num(r.get("p05_us")) if _num(r.get("p05_us")) is not None else m for r, m in zip(rows, med)])
    hi = np.array([_num(r.get("p95_us")) if _num(r.get("p95_us")) is not None else m for r, m in zip(rows, med)])
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


def _piecewise_fits(entry: _Entry) -> List[Tuple[str, Mapping[str, Any]]]:
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


def _draw_piecewise(ax, fit: Mapping[str, Any], xmin: float, xmax: float, color="black", label="fit",
                    log: bool = True) -> None:
    """Each segment as its own line over its share of [xmin, xmax]; breakpoints dotted."""
    segs = [s for s in fit.get("segments", []) if _num(s.get("t0_us")) is not None
            and _num(s.get("us_per_byte")) is not None]
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


def _predict(entry: _Entry, size_bytes=None, ranks=None) -> Optional[np.ndarray]:
    """The entry's fitted model at the given sizes / rank counts, or None."""
    if not entry.fit:
        return None
    try:
        out = _model.predict({"models": {"m": entry.fit}}, "m", size_bytes=size_bytes, ranks=ranks)
    except (ValueError, KeyError, TypeError):
        return None
    return np.asarray(out, dtype=float)


def _model_text(fit_entry: Mapping[str, Any]) -> Tuple[str, str, str]:
    """(family, coefficients, r2) of a fitted collective model, for a table."""
    family = str(fit_entry.get("model", ""))
    fit = fit_entry.get("fit") if isinstance(fit_entry.get("fit"), Mapping) else {}
    if family == "piecewise":
        segs = fit.get("segments", [])
        coef = "; ".join(f"{_size(s.get('start_bytes'))}–{_size(s.get('end_bytes'))}: t0 {_fmt(s.get('t0_us'))} µs, "
                         f"{_fmt(s.get('bandwidth_MBps'))} MB/s" for s in segs)
        return f"T(l) at P={', '.join(str(p) for p in fit_entry.get('ranks', []))}", coef, _r2(fit.get("r2"))
    names = [n for n in ("a", "b", "c", "d") if n in fit]
    coef = ", ".join(f"{n} = {_fmt(fit.get(n))}" for n in names)
    return html.escape(str(fit.get("formula", family))), coef, _r2(fit.get("r2"))


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------


def _by_kernel(entries: Sequence[_Entry], kernels: Sequence[str]) -> List[_Entry]:
    order = {k: i for i, k in enumerate(kernels)}
    chosen = [e for e in entries if e.kernel in order and e.rows]
    return sorted(chosen, key=lambda e: (order[e.kernel], e.index))


def _provenance_section(results: Mapping[str, Any]) -> str:
    p = results.get("provenance") if isinstance(results.get("provenance"), Mapping) else {}

    def get(*keys):
        values = [p.get(k) for k in keys if p.get(k) not in (None, "")]
        return ", ".join(html.escape(str(v)) for v in values) if values else "—"

    clock = []
    if _num(p.get("wtick_s")) is not None:
        clock.append(f"MPI_Wtick {_num(p['wtick_s']):.3g} s")
    if _num(p.get("steady_clock_resolution_s")) is not None:
        clock.append(f"steady_clock {_num(p['steady_clock_resolution_s']):.3g} s")
    hosts = p.get("hosts")
    hosts_text = html.escape(", ".join(str(h) for h in hosts)) if isinstance(hosts, list) and hosts else get("hosts")
    warnings = results.get("warnings") if isinstance(results.get("warnings"), list) else []
    warn_text = ("<ul class=warnings>" + "".join(f"<li>{html.escape(str(w))}</li>" for w in warnings) + "</ul>"
                 if warnings else "none")
    quick = results.get("quick")
    validated = results.get("validated")
    rows = [
        ("datamotion", f"{get('version')} (git {get('git_revision')}, {get('build_type')} build, {get('compiler')})"),
        ("MPI library", get("mpi_library")),
        ("MPI standard", get("mpi_standard")),
        ("ranks", get("ranks")),
        ("hosts", hosts_text),
        ("thread level", get("thread_level")),
        ("clock resolution", ", ".join(clock) or "—"),
        ("Python", f"{get('python')} (mpi4py {get('mpi4py')}, numpy {get('numpy')})"),
        ("run", ("quick" if quick else "full" if quick is not None else "—")
         + (", every received byte validated" if validated else ", not validated" if validated is not None else "")),
        ("warnings", warn_text),
    ]
    env = p.get("environment")
    if isinstance(env, Mapping) and env:
        rows.append(("environment", "<br>".join(f"<code>{html.escape(str(k))}={html.escape(str(v))}</code>"
                                                for k, v in sorted(env.items()))))
    body = "\n".join(f"<tr><th scope=row>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<section id="provenance"><h2>Provenance</h2><table class=prov>{body}</table></section>'


def _latency_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    chosen = [e for e in _by_kernel(entries, LATENCY_KERNELS) if len(e.series("bytes")[0])]
    if not chosen:
        return ""
    figures, seg_rows = [], []
    compare = [e for e in chosen if e.kernel in BANDWIDTH_KERNELS]
    if len(compare) >= 2:
        fig, ax = plots.figure()
        allx, ally = [], []
        for e in compare:
            x, y, rows = e.series("bytes")
            _errorbars(ax, x, rows, label=e.label)
            allx += list(x)
            ally += list(y)
        _bytes_axis(ax, allx)
        _value_axis(ax, ally, "time (µs)", log=True)
        ax.set_title("point-to-point kernels compared")
        ax.legend(fontsize="small")
        figures.append(plots.save(fig, "latency-compared", "time versus message size, every point-to-point kernel",
                                  "Median time per message; bars span the 5th to 95th percentile."))
    for e in chosen:
        x, y, rows = e.series("bytes")
        fine = e.kernel == "pingpong_fine"
        fig, ax = plots.figure()
        ranks = e.distinct("ranks")
        if len(ranks) > 1:
            for i, p in enumerate(ranks):
                xs, _, rs = e.series("bytes", where=lambda r, p=p: _num(r.get("ranks")) == p)
                _errorbars(ax, xs, rs, color=f"C{i}", label=f"measured, P={p:.0f}")
        else:
            _errorbars(ax, x, rows, color="C0", label="measured (median, 5–95 %)")
        for i, (label, fit) in enumerate(_piecewise_fits(e)):
            _draw_piecewise(ax, fit, float(x.min()), float(x.max()), color="C3" if not label else f"C{i}",
                            label=f"fit {label}".strip(), log=not fine)
            for s in fit.get("segments", []):
                seg_rows.append((html.escape(e.label) + (f" ({label})" if label else ""),
                                 f"{_size(s.get('start_bytes'))} – {_size(s.get('end_bytes'))}",
                                 _ci_text(s.get("t0_us"), s.get("t0_ci95")), _fmt(s.get("bandwidth_MBps")),
                                 _r2(s.get("r2")), str(s.get("n", "—"))))
        if fine:
            ax.set_xlabel("message size (bytes)")
            _value_axis(ax, y, "time (µs)", log=False)
        else:
            _bytes_axis(ax, x, label="copy size (bytes)" if e.kernel == "memcopy" else "message size (bytes)")
            _value_axis(ax, y, "time (µs)", log=True)
        ax.set_title(f"{e.label}: time vs {'copy' if e.kernel == 'memcopy' else 'message'} size")
        ax.legend(fontsize="small")
        figures.append(plots.save(fig, f"latency-{e.label}", f"{e.label}: time versus message size",
                                  html.escape(f"{e.label}: {_DESCRIBE.get(e.kernel, e.kernel)}.")))
    table = _table(["kernel", "sizes", "t0 (µs) [95 % CI]", "bandwidth (MB/s)", "r²", "points"], seg_rows,
                   "Fitted segments T(l) = t0 + l / B (breakpoints where the MPI library changes protocol)",
                   numeric_from=2) if seg_rows else "<p>No piecewise fits.</p>"
    return ('<section id="latency"><h2>Latency</h2>'
            "<p>Time against message size on log-log axes (the fine sweep on linear axes), "
            "with the fitted piecewise model dashed and its breakpoints dotted.</p>"
            f'<div class=plots>{"".join(figures)}</div>{table}</section>')


def _bandwidth_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    chosen = [e for e in _by_kernel(entries, BANDWIDTH_KERNELS)
              if len(e.series("bytes", where=lambda r: _num(r.get("bytes")) > 0)[0])]
    if not chosen:
        return ""
    fig, ax = plots.figure()
    allx, table = [], []
    for e in chosen:
        x, t, rows = e.series("bytes", where=lambda r: _num(r.get("bytes")) > 0 and _num(r.get("median_us")) > 0)
        if not len(x):
            continue
        bw = x / t
        ax.plot(x, bw, marker="o", markersize=4, label=e.label)
        allx += list(x)
        peak = int(np.argmax(bw))
        half = next((xi for xi, b in zip(x, bw) if b >= bw[peak] / 2), None)
        fits = _piecewise_fits(e)
        asym = fits[0][1].get("segments", [{}])[-1].get("bandwidth_MBps") if fits and fits[0][1].get("segments") \
            else None
        table.append((html.escape(e.label), _fmt(bw[peak]), _size(x[peak]), _size(half), _fmt(asym)))
    _bytes_axis(ax, allx)
    _value_axis(ax, [], "bandwidth (MB/s)", log=False)
    ax.set_title("bandwidth: message size / median time")
    ax.legend(fontsize="small")
    figure = plots.save(fig, "bandwidth", "bandwidth versus message size",
                        "Bytes of one message divided by its median time (bidir: one direction's bytes).")
    return ('<section id="bandwidth"><h2>Bandwidth</h2>'
            f"<div class=plots>{figure}</div>"
            + _table(["kernel", "peak (MB/s)", "at size", "half peak from", "fitted, largest segment (MB/s)"],
                     table, "Measured peak and the size that reaches half of it")
            + "</section>")


def _distance_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    chosen = [e for e in _by_kernel(entries, ("distance",)) if len(e.series("dst")[0])]
    if not chosen:
        return ""
    figures = []
    for e in chosen:
        x, y, rows = e.series("dst")
        nbytes = _num(e.params.get("bytes")) or (_num(rows[0].get("bytes")) if rows else None)
        fig, ax = plots.figure(width=max(5.0, min(12.0, 2.0 + 0.35 * len(x))))
        err = np.vstack([np.maximum(y - [(_num(r.get("p05_us")) or m) for r, m in zip(rows, y)], 0),
                         np.maximum([(_num(r.get("p95_us")) or m) for r, m in zip(rows, y)] - y, 0)])
        ax.bar(x, y, yerr=err, color="C0", capsize=2, width=0.7)
        ax.set_xlabel("destination rank")
        ax.xaxis.set_major_locator(ticker.MaxNLocator(integer=True))
        _value_axis(ax, y, f"{_size(nbytes)}-byte one-way time (µs)", log=False)
        ax.set_title(f"latency from rank 0 to each rank ({_size(nbytes)} bytes)")
        figures.append(plots.save(fig, "distance", "latency from rank 0 to each rank",
                                  "Median ping-pong time from rank 0; bars span the 5th to 95th percentile."))
    return ('<section id="distance"><h2>Distance</h2><p>Does the time depend on which rank rank 0 talks to '
            f"(same socket, other socket, other host)?</p><div class=plots>{''.join(figures)}</div></section>")


def _collective_plot(e: _Entry, plots: _Plots) -> Optional[str]:
    ranks = e.distinct("ranks")
    sizes = e.distinct("bytes") or [0.0]
    if not ranks or (len(ranks) == 1 and len(sizes) == 1):  # nothing to draw a line through
        return None
    fig, ax = plots.figure()
    allt: List[float] = []
    fitted = False
    if len(ranks) >= 2:
        grid = np.linspace(ranks[0], ranks[-1], 100)
        for i, b in enumerate(sizes):
            color = f"C{i % 10}"
            x, t, rows = e.series("ranks", where=lambda r, b=b: (_num(r.get("bytes")) or 0.0) == b)
            if not len(x):
                continue
            _errorbars(ax, x, rows, color=color, label=_size_label(b) if e.kernel != "barrier" else "measured")
            allt += list(t)
            pred = _predict(e, size_bytes=np.full_like(grid, b), ranks=grid)
            if pred is None and e.fit and e.fit.get("model") == "log2":
                pred = _predict(e, ranks=grid)
            if pred is not None and pred.shape == grid.shape:
                ax.plot(grid, np.where(pred > 0, pred, np.nan), color=color, linestyle="--", linewidth=1.1,
                        label="fitted model" if len(sizes) == 1 else None)
                fitted = True
        _ranks_axis(ax, ranks)
        title = f"{e.label}: time vs ranks"
    else:
        x, t, rows = e.series("bytes")
        if not len(x):
            return None
        _errorbars(ax, x, rows, color="C0", label=f"measured, P={ranks[0]:.0f}")
        allt += list(t)
        for label, fit in _piecewise_fits(e):
            _draw_piecewise(ax, fit, float(x.min()), float(x.max()), color="C3", label="fit")
            fitted = True
        if not fitted and len(x) > 1:
            grid = np.geomspace(max(x.min(), 1.0), x.max(), 100)
            pred = _predict(e, size_bytes=grid, ranks=np.full_like(grid, ranks[0]))
            if pred is not None and pred.shape == grid.shape:
                ax.plot(grid, np.where(pred > 0, pred, np.nan), color="C3", linestyle="--", label="fit")
        _bytes_axis(ax, x)
        title = f"{e.label}: time vs message size at P={ranks[0]:.0f}"
    if not allt:
        return None
    _value_axis(ax, allt, "time (µs)", log=True if len(ranks) < 2 else None)  # sizes span decades
    if fitted and len(ranks) >= 2 and len(sizes) > 1:
        ax.plot([], [], color="black", linestyle="--", label="fitted model")
    ax.set_title(title)
    many = len(sizes) > 1 and len(ranks) >= 2
    ax.legend(fontsize="small", title="message size" if many else None, title_fontsize="small",
              **({"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)} if many else {}))
    what = _DESCRIBE.get(e.kernel, e.kernel)
    if e.kernel == "segscan":
        what += f" ({html.escape(_params_text(e.params))})"
    return plots.save(fig, f"collective-{e.label}", title, html.escape(f"{e.label}: {what}. ") +
                      ("Median of the slowest rank; dashed: the fitted model." if fitted else
                       "Median of the slowest rank."))


def _collectives_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    chosen = _by_kernel(entries, COLLECTIVE_KERNELS)
    figures = [f for f in (_collective_plot(e, plots) for e in chosen) if f]
    single = [(html.escape(e.label), _fmt(r.get("ranks")), _size(r.get("bytes")), _ci_text(r.get("median_us"),
                                                                                         r.get("ci95_us")))
              for e in chosen if len(e.distinct("ranks")) == 1 and len(e.distinct("bytes")) <= 1
              for r in e.series("ranks")[2]]
    if not figures and not single:
        return ""
    fits = []
    for e in chosen:
        if e.fit:
            family, coef, r2 = _model_text(e.fit)
            fits.append((html.escape(e.label), family, coef, r2))
    table = _table(["kernel", "model", "coefficients (µs, µs per byte)", "r²"], fits,
                   "Fitted models (log2 P: tree depth; P l: size of a concatenated result)", numeric_from=3) \
        if fits else ""
    return ('<section id="collectives"><h2>Collectives versus P</h2>'
            "<p>Median time of the slowest rank against the number of ranks, one line per message size.</p>"
            f"<div class=plots>{''.join(figures)}</div>{table}"
            + (_table(["kernel", "ranks", "size", "median (µs) [95 % CI]"], single,
                      "Measured at one rank count and one size") if single else "")
            + "</section>")


def _local_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    parts = []
    for e in _by_kernel(entries, ("memcopy",)):
        x, t, _ = e.series("bytes", where=lambda r: _num(r.get("bytes")) > 0 and _num(r.get("median_us")) > 0)
        if not len(x):
            continue
        fig, ax = plots.figure()
        ax.plot(x, x / t, marker="o", markersize=4, color="C2")
        _bytes_axis(ax, x, label="copy size (bytes)")
        _value_axis(ax, [], "bandwidth (MB/s)", log=False)
        ax.set_title("memory copy bandwidth")
        parts.append(plots.save(fig, "local-memcopy", "memory copy bandwidth versus size",
                                "Bytes copied by one memcpy divided by its median time (caches show as steps)."))
    vectors = [e for e in entries if e.kernel == "vector"]
    tables = ""
    if vectors:
        dtypes = sorted({str(e.params.get("dtype", "")) for e in vectors}, key=lambda d: (d != "float64", d))
        fig, axes = plots.figure(width=6.0 * len(dtypes), height=4.2, ncols=len(dtypes))
        axes = axes if isinstance(axes, list) else [axes]
        drawn = False
        with_nv = any("nv" in e.params for e in vectors)
        for ax, dtype in zip(axes, dtypes):
            rows_html, alln, allr = [], [], []
            for i, e in enumerate(v for v in vectors if str(v.params.get("dtype", "")) == dtype):
                p = e.params
                flops = _num(p.get("flops_per_element"))
                n, t, _ = e.series("elements", where=lambda r: _num(r.get("median_us")) > 0)
                if flops and len(n):
                    rate = flops * n / t
                    ax.plot(n, rate, marker="o", markersize=3, color=f"C{i % 10}", label=str(p.get("op", "?")))
                    alln += list(n)
                    allr += list(rate)
                    drawn = True
                row = [html.escape(str(p.get("op", "?"))), _fmt(p.get("flops_per_element")), _fmt(p.get("rinf_mflops")),
                       _fmt(p.get("nhalf"))]
                if with_nv:
                    row.append(_fmt(p.get("nv")))
                rows_html.append(row)
            if alln:
                _bytes_axis(ax, alln, label="vector length (elements)", counts=True)
                _value_axis(ax, allr, "rate (Mflop/s)", log=False)
                ax.legend(fontsize="small", ncol=2)
            ax.set_title(f"vector operations, {dtype}")
            headers = ["operation", "flops / element", "R∞ (Mflop/s)", "N½ (elements)"] + (
                ["N_v (elements)"] if with_nv else [])
            tables += _table(headers, rows_html, f"Length-related measures of vector performance, {html.escape(dtype)} "
                             "(T(n) = t0 + n / R∞, N½ = t0 · R∞" + (", N_v: vector beats scalar from" if with_nv
                                                                    else "") + ")")
        if drawn:
            parts.append(plots.save(fig, "local-vector", "vector operation rate versus length",
                                    "Flops per element times length divided by the median time."))
        else:
            fig.clear()
    if not parts and not tables:
        return ""
    return ('<section id="local"><h2>Local</h2>'
            f"<div class=plots>{''.join(parts)}</div>{tables}</section>")


def _patterns_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    figures, tables = [], []
    for e in _by_kernel(entries, ("matching",)):
        _, _, rows = e.series("bytes")
        if not rows:
            continue
        fig, ax = plots.figure(width=max(5.5, min(12.0, 2.5 + 0.8 * len(rows))))
        data, labels, allt, trows = [], [], [], []
        for r in rows:
            samples = [s for s in (_num(v) for v in (r.get("samples_us") or [])) if s is not None]
            if not samples:
                samples = [v for v in (_num(r.get("min_us")), _num(r.get("median_us"))) if v is not None]
            data.append(samples)
            labels.append(_size(r.get("bytes")))
            allt += samples
            mx = max(samples) if r.get("samples_us") else None
            spread = _num(r.get("spread"))
            if spread is None and mx is not None and _num(r.get("min_us")):
                spread = mx / _num(r["min_us"])
            trows.append((_size(r.get("bytes")), _fmt(r.get("ranks")), _fmt(r.get("matchings") or len(samples)),
                          _fmt(r.get("min_us") if _num(r.get("min_us")) is not None else min(samples)),
                          _fmt(r.get("median_us")), _fmt(mx), _fmt(spread)))
        pos = np.arange(1, len(data) + 1)
        ax.boxplot(data, positions=pos, whis=(0, 100), widths=0.5, showfliers=False, medianprops={"color": "C3"})
        ax.set_xticks(pos, labels)
        rng = np.random.default_rng(0)
        for p, d in zip(pos, data):
            ax.scatter(p + rng.uniform(-0.15, 0.15, len(d)), d, s=8, color="C0", alpha=0.5, zorder=3)
        ax.set_xlabel("message size (bytes)")
        _value_axis(ax, allt, "time per matching (µs)")
        ax.set_title("random matchings: time distribution")
        seed = e.params.get("seed")
        figures.append(plots.save(fig, "patterns-matching", "time distribution over random matchings",
                                  "One point per random perfect matching of the ranks (every pair exchanges at "
                                  "once); boxes span the quartiles, whiskers the minimum and maximum"
                                  + (f"; seed {html.escape(str(seed))}." if seed is not None else ".")))
        tables.append(_table(["size", "ranks", "matchings", "min (µs)", "median (µs)", "max (µs)", "spread max/min"],
                             trows, "Random matchings: how much the pairing matters", numeric_from=1))
    for e in _by_kernel(entries, ("hypercube",)):
        dims = e.distinct("dimension")
        if not dims:
            continue
        fig, ax = plots.figure()
        allx, allt = [], []
        for i, d in enumerate(dims):
            x, t, rows = e.series("bytes", where=lambda r, d=d: _num(r.get("dimension")) == d)
            if len(x):
                _errorbars(ax, x, rows, color=f"C{i % 10}", label=f"d = {d:.0f}")
                allx += list(x)
                allt += list(t)
        _bytes_axis(ax, allx)
        _value_axis(ax, allt, "time (µs)", log=True)
        ax.set_title("hypercube exchange: time vs message size")
        ax.legend(fontsize="small", title="dimension", title_fontsize="small", ncol=2 if len(dims) > 4 else 1)
        figures.append(plots.save(fig, "patterns-hypercube", "hypercube exchange per dimension",
                                  "Every rank exchanges with the rank whose number differs in bit d; lines that "
                                  "coincide mean the dimension (distance in the network) does not matter."))
    pingpong = next((e for e in _by_kernel(entries, ("pingpong",))), None)
    for e in _by_kernel(entries, ("chain",)):
        x, t, rows = e.series("bytes")
        if not len(x):
            continue
        fig, ax = plots.figure()
        _errorbars(ax, x, rows, color="C1", label="chain (all ranks at once)")
        allx, allt = list(x), list(t)
        if pingpong is not None:
            px, pt, prow = pingpong.series("bytes")
            if len(px):
                _errorbars(ax, px, prow, color="C0", label="ping-pong (two ranks)", linestyle="--")
                allx += list(px)
                allt += list(pt)
        _bytes_axis(ax, allx)
        _value_axis(ax, allt, "time (µs)", log=True)
        ax.set_title("contention: chain vs ping-pong")
        ax.legend(fontsize="small")
        figures.append(plots.save(fig, "patterns-chain", "contention chain versus message size",
                                  "Every rank sends to the next at once; the gap to the ping-pong is the cost "
                                  "of contention."))
    mesh_rows = []
    order = {d: i for i, d in enumerate(_DIRECTIONS)}
    for e in [x for x in entries if x.kernel == "mesh_shift" and x.rows]:
        mesh = e.params.get("mesh")
        mesh_text = " × ".join(str(v) for v in mesh) if isinstance(mesh, (list, tuple)) else _fmt(mesh)
        rows = sorted(e.rows, key=lambda r: (order.get(str(r.get("direction")), 99), str(r.get("direction")),
                                             _num(r.get("bytes")) or 0))
        for r in rows:
            mesh_rows.append((html.escape(str(e.params.get("placement", "—"))), html.escape(mesh_text),
                              html.escape(str(r.get("direction", "—"))), _size(r.get("bytes")),
                              _fmt(r.get("min_rank_median_us")), _fmt(r.get("max_rank_median_us"))))
    if mesh_rows:
        tables.append(_table(["placement", "mesh", "direction", "size", "min per-rank median (µs)",
                              "max per-rank median (µs)"], mesh_rows,
                             "Mesh shifts: every rank sends to its neighbour in one direction at once "
                             "(like the CM-5 paper's Table 5)", numeric_from=3))
    if not figures and not tables:
        return ""
    return ('<section id="patterns"><h2>Patterns</h2>'
            f"<div class=plots>{''.join(figures)}</div>{''.join(tables)}</section>")


def _gauss_error(r: Mapping[str, Any]) -> Optional[float]:
    """The row's error_pct, or 100 (predicted - measured) / measured (as datamotion.predict)."""
    if _num(r.get("error_pct")) is not None:
        return _num(r["error_pct"])
    pred, meas = _num(r.get("predicted_ms")), _num(r.get("measured_ms"))
    return 100.0 * (pred - meas) / meas if pred is not None and meas else None


def _ms(value: Any) -> str:
    v = _num(value)
    return "—" if v is None else f"{v:.2f}"


def _prediction_section(entries: Sequence[_Entry], plots: _Plots) -> str:
    chosen = [e for e in entries if e.kernel == "gauss_elimination" and e.rows]
    if not chosen:
        return ""
    fig, ax = plots.figure()
    table, costs, alln, allt = [], [], [], []
    for i, e in enumerate(chosen):
        rows = sorted((r for r in e.rows if _num(r.get("n")) is not None), key=lambda r: _num(r["n"]))
        p = e.params.get("ranks", rows[0].get("ranks") if rows else None)
        suffix = f", P={p}" if p is not None else ""
        for field, style, what in (("predicted_ms", "--", "predicted"), ("measured_ms", "-", "measured")):
            pts = [(_num(r["n"]), _num(r.get(field))) for r in rows if _num(r.get(field)) is not None]
            if pts:
                ax.plot([a for a, _ in pts], [b for _, b in pts], linestyle=style, marker="o" if style == "-" else "s",
                        markersize=4, color=f"C{i % 10}", label=f"{what}{suffix}")
                alln += [a for a, _ in pts]
                allt += [b for _, b in pts]
        for r in rows:
            n = _num(r["n"])
            err = _gauss_error(r)
            table.append((f"{n:.0f} × {n + 1:.0f}", _fmt(r.get("ranks", p)), _ms(r.get("predicted_ms")),
                          _ms(r.get("measured_ms")), f"{err:+.1f}" if err is not None else "—"))
            if any(k in r for k in ("reduce_double_us", "bcast_us", "compute_us", "iteration_us")):
                costs.append((f"{n:.0f} × {n + 1:.0f}", _fmt(r.get("ranks", p)), _fmt(r.get("reduce_double_us")),
                              _fmt(r.get("reduce_int_us")), _fmt(r.get("bcast_us")), _fmt(r.get("compute_us")),
                              _fmt(r.get("iteration_us"))))
    figures = ""
    if alln:
        _bytes_axis(ax, alln, label="matrix size N (N × (N+1) matrix)", counts=True)
        _value_axis(ax, allt, "time (ms)", log=True)
        ax.set_title("Gaussian elimination: predicted vs measured")
        ax.legend(fontsize="small")
        figures = plots.save(fig, "prediction-gauss", "predicted and measured time of Gaussian elimination",
                             "Predicted from the fitted models (N iterations of two reductions, a broadcast "
                             "of a row and the row updates) and measured.")
    else:
        fig.clear()
    out = ('<section id="prediction"><h2>Predicted versus measured</h2>'
           f"<div class=plots>{figures}</div>"
           + _table(["matrix", "ranks", "estimated (ms)", "measured (ms)", "error (%)"], table,
                    "Gaussian elimination with partial pivoting: estimated and measured time (like the CM-5 "
                    "paper's Table 7); error = (estimated − measured) / measured"))
    if costs:
        out += _table(["matrix", "ranks", "double reduction", "integer reduction", "broadcast of a row",
                       "computation", "time per iteration"], costs,
                      "Cost of one iteration in µs (like the CM-5 paper's Table 6)")
    return out + "</section>"


def _other_section(entries: Sequence[_Entry]) -> str:
    others = [e for e in entries if e.kernel not in KNOWN_KERNELS]
    if not others:
        return ""
    rows = [(html.escape(e.kernel), f"<code>{html.escape(_params_text(e.params)) or '—'}</code>", str(e.nrows))
            for e in others]
    return ('<section id="other"><h2>Other kernels</h2><p>Kernels this report has no section for; their rows are '
            "in results.csv.</p>" + _table(["kernel", "params", "rows"], rows, numeric_from=2) + "</section>")


def _notes_section(fitted: Mapping[str, Any]) -> str:
    notes = [str(n) for n in fitted.get("notes", []) if n] if isinstance(fitted.get("notes"), list) else []
    notes = [n for n in notes if "no model for kernel" not in n]  # kernels drawn without a fit, by design
    if not notes:
        return ""
    items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    return (f'<section id="notes"><h2>Fitting notes</h2><details><summary>{len(notes)} note(s) from the model '
            f"fit</summary><ul>{items}</ul></details></section>")


# ---------------------------------------------------------------------------
# CSV and the page
# ---------------------------------------------------------------------------

_CSV_FIRST = ("bytes", "ranks", "median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_lo_us", "ci95_hi_us",
              "reps")


def _csv_fields(row: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key, value in row.items():
        if key == "ci95_us":
            if isinstance(value, (list, tuple)) and len(value) == 2:
                out["ci95_lo_us"], out["ci95_hi_us"] = value
        elif value is None or isinstance(value, (bool, int, float, str)):
            out[str(key)] = value
    return out


def _write_csv(entries: Sequence[_Entry], path: str) -> int:
    lines = [(e, _csv_fields(r)) for e in entries for r in e.rows]
    seen: Dict[str, None] = {}
    for _, fields in lines:
        for key in fields:
            seen.setdefault(key, None)
    header = [k for k in _CSV_FIRST if k in seen] + [k for k in seen if k not in _CSV_FIRST]
    with atomic_write(path, newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "params"] + header)
        for e, fields in lines:
            w.writerow([e.kernel, _params_text(e.params)] + ["" if fields.get(k) is None else fields[k]
                                                               for k in header])
    return len(lines)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#1d1d1f;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #d0d0d0;padding-bottom:.2em;margin-top:2em}
nav{margin:.5em 0 1.5em}nav a{margin-right:1em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
th,td{border:1px solid #d0d0d0;padding:.25em .6em;vertical-align:top;text-align:left}
thead th{background:#f2f2f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.prov th{background:#f7f7f9;white-space:nowrap}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
.ci{color:#777;font-size:.9em}ul.warnings{margin:0;padding-left:1.2em}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:1em}
figure{margin:0}figure img{max-width:100%;height:auto;border:1px solid #e4e4e4}
figcaption{font-size:.88em;color:#444}code{font-size:.9em}footer{margin-top:3em;color:#777;font-size:.85em}
"""


def _page(title: str, sections: Sequence[Tuple[str, str, str]], files: Sequence[str]) -> str:
    nav = " ".join(f'<a href="#{sid}">{name}</a>' for sid, name, body in sections if body)
    body = "\n".join(b for _, _, b in sections if b)
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f'<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n{body}\n"
            f"<footer>{len(files)} plots; every row is in <a href=results.csv>results.csv</a>, the fits in "
            f"<a href=model.json>model.json</a>.</footer></body></html>\n")


def _write_report(results: Mapping[str, Any], out_dir: str, model: Optional[Mapping[str, Any]] = None
                  ) -> Tuple[str, int]:
    """write_report, also returning the number of plots."""
    _check_results(results, "results")
    if model is not None:
        _check_model(model, "model")
        fitted = model
    else:
        fitted = _model.fit_results(results)
    os.makedirs(out_dir, exist_ok=True)
    entries = _entries(results, fitted)
    plots = _Plots(out_dir)
    sections = [
        ("provenance", "Provenance", _provenance_section(results)),
        ("latency", "Latency", _latency_section(entries, plots)),
        ("bandwidth", "Bandwidth", _bandwidth_section(entries, plots)),
        ("distance", "Distance", _distance_section(entries, plots)),
        ("collectives", "Collectives", _collectives_section(entries, plots)),
        ("local", "Local", _local_section(entries, plots)),
        ("patterns", "Patterns", _patterns_section(entries, plots)),
        ("prediction", "Predicted vs measured", _prediction_section(entries, plots)),
        ("other", "Other kernels", _other_section(entries)),
        ("notes", "Fitting notes", _notes_section(fitted)),
    ]
    _write_csv(entries, os.path.join(out_dir, "results.csv"))
    with atomic_write(os.path.join(out_dir, "model.json"), encoding="utf-8") as f:
        json.dump(fitted, f, indent=1)
    prov = results.get("provenance") if isinstance(results.get("provenance"), Mapping) else {}
    ranks = prov.get("ranks")
    title = "datamotion benchmark report" + (f" ({ranks} ranks)" if ranks is not None else "")
    index = os.path.join(out_dir, "index.html")
    with atomic_write(index, encoding="utf-8") as f:
        f.write(_page(title, sections, plots.files))
    return index, len(plots.files)


def write_report(results: dict, out_dir: str, model: Optional[dict] = None) -> str:
    """Writes an offline HTML report of a benchmark results document.

    Creates ``out_dir`` if needed and writes into it ``index.html`` (inline
    CSS, no JavaScript, nothing fetched from the network), one PNG per plot,
    ``results.csv`` (one line per row of every entry, raw samples left out)
    and ``model.json`` (the fits drawn). Sections appear only when their data
    do: provenance; latency (point-to-point time vs size with the fitted
    piecewise model and a table of its segments); bandwidth; distance from
    rank 0; collectives versus the number of ranks; local (memory copy, vector
    operations with R∞ and N½); patterns (random matchings, hypercube, chain,
    mesh shifts); predicted versus measured (Gaussian elimination); and other
    kernels, listed by name.

    Local: no MPI is loaded or called.

    Args:
        results: a parsed ``datamotion.bench/1`` document (:func:`load_results`).
        out_dir: the folder to write into; files of the same names there
            are overwritten, other files are left alone.
        model: a ``datamotion.model/1`` document (:func:`load_model`) to draw;
            by default every kernel is fitted with
            :func:`datamotion.model.fit_results`.

    Returns:
        The path of ``index.html``.

    Raises:
        ValueError: if ``results`` or ``model`` is not such a document.
        OSError: if the folder cannot be written.
    """
    return _write_report(results, out_dir, model)[0]
