"""The CM-5 paper's measurements (Dincer, Bozkus, Ranka & Fox, 1995) in the report:
latency, distance, collectives, local vector operations, communication patterns and
the predicted Gaussian elimination; the experiments of its remaining tables and
figures in :mod:`.cm5_experiments`."""

from __future__ import annotations

import html
from typing import Any, List, Mapping, Optional, Sequence

import numpy as np

from . import cm5_experiments
from .format import (
    DESCRIBE,
    DIRECTIONS,
    Entry,
    by_kernel,
    ci_text,
    fmt,
    model_text,
    num,
    params_text,
    r2_text,
    size_label,
    size_text,
    table,
)
from .plots import (Plots, bytes_axis, draw_piecewise, errorbars, piecewise_fits, predict_entry, ranks_axis, value_axis,
                    whole_ticks)

TITLE = "Computation and communication (the CM-5 paper)"
SEED = ("Dincer, Bozkus, Ranka & Fox, Benchmarking the computation and communication performance of "
        "the CM-5 (1995), measured on a 32-node Thinking Machines CM-5 with CMMD")
LATENCY_KERNELS = ("pingpong", "exchange", "stream", "bidir", "pingpong_fine", "memcopy")
COLLECTIVE_KERNELS = ("barrier", "bcast", "reduce", "allreduce", "scan", "exscan", "segscan", "allgather",
                      "alltoall")
PATTERN_KERNELS = ("matching", "hypercube", "chain", "mesh_shift")
EXPERIMENT_KERNELS = ("cm5_scalar_ops", "cm5_reduction_ops", "cm5_alignment", "cm5_distance", "cm5_mesh_shift",
                      "cm5_hypercube_dimension", "cm5_aggregate_flops")
"""The kernels of ``datamotion bench cm5`` (measure/suites/cm5.py)."""
KERNELS = frozenset(LATENCY_KERNELS + COLLECTIVE_KERNELS + PATTERN_KERNELS + EXPERIMENT_KERNELS
                    + ("distance", "vector", "gauss_elimination"))
"""The kernels this section draws."""


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return [_latency_section(entries, plots), _distance_section(entries, plots),
            _collectives_section(entries, plots), _local_section(entries, plots),
            _patterns_section(entries, plots), _prediction_section(entries, plots),
            *cm5_experiments.sections(entries, plots)]


def _latency_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, LATENCY_KERNELS) if len(e.series("bytes")[0])]
    if not chosen:
        return ""
    figures, seg_rows = [], []
    compare = [e for e in chosen if e.kernel in ("pingpong", "exchange", "stream", "bidir")]
    if len(compare) >= 2:
        fig, ax = plots.figure()
        allx, ally = [], []
        for e in compare:
            x, y, rows = e.series("bytes")
            errorbars(ax, x, rows, label=e.label)
            allx += list(x)
            ally += list(y)
        bytes_axis(ax, allx)
        value_axis(ax, ally, "time (µs)", log=True)
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
                xs, _, rs = e.series("bytes", where=lambda r, p=p: num(r.get("ranks")) == p)
                errorbars(ax, xs, rs, color=f"C{i}", label=f"measured, P={p:.0f}")
        else:
            errorbars(ax, x, rows, color="C0", label="measured (median, 5–95 %)")
        for i, (label, fit) in enumerate(piecewise_fits(e)):
            draw_piecewise(ax, fit, float(x.min()), float(x.max()), color="C3" if not label else f"C{i}",
                            label=f"fit {label}".strip(), log=not fine)
            for s in fit.get("segments", []):
                seg_rows.append((html.escape(e.label) + (f" ({label})" if label else ""),
                                 f"{size_text(s.get('start_bytes'))} – {size_text(s.get('end_bytes'))}",
                                 ci_text(s.get("t0_us"), s.get("t0_ci95")), fmt(s.get("bandwidth_MBps")),
                                 r2_text(s), str(s.get("n", "—"))))
        if fine:
            ax.set_xlabel("message size (bytes)")
            value_axis(ax, y, "time (µs)", log=False)
        else:
            bytes_axis(ax, x, label="copy size (bytes)" if e.kernel == "memcopy" else "message size (bytes)")
            value_axis(ax, y, "time (µs)", log=True)
        ax.set_title(f"{e.label}: time vs {'copy' if e.kernel == 'memcopy' else 'message'} size")
        ax.legend(fontsize="small")
        figures.append(plots.save(fig, f"latency-{e.label}", f"{e.label}: time versus message size",
                                  html.escape(f"{e.label}: {DESCRIBE.get(e.kernel, e.kernel)}.")))
    summary = table(["kernel", "sizes", "t0 (µs) [95 % CI]", "bandwidth (MB/s)", "r²", "points"], seg_rows,
                   "Fitted segments T(l) = t0 + l / B (breakpoints where the MPI library changes protocol)",
                   numeric_from=2) if seg_rows else "<p>No piecewise fits.</p>"
    return ('<section id="latency"><h3>Latency</h3>'
            "<p>Time against message size on log-log axes (the fine sweep on linear axes), "
            "with the fitted piecewise model dashed and its breakpoints dotted.</p>"
            f'<div class=plots>{"".join(figures)}</div>{summary}</section>')


