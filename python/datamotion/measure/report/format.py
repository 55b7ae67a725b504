"""Values, result entries and HTML tables of the report (no plotting, no MPI)."""

from __future__ import annotations

import html
import json
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..constants import FIT_MIN_R2

DESCRIBE = {
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
DIRECTIONS = ("north", "east", "west", "south")
LABEL_PARAMS = ("dtype", "op", "placement", "mesh", "ranks")  # what tells entries of one kernel apart

# Values, rows and entries
# ---------------------------------------------------------------------------


def num(value: Any) -> Optional[float]:
    """A finite float, or None for anything else (missing, null, text, NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def params_text(params: Mapping[str, Any]) -> str:
    """Compact ``k=v;k=v`` (lists and tables as compact JSON)."""
    parts = []
    for key, value in params.items():
        if isinstance(value, (list, tuple, dict)):
            value = json.dumps(value, separators=(",", ":"))
        parts.append(f"{key}={value}")
    return ";".join(parts)


class Entry:
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
        picked = [r for r in self.rows if num(r.get(x)) is not None and num(r.get(y)) is not None
                  and (where is None or where(r))]
        picked.sort(key=lambda r: num(r.get(x)))
        return (np.array([num(r[x]) for r in picked], dtype=float),
                np.array([num(r[y]) for r in picked], dtype=float), picked)

    def distinct(self, field: str) -> List[float]:
        return sorted({num(r.get(field)) for r in self.rows if num(r.get(field)) is not None})


def make_entries(results: Mapping[str, Any], fitted: Mapping[str, Any]) -> List[Entry]:
    entries = [Entry(i, raw) for i, raw in enumerate(results["results"])]
    counts: Dict[str, int] = {}
    for e in entries:
        counts[e.kernel] = counts.get(e.kernel, 0) + 1
    for e in entries:
        if counts[e.kernel] > 1 and e.params:
            named = [short(v) for k, v in e.params.items() if k in LABEL_PARAMS] \
                or [f"{k}={short(v)}" for k, v in e.params.items()]
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


def short(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "x".join(str(v) for v in value)
    return str(value)


# ---------------------------------------------------------------------------
# Formatting
# ---------------------------------------------------------------------------


def fmt(value: Any, digits: int = 3) -> str:
    """A number for a table: about three significant digits, '—' when missing."""
    v = num(value)
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


def flags_of(fitted: Any) -> List[str]:
    """The quality flags of a fit or segment dict (empty when it is fine or is not one)."""
    flags = fitted.get("flags") if isinstance(fitted, Mapping) else None
    return [str(f) for f in flags] if isinstance(flags, (list, tuple)) else []


def flagged(text: str, flags: Sequence[str]) -> str:
    """``text`` in red with the flags after it when there are flags; ``text`` as it is otherwise."""
    if not flags:
        return text
    reasons = html.escape("; ".join(flags))
    return f'<span class=bad title="{reasons}">{text}</span> <span class=bad>({reasons})</span>'


def r2_text(value: Any, flags: Optional[Sequence[str]] = None) -> str:
    """r² with three decimals. ``value`` may be the fit or segment dict itself, whose
    flags then show in red; an r² below the quality threshold is red in any case."""
    if isinstance(value, Mapping):
        flags = flags_of(value) if flags is None else flags
        value = value.get("r2")
    v = num(value)
    text = "—" if v is None else f"{v:.3f}"
    if flags:
        return flagged(text, flags)
    return f"<span class=bad>{text}</span>" if v is not None and v < FIT_MIN_R2 else text


def size_text(value: Any) -> str:
    """Bytes for people: 8, 4 KiB, 1 MiB (exact multiples only)."""
    v = num(value)
    if v is None:
        return "—"
    if v.is_integer():
        b = int(v)
        for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
            if b >= scale and b % scale == 0:
                return f"{b // scale} {unit}"
        return str(b)
    return fmt(v)


def size_label(value: Any) -> str:
    """A size for a legend: 8 B, 4 KiB."""
    text = size_text(value)
    return text if text.endswith("iB") or text == "—" else f"{text} B"



def ci_text(value: Any, ci: Any, flags: Optional[Sequence[str]] = None) -> str:
    """A value with its interval; red with the reasons when ``flags`` are given."""
    text = fmt(value)
    if isinstance(ci, (list, tuple)) and len(ci) == 2 and num(ci[0]) is not None and num(ci[1]) is not None:
        text += f" <span class=ci>[{fmt(ci[0])}, {fmt(ci[1])}]</span>"
    return flagged(text, flags or [])


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], caption: str = "", numeric_from: int = 1) -> str:
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


def model_text(fit_entry: Mapping[str, Any]) -> Tuple[str, str, str]:
    """(family, coefficients, r2) of a fitted collective model, for a table."""
    family = str(fit_entry.get("model", ""))
    fit = fit_entry.get("fit") if isinstance(fit_entry.get("fit"), Mapping) else {}
    if family == "piecewise":
        segs = fit.get("segments", [])
        coef = "; ".join(flagged(f"{size_text(s.get('start_bytes'))}–{size_text(s.get('end_bytes'))}: "
                                 f"t0 {fmt(s.get('t0_us'))} µs, {fmt(s.get('bandwidth_MBps'))} MB/s", flags_of(s))
                         for s in segs)
        own = [f for f in flags_of(fit) if not f.startswith("segment ")]  # the segments show theirs
        return f"T(l) at P={', '.join(str(p) for p in fit_entry.get('ranks', []))}", coef, \
            r2_text(fit.get("r2"), own)
    names = [n for n in ("a", "b", "c", "d") if n in fit]
    coef = ", ".join(f"{n} = {fmt(fit.get(n))}" for n in names)
    return html.escape(str(fit.get("formula", family))), coef, r2_text(fit)


# ---------------------------------------------------------------------------
# Sections
# ---------------------------------------------------------------------------


def by_kernel(entries: Sequence[Entry], kernels: Sequence[str]) -> List[Entry]:
    order = {k: i for i, k in enumerate(kernels)}
    chosen = [e for e in entries if e.kernel in order and e.rows]
    return sorted(chosen, key=lambda e: (order[e.kernel], e.index))




def beside_seed(ours: str, seed: str, seed_machine: str) -> str:
    """Our figure or table and the seed's counterpart in one row: the seed's numbers
    are quoted as published, under the name of the machine they were measured on."""
    return (f'<div class=beside><div class=ours><h4>datamotion, this machine</h4>{ours}</div>'
            f'<div class=seed><h4>the paper: {html.escape(seed_machine)}</h4>{seed}</div></div>')


def seed_section(section_id: str, title: str, intro: str, ours: str, seed: str, seed_machine: str) -> str:
    """A subsection of a seed's part of the page: heading, one paragraph of
    introduction (HTML) and our numbers beside the seed's (:func:`beside_seed`)."""
    return (f'<section id="{section_id}"><h3>{title}</h3><p>{intro}</p>'
            + beside_seed(ours, seed, seed_machine) + "</section>")


def first_entry(entries: Sequence[Entry], kernel: str) -> Optional[Entry]:
    """The first entry of ``kernel``, or None when the results have none."""
    return next(iter(by_kernel(entries, (kernel,))), None)
