"""The report's section on programs predicted from the fitted model: the stencil
time step and the redistribution (``datamotion bench programs``) beside their
measured times with the error, and the memory hierarchy the local kernels see
(the fitted rate changes beside the machine's stated cache sizes)."""

from __future__ import annotations

import html
from typing import Sequence

from .format import Entry, num, table

KERNELS = frozenset({"stencil_step", "redistribution", "plan_call", "vector_sweep", "ufunc", "row_update"})
"""Kernels this section shows."""

_WHAT = {"stencil_step": "stencil time step (halo exchange + 5-point update in NumPy)",
         "redistribution": "redistribution, cyclic rows to blocks of rows (RedistPlan.execute)"}


def _us(value) -> str:
    v = num(value)
    return "—" if v is None else f"{v:.1f}"


def _pct(value) -> str:
    v = num(value)
    return "—" if v is None else f"{v:+.1f}"


def _programs_table(entries: Sequence[Entry]) -> str:
    rows = []
    for e in entries:
        if e.kernel not in _WHAT:
            continue
        for r in sorted(e.rows, key=lambda r: num(r.get("n")) or 0):
            errors = [num(x) for x in r.get("error_by_round_pct") or [] if num(x) is not None]
            spread = f"{min(errors):+.1f} .. {max(errors):+.1f}" if errors else "—"
            parts = ", ".join(f"{k[:-3]} {_us(r[k])}" for k in ("halo_us", "compute_us", "exchange_us", "on_node_us",
                                                                 "pack_us", "copy_us", "call_us") if num(r.get(k)) is not None)
            if r.get("not_predicted"):
                parts = f"not predicted: {r['not_predicted']}"
            rows.append((html.escape(_WHAT[e.kernel]), f"{num(r.get('n')) or 0:.0f} × {num(r.get('n')) or 0:.0f}",
                         str(r.get("ranks", "—")), _us(r.get("predicted_us")), _us(r.get("median_us")),
                         _pct(r.get("error_pct")), spread, html.escape(parts)))
    if not rows:
        return ""
    return table(["program", "array", "ranks", "predicted (µs)", "measured (µs)", "error (%)",
                  "error by round (%)", "predicted parts (µs)"], rows,
                 "Predicted from the plan's messages (exchange at each peer's bytes, memcpy per run packed, "
                 "unpacked or copied, messages on the node as one copy out of the sender's memory plus control "
                 "and answer), the plan call's own cost (measured on a plan that moves nothing) and the compute "
                 "at the rate of the step's own array length, against the measured median of the slowest rank; "
                 "error = (predicted − measured) / measured", numeric_from=2)


def _hierarchy_table(entries: Sequence[Entry]) -> str:
    rows = []
    for e in entries:
        if e.kernel not in ("vector_sweep", "ufunc") or e.fit is None:
            continue
        bends = ", ".join(f"{b / 1024:.0f} KiB" for b in e.fit.get("breakpoints_bytes") or []) or "none"
        caches = ", ".join(str(c) for c in e.params.get("caches") or []) or "—"
        rows.append((html.escape(e.kernel), html.escape(str(e.params.get("op", ""))), bends, html.escape(caches)))
    if not rows:
        return ""
    return table(["kernel", "operation", "fitted rate changes (working set or length)", "machine's caches"], rows,
                 "The memory hierarchy as the local kernels see it: breakpoints of the fit against the working "
                 "set, beside the cache sizes the machine states", numeric_from=4)


def section(entries: Sequence[Entry], plots=None) -> str:
    """The ``<section>`` of programs predicted and of the memory hierarchy; "" without data."""
    body = _programs_table(entries) + _hierarchy_table(entries)
    if not body:
        return ""
    return ('<section id="predicted"><h2>Programs predicted from the model</h2><p>Like the CM-5 paper\'s '
            "Gaussian elimination (its Tables 6 and 7, in the CM-5 section): two programs of this library priced "
            "from measured primitives and run, side by side.</p>" + body + "</section>")