def _distance_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in by_kernel(entries, ("distance",)) if len(e.series("dst")[0])]
    if not chosen:
        return ""
    figures, single = [], []
    for e in chosen:
        x, y, rows = e.series("dst")
        nbytes = num(e.params.get("bytes")) or (num(rows[0].get("bytes")) if rows else None)
        if len(x) < 2:  # one destination: a bar chart would compare nothing
            single.append((f"{x[0]:.0f}", size_text(nbytes), ci_text(rows[0].get("median_us"), rows[0].get("ci95_us"))))
            continue
        fig, ax = plots.figure(width=max(5.0, min(12.0, 2.0 + 0.35 * len(x))))
        err = np.vstack([np.maximum(y - [(num(r.get("p05_us")) or m) for r, m in zip(rows, y)], 0),
                         np.maximum([(num(r.get("p95_us")) or m) for r, m in zip(rows, y)] - y, 0)])
        ax.bar(x, y, yerr=err, color="C0", capsize=2, width=0.7)
        ax.set_xlabel("destination rank")
        whole_ticks(ax, x)
        value_axis(ax, y, f"{size_text(nbytes)}-byte one-way time (µs)", log=False)
        ax.set_title(f"latency from rank 0 to each rank ({size_text(nbytes)} bytes)")
        figures.append(plots.save(fig, "distance", "latency from rank 0 to each rank",
                                  "Median ping-pong time from rank 0; bars span the 5th to 95th percentile."))
    one = (table(["destination", "size", "median (µs) [95 % CI]"], single,
                 "One destination only: with two ranks there is no distance to compare") if single else "")
    return ('<section id="distance"><h3>Distance</h3><p>Does the time depend on which rank rank 0 talks to '
            f"(same socket, other socket, other host)?</p><div class=plots>{''.join(figures)}</div>{one}</section>")


def _collective_plot(e: Entry, plots: Plots) -> Optional[str]:
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
            x, t, rows = e.series("ranks", where=lambda r, b=b: (num(r.get("bytes")) or 0.0) == b)
            if not len(x):
                continue
            errorbars(ax, x, rows, color=color, label=size_label(b) if e.kernel != "barrier" else "measured")
            allt += list(t)
            pred = predict_entry(e, size_bytes=np.full_like(grid, b), ranks=grid)
            if pred is None and e.fit and e.fit.get("model") == "log2":
                pred = predict_entry(e, ranks=grid)
            if pred is not None and pred.shape == grid.shape:
                ax.plot(grid, np.where(pred > 0, pred, np.nan), color=color, linestyle="--", linewidth=1.1,
                        label="fitted model" if len(sizes) == 1 else None)
                fitted = True
        ranks_axis(ax, ranks)
        title = f"{e.label}: time vs ranks"
    else:
        x, t, rows = e.series("bytes")
        if not len(x):
            return None
        errorbars(ax, x, rows, color="C0", label=f"measured, P={ranks[0]:.0f}")
        allt += list(t)
        for label, fit in piecewise_fits(e):
            draw_piecewise(ax, fit, float(x.min()), float(x.max()), color="C3", label="fit")
            fitted = True
        if not fitted and len(x) > 1:
            grid = np.geomspace(max(x.min(), 1.0), x.max(), 100)
            pred = predict_entry(e, size_bytes=grid, ranks=np.full_like(grid, ranks[0]))
            if pred is not None and pred.shape == grid.shape:
                ax.plot(grid, np.where(pred > 0, pred, np.nan), color="C3", linestyle="--", label="fit")
        bytes_axis(ax, x)
        title = f"{e.label}: time vs message size at P={ranks[0]:.0f}"
    if not allt:
        return None
    value_axis(ax, allt, "time (µs)", log=True if len(ranks) < 2 else None)  # sizes span decades
    if fitted and len(ranks) >= 2 and len(sizes) > 1:
        ax.plot([], [], color="black", linestyle="--", label="fitted model")
    ax.set_title(title)
    many = len(sizes) > 1 and len(ranks) >= 2
    ax.legend(fontsize="small", title="message size" if many else None, title_fontsize="small",
              **({"loc": "upper left", "bbox_to_anchor": (1.01, 1.0)} if many else {}))
    what = DESCRIBE.get(e.kernel, e.kernel)
    if e.kernel == "segscan":
        what += f" ({html.escape(params_text(e.params))})"
    return plots.save(fig, f"collective-{e.label}", title, html.escape(f"{e.label}: {what}. ") +
                      ("Median of the slowest rank; dashed: the fitted model." if fitted else
                       "Median of the slowest rank."))


def _collectives_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = by_kernel(entries, COLLECTIVE_KERNELS)
    figures = [f for f in (_collective_plot(e, plots) for e in chosen) if f]
    single = [(html.escape(e.label), fmt(r.get("ranks")), size_text(r.get("bytes")), ci_text(r.get("median_us"),
                                                                                         r.get("ci95_us")))
              for e in chosen if len(e.distinct("ranks")) == 1 and len(e.distinct("bytes")) <= 1
              for r in e.series("ranks")[2]]
    if not figures and not single:
        return ""
    fits = []
    for e in chosen:
        if e.fit:
            family, coef, r2 = model_text(e.fit)
            fits.append((html.escape(e.label), family, coef, r2))
    summary = table(["kernel", "model", "coefficients (µs, µs per byte)", "r²"], fits,
                   "Fitted models (log2 P: tree depth; P l: size of a concatenated result)", numeric_from=3) \
        if fits else ""
    return ('<section id="collectives"><h3>Collectives versus P</h3>'
            "<p>Median time of the slowest rank against the number of ranks, one line per message size.</p>"
            f"<div class=plots>{''.join(figures)}</div>{summary}"
            + (table(["kernel", "ranks", "size", "median (µs) [95 % CI]"], single,
                      "Measured at one rank count and one size") if single else "")
            + "</section>")


def _local_section(entries: Sequence[Entry], plots: Plots) -> str:
    parts = []
    for e in by_kernel(entries, ("memcopy",)):
        x, t, _ = e.series("bytes", where=lambda r: num(r.get("bytes")) > 0 and num(r.get("median_us")) > 0)
        if not len(x):
            continue
        fig, ax = plots.figure()
        ax.plot(x, x / t, marker="o", markersize=4, color="C2")
        bytes_axis(ax, x, label="copy size (bytes)")
        value_axis(ax, [], "bandwidth (MB/s)", log=False)
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
                flops = num(p.get("flops_per_element"))
                n, t, _ = e.series("elements", where=lambda r: num(r.get("median_us")) > 0)
                if flops and len(n):
                    rate = flops * n / t
                    ax.plot(n, rate, marker="o", markersize=3, color=f"C{i % 10}", label=str(p.get("op", "?")))
                    alln += list(n)
                    allr += list(rate)
                    drawn = True
                row = [html.escape(str(p.get("op", "?"))), fmt(p.get("flops_per_element")), fmt(p.get("rinf_mflops")),
                       fmt(p.get("nhalf"))]
                if with_nv:
                    row.append(fmt(p.get("nv")))
                rows_html.append(row)
            if alln:
                bytes_axis(ax, alln, label="vector length (elements)", counts=True)
                value_axis(ax, allr, "rate (Mflop/s)", log=False)
                ax.legend(fontsize="small", ncol=2)
            ax.set_title(f"vector operations, {dtype}")
            headers = ["operation", "flops / element", "R∞ (Mflop/s)", "N½ (elements)"] + (
                ["N_v (elements)"] if with_nv else [])
            tables += table(headers, rows_html, f"Length-related measures of vector performance, {html.escape(dtype)} "
                             "(T(n) = t0 + n / R∞, N½ = t0 · R∞" + (", N_v: vector beats scalar from" if with_nv
                                                                    else "") + ")")
        if drawn:
            parts.append(plots.save(fig, "local-vector", "vector operation rate versus length",
                                    "Flops per element times length divided by the median time."))
        else:
            fig.clear()
    if not parts and not tables:
        return ""
    return ('<section id="local"><h3>Local</h3>'
            f"<div class=plots>{''.join(parts)}</div>{tables}</section>")


def _patterns_section(entries: Sequence[Entry], plots: Plots) -> str:
    figures, tables = [], []
    for e in by_kernel(entries, ("matching",)):
        _, _, rows = e.series("bytes")
        if not rows:
            continue
        fig, ax = plots.figure(width=max(5.5, min(12.0, 2.5 + 0.8 * len(rows))))
        data, labels, allt, trows = [], [], [], []
        for r in rows:
            samples = [s for s in (num(v) for v in (r.get("samples_us") or [])) if s is not None]
            if not samples:
                samples = [v for v in (num(r.get("min_us")), num(r.get("median_us"))) if v is not None]
            data.append(samples)
            labels.append(size_text(r.get("bytes")))
            allt += samples
            mx = max(samples) if r.get("samples_us") else None
            spread = num(r.get("spread"))
            if spread is None and mx is not None and num(r.get("min_us")):
                spread = mx / num(r["min_us"])
            trows.append((size_text(r.get("bytes")), fmt(r.get("ranks")), fmt(r.get("matchings") or len(samples)),
                          fmt(r.get("min_us") if num(r.get("min_us")) is not None else min(samples)),
                          fmt(r.get("median_us")), fmt(mx), fmt(spread)))
        pos = np.arange(1, len(data) + 1)
        ax.boxplot(data, positions=pos, whis=(0, 100), widths=0.5, showfliers=False, medianprops={"color": "C3"})
        ax.set_xticks(pos, labels)
        rng = np.random.default_rng(0)
        for p, d in zip(pos, data):
            ax.scatter(p + rng.uniform(-0.15, 0.15, len(d)), d, s=8, color="C0", alpha=0.5, zorder=3)
        ax.set_xlabel("message size (bytes)")
        value_axis(ax, allt, "time per matching (µs)")
        ax.set_title("random matchings: time distribution")
        seed = e.params.get("seed")
        figures.append(plots.save(fig, "patterns-matching", "time distribution over random matchings",
                                  "One point per random perfect matching of the ranks (every pair exchanges at "
                                  "once); boxes span the quartiles, whiskers the minimum and maximum"
                                  + (f"; seed {html.escape(str(seed))}." if seed is not None else ".")))
        tables.append(table(["size", "ranks", "matchings", "min (µs)", "median (µs)", "max (µs)", "spread max/min"],
                             trows, "Random matchings: how much the pairing matters", numeric_from=1))
    for e in by_kernel(entries, ("hypercube",)):
        dims = e.distinct("dimension")
        if not dims:
            continue
        fig, ax = plots.figure()
        allx, allt = [], []
        for i, d in enumerate(dims):
            x, t, rows = e.series("bytes", where=lambda r, d=d: num(r.get("dimension")) == d)
            if len(x):
                errorbars(ax, x, rows, color=f"C{i % 10}", label=f"d = {d:.0f}")
                allx += list(x)
                allt += list(t)
        bytes_axis(ax, allx)
        value_axis(ax, allt, "time (µs)", log=True)
        ax.set_title("hypercube exchange: time vs message size")
        ax.legend(fontsize="small", title="dimension", title_fontsize="small", ncol=2 if len(dims) > 4 else 1)
        figures.append(plots.save(fig, "patterns-hypercube", "hypercube exchange per dimension",
                                  "Every rank exchanges with the rank whose number differs in bit d; lines that "
                                  "coincide mean the dimension (distance in the network) does not matter."))
    pingpong = next((e for e in by_kernel(entries, ("pingpong",))), None)
    for e in by_kernel(entries, ("chain",)):
        x, t, rows = e.series("bytes")
        if not len(x):
            continue
        fig, ax = plots.figure()
        errorbars(ax, x, rows, color="C1", label="chain (all ranks at once)")
        allx, allt = list(x), list(t)
        if pingpong is not None:
            px, pt, prow = pingpong.series("bytes")
            if len(px):
                errorbars(ax, px, prow, color="C0", label="ping-pong (two ranks)", linestyle="--")
                allx += list(px)
                allt += list(pt)
        bytes_axis(ax, allx)
        value_axis(ax, allt, "time (µs)", log=True)
        ax.set_title("contention: chain vs ping-pong")
        ax.legend(fontsize="small")
        figures.append(plots.save(fig, "patterns-chain", "contention chain versus message size",
                                  "Every rank sends to the next at once; the gap to the ping-pong is the cost "
                                  "of contention."))
    mesh_rows = []
    order = {d: i for i, d in enumerate(DIRECTIONS)}
    for e in [x for x in entries if x.kernel == "mesh_shift" and x.rows]:
        mesh = e.params.get("mesh")
        mesh_text = " × ".join(str(v) for v in mesh) if isinstance(mesh, (list, tuple)) else fmt(mesh)
        rows = sorted(e.rows, key=lambda r: (order.get(str(r.get("direction")), 99), str(r.get("direction")),
                                             num(r.get("bytes")) or 0))
        for r in rows:
            mesh_rows.append((html.escape(str(e.params.get("placement", "—"))), html.escape(mesh_text),
                              html.escape(str(r.get("direction", "—"))), size_text(r.get("bytes")),
                              fmt(r.get("min_rank_median_us")), fmt(r.get("max_rank_median_us"))))
    if mesh_rows:
        tables.append(table(["placement", "mesh", "direction", "size", "min per-rank median (µs)",
                              "max per-rank median (µs)"], mesh_rows,
                             "Mesh shifts: every rank sends to its neighbour in one direction at once "
                             "(like the CM-5 paper's Table 5)", numeric_from=3))
    if not figures and not tables:
        return ""
    return ('<section id="patterns"><h3>Patterns</h3>'
            f"<div class=plots>{''.join(figures)}</div>{''.join(tables)}</section>")


def _gauss_error(r: Mapping[str, Any]) -> Optional[float]:
    """The row's error_pct, or 100 (predicted - measured) / measured (as datamotion.measure.gauss)."""
    if num(r.get("error_pct")) is not None:
        return num(r["error_pct"])
    pred, meas = num(r.get("predicted_ms")), num(r.get("measured_ms"))
    return 100.0 * (pred - meas) / meas if pred is not None and meas else None


def _ms(value: Any) -> str:
    v = num(value)
    return "—" if v is None else f"{v:.2f}"


def _prediction_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = [e for e in entries if e.kernel == "gauss_elimination" and e.rows]
    if not chosen:
        return ""
    fig, ax = plots.figure()
    estimates, costs, alln, allt = [], [], [], []
    for i, e in enumerate(chosen):
        rows = sorted((r for r in e.rows if num(r.get("n")) is not None), key=lambda r: num(r["n"]))
        p = e.params.get("ranks", rows[0].get("ranks") if rows else None)
        suffix = f", P={p}" if p is not None else ""
        for field, style, what in (("predicted_ms", "--", "predicted"), ("measured_ms", "-", "measured")):
            pts = [(num(r["n"]), num(r.get(field))) for r in rows if num(r.get(field)) is not None]
            if pts:
                ax.plot([a for a, _ in pts], [b for _, b in pts], linestyle=style, marker="o" if style == "-" else "s",
                        markersize=4, color=f"C{i % 10}", label=f"{what}{suffix}")
                alln += [a for a, _ in pts]
                allt += [b for _, b in pts]
        for r in rows:
            n = num(r["n"])
            err = _gauss_error(r)
            estimates.append((f"{n:.0f} × {n + 1:.0f}", fmt(r.get("ranks", p)), _ms(r.get("predicted_ms")),
                          _ms(r.get("measured_ms")), f"{err:+.1f}" if err is not None else "—"))
            if any(k in r for k in ("reduce_double_us", "bcast_us", "compute_us", "iteration_us")):
                costs.append((f"{n:.0f} × {n + 1:.0f}", fmt(r.get("ranks", p)), fmt(r.get("reduce_double_us")),
                              fmt(r.get("reduce_int_us")), fmt(r.get("bcast_us")), fmt(r.get("compute_us")),
                              fmt(r.get("iteration_us"))))
    figures = ""
    if alln:
        bytes_axis(ax, alln, label="matrix size N (N × (N+1) matrix)", counts=True)
        value_axis(ax, allt, "time (ms)", log=True)
        ax.set_title("Gaussian elimination: predicted vs measured")
        ax.legend(fontsize="small")
        figures = plots.save(fig, "prediction-gauss", "predicted and measured time of Gaussian elimination",
                             "Predicted from the fitted models (N iterations of two reductions, a broadcast "
                             "of a row and the row updates) and measured.")
    else:
        fig.clear()
    out = ('<section id="prediction"><h3>Predicted versus measured</h3>'
           f"<div class=plots>{figures}</div>"
           + table(["matrix", "ranks", "estimated (ms)", "measured (ms)", "error (%)"], estimates,
                    "Gaussian elimination with partial pivoting: estimated and measured time (like the CM-5 "
                    "paper's Table 7); error = (estimated − measured) / measured"))
    if costs:
        out += table(["matrix", "ranks", "double reduction", "integer reduction", "broadcast of a row",
                       "computation", "time per iteration"], costs,
                      "Cost of one iteration in µs (like the CM-5 paper's Table 6)")
    return out + "</section>"
