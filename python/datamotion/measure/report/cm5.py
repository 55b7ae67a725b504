"""The CM-5 paper's measurements (Dincer, Bozkus, Ranka & Fox, 1995) in the report:
latency, distance, collectives, local vector operations, communication patterns and
the predicted Gaussian elimination."""

from __future__ import annotations

import html
from typing import Any, List, Mapping, Optional, Sequence

import numpy as np

from .format import (
    DESCRIBE,
    DIRECTIONS,
    Entry,
    by_kernel,
    ci_text,
    first_entry,
    fmt,
    model_text,
    num,
    params_text,
    r2_text,
    seed_section,
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
            _scalar_section(entries, plots), _reduction_section(entries, plots), _alignment_section(entries, plots),
            _distance_sizes_section(entries, plots), _mesh_shapes_section(entries, plots),
            _hypercube_dimension_section(entries, plots), _aggregate_section(entries, plots)]


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
    """The row's error_pct, or 100 (predicted - measured) / measured (as datamotion.predict)."""
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




# ---------------------------------------------------------------------------
# The paper's remaining tables and figures (datamotion bench cm5), each beside
# the paper's own numbers, transcribed below with the table or figure named.
# ---------------------------------------------------------------------------

SEED_MACHINE = "Thinking Machines CM-5 (33 MHz SPARC nodes, CMMD 3.0)"

TABLE1_TYPES = ("short int", "long int", "single-precision", "double-precision")
TABLE1_OUR_TYPES = ("int16", "int32", "float32", "float64")
"""Our element type for each of Table 1's columns (long int was 32 bits on the SPARC)."""
TABLE1_US = {
    ("a&s1&s2", "add"): (0.23, 0.24, 0.24, 0.24),
    ("a&s1&s2", "subtract"): (0.23, 0.24, 0.24, 0.24),
    ("a&s1&s2", "multiply"): (0.24, 0.24, 0.23, 0.23),
    ("a&s1&s2", "divide"): (0.24, 0.24, 0.24, 0.24),
    ("a&s1&s2", "madd"): (0.23, 0.24, 0.24, 0.24),
    ("a&b&c", "add"): (0.36, 0.37, 0.43, 0.52),
    ("a&b&c", "subtract"): (0.37, 0.37, 0.43, 0.52),
    ("a&b&c", "multiply"): (0.91, 0.92, 0.43, 0.55),
    ("a&b&c", "divide"): (1.76, 1.77, 0.94, 1.37),
    ("a&b&c", "madd"): (0.44, 0.45, 0.79, 0.58),
    ("a&b&s", "add"): (0.31, 0.31, 0.36, 0.41),
    ("a&b&s", "subtract"): (0.31, 0.31, 0.36, 0.41),
    ("a&b&s", "multiply"): (0.70, 0.71, 0.36, 0.44),
    ("a&b&s", "divide"): (1.56, 1.56, 0.90, 1.03),
    ("a&b&s", "madd"): (0.36, 0.36, 0.74, 0.64),
}
"""Table 1: execution time (µs) of one statement on the SPARC, operands in cache."""
SECTION41_MOPS = {"madd": 22.0, "other": 11.0}
"""Section 4.1, operands in registers: 22 Mips (Mflops) for add-multiply, 11 for the other operations."""
OPERAND_TEXT = {"registers": "registers", "a&s1&s2": "a[i] & s1 & s2", "a&b&c": "a[i] & b[j] & c[k]",
                "a&b&s": "a[i] & b[i] & s"}
SCALAR_OP_TEXT = {"add": "add", "subtract": "subtract", "multiply": "multiply", "divide": "divide",
                  "madd": "add & multiply"}

TABLE4_OPS = ("add", "max", "min", "ior", "xor", "and")
TABLE4_US = {
    ("scan", "integer"): (6.33, 6.41, 5.47, 6.08, 6.06, 5.17),
    ("scan", "unsigned int."): (6.30, 5.54, 5.50, 6.06, 6.06, 5.16),
    ("scan", "double-precision"): (33.70, 21.28, 20.37, None, None, None),
    ("segmented scan", "integer"): (6.95, 6.80, 6.13, 6.77, 6.77, 5.89),
    ("segmented scan", "unsigned int."): (6.96, 6.24, 6.15, 6.76, 6.73, 5.85),
    ("segmented scan", "double-precision"): (57.35, 19.93, 20.31, None, None, None),
    ("reduction", "integer"): (4.62, 4.36, 4.03, 4.35, 4.38, 3.71),
    ("reduction", "unsigned int."): (4.61, 3.98, 4.00, 4.33, 4.34, 3.70),
    ("reduction", "double-precision"): (28.38, 14.24, 17.32, None, None, None),
}
"""Table 4: global operations on a 32-node CM-5 (µs); None where the paper prints '-'."""
REDUCTION_OP_ORDER = ("sum", "prod", "max", "min", "band", "bor", "bxor", "land", "lor")
OUR_TABLE4_OP = {"add": "sum", "max": "max", "min": "min", "ior": "bor", "xor": "bxor", "and": "band"}
OUR_TABLE4_ROW = {"scan": "scan", "segmented scan": "segscan", "reduction": "allreduce"}
OUR_TABLE4_TYPE = {"integer": ("int32", "int64"), "unsigned int.": ("uint32",), "double-precision": ("float64",)}

EQUATION1 = (84.65, 0.117)
"""Equation 1 (Figure 5): T(l) = 84.65 + 0.117 l µs between nearest neighbours, aligned messages."""
SAWTOOTH_TEXT = ("Figures 5 and 6 (32-node CM-5, 0–10 KB and 320–576 bytes): the curve looks thick because of a "
                 "sawtooth from data alignment; a data packet carries 16 bytes of user data, and the time dips to a "
                 "local minimum at aligned lengths. Unaligned transfers cost more; between byte-, word- and "
                 "double-word-aligned data the differences are negligible. Asymptotic rate about 8.5 MB/s (Figure 7).")
DISTANCE_TEXT = (("Figure 8", "16 bytes", "512-node CM-5: time from node 0 hardly depends on the destination; "
                  "about 1 µs more per fat-tree level crossed"),
                 ("Figure 9", "1 Kilobyte", "512-node CM-5: nearest neighbour and farthest node differ by less "
                  "than 5 µs, for short and long messages alike"))

TABLE5_MS = {
    ("16x32", 16): (3.83, 3.58, 4.21, 4.01, 3.86, 3.62, 3.84, 3.56),
    ("16x32", 32): (8.29, 7.96, 7.34, 7.12, 7.34, 7.10, 7.55, 7.03),
    ("16x32", 64): (16.55, 15.99, 16.16, 15.56, 17.47, 16.78, 16.24, 15.56),
    ("8x64", 16): (5.05, 4.69, 3.86, 3.60, 3.91, 3.59, 3.85, 3.55),
    ("8x64", 32): (7.87, 7.53, 7.24, 7.00, 7.26, 6.98, 7.31, 6.92),
    ("8x64", 64): (14.92, 14.48, 15.65, 15.25, 16.26, 15.86, 16.80, 16.27),
    ("4x128", 16): (3.92, 3.73, 4.74, 4.50, 4.54, 3.58, 3.92, 3.71),
    ("4x128", 32): (7.51, 7.13, 7.43, 6.96, 7.81, 6.94, 7.51, 7.11),
    ("4x128", 64): (15.69, 13.60, 14.18, 13.63, 15.74, 15.17, 16.48, 16.01),
    ("2x256", 16): (3.93, 3.41, 4.79, 4.52, 3.89, 3.60, 3.93, 3.39),
    ("2x256", 32): (8.53, 7.63, 7.45, 6.97, 9.26, 6.92, 7.60, 7.38),
    ("2x256", 64): (16.24, 15.70, 16.18, 15.67, 15.68, 15.21, 15.07, 14.45),
}
"""Table 5: mesh shifts on a 512-node CM-5 (ms), (mesh, KB) -> max, min for north, east, west, south."""
FIGURE15_TEXT = ("Figure 15 (512-node CM-5, a logical hypercube on node numbers): the time to swap data along "
                 "each dimension is about the same for every dimension (all six curves almost horizontal, though "
                 "dimension 8 crosses five fat-tree levels) and scales linearly with the message size; the rate "
                 "is between 3.3 and 3.6 MB/s.")
FIGURE15_MBPS = (3.3, 3.6)

PEAK_GFLOPS = {
    ("float64", "a=b+s"): (19.51, 1.26, 4.77, 9.25), ("float64", "a=b+c"): (13.53, 0.88, 3.42, 6.84),
    ("float64", "a=b*s"): (19.51, 1.26, 4.77, 9.25), ("float64", "a=b*c"): (13.49, 0.88, 3.42, 6.84),
    ("float64", "a=s*b+c"): (27.31, 1.76, 6.84, 13.59), ("float64", "a=b*c+d*e"): (25.23, 1.64, 6.55, 12.84),
    ("float32", "a=b+s"): (11.17, 0.71, 2.86, 5.52), ("float32", "a=b+c"): (9.10, 0.57, 2.28, 4.56),
    ("float32", "a=b*s"): (11.15, 0.71, 2.86, 5.52), ("float32", "a=b*c"): (9.05, 0.58, 2.28, 4.77),
    ("float32", "a=s*b+c"): (18.20, 1.15, 4.56, 9.53), ("float32", "a=b*c+d*e"): (19.82, 1.25, 4.92, 9.83),
}
"""Tables 2 (double) and 3 (single precision): one node's R_inf (Mflop/s) and the peak rate
(Gflop/s) on 64, 256 and 512 nodes."""
PEAK_NODES = (64, 256, 512)



def _seed_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], caption: str, numeric_from: int = 1) -> str:
    """A table of the paper's numbers as printed ('-' where it has none)."""
    cells = [[html.escape(str(c)) if isinstance(c, str) else ("-" if c is None else f"{c:g}") for c in r]
             for r in rows]
    return table(headers, cells, caption, numeric_from=numeric_from)


def _seed_text(items: Sequence[str]) -> str:
    return "".join(f"<p>{html.escape(t)}</p>" for t in items)


def _scalar_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cm5_scalar_ops")
    if e is None:
        return ""
    forms = [f for f in OPERAND_TEXT if any(r.get("operands") == f for r in e.rows)]
    ops = [o for o in SCALAR_OP_TEXT if any(r.get("op") == o for r in e.rows)]
    dtypes = [d for d in TABLE1_OUR_TYPES if any(r.get("dtype") == d for r in e.rows)]
    cell = {(r.get("operands"), r.get("op"), r.get("dtype")): r for r in e.rows}
    fig, axes = plots.figure(width=3.4 * max(1, len(forms)), height=3.8, ncols=max(1, len(forms)))
    axes = axes if isinstance(axes, list) else [axes]
    width = 0.8 / max(1, len(dtypes))
    for ax, form in zip(axes, forms):
        for j, dtype in enumerate(dtypes):
            ys = [num(cell.get((form, op, dtype), {}).get("ns_per_statement")) or 0.0 for op in ops]
            ax.bar(np.arange(len(ops)) + (j - (len(dtypes) - 1) / 2) * width, ys, width, label=dtype,
                   color=f"C{j}")
        ax.set_xticks(np.arange(len(ops)), [SCALAR_OP_TEXT[o].replace(" & ", "&\n") for o in ops], fontsize="small")
        ax.set_title(OPERAND_TEXT[form], fontsize="medium")
        ax.set_ylabel("ns per statement")
    axes[0].legend(fontsize="small")
    figure = plots.save(fig, "cm5-scalar-ops", "time of one scalar statement by operation, type and operands",
                        "Median time of one statement, loops compiled without auto-vectorisation; madd is "
                        "x = x + y·z (two operations).")
    rows = []
    for form in forms:
        for op in ops:
            rs = [cell.get((form, op, d), {}) for d in dtypes]
            rows.append([html.escape(OPERAND_TEXT[form]), html.escape(SCALAR_OP_TEXT[op])]
                        + [f"{fmt(r.get('ns_per_statement'))} <span class=ci>({fmt(r.get('mops'))})</span>"
                           for r in rs])
    ours = figure + table(["operands", "operation"] + list(dtypes), rows,
                          "Scalar arithmetic: ns per statement (Mop/s)", numeric_from=2)
    seed_rows = [[OPERAND_TEXT[f], SCALAR_OP_TEXT[o], *TABLE1_US[(f, o)]] for (f, o) in TABLE1_US]
    seed = (_seed_table(["operands", "operation", *TABLE1_TYPES], seed_rows,
                        "Table 1: µs per statement on the SPARC, operands in cache", numeric_from=2)
            + _seed_text([f"Section 4.1, operands in registers: {SECTION41_MOPS['madd']:g} Mips (Mflops) for "
                          f"add-multiply, {SECTION41_MOPS['other']:g} for every other operation, the same for "
                          "every operation."]))
    return seed_section(
        "cm5-scalar", "Scalar arithmetic (Table 1)",
        "One arithmetic statement on one rank, operands in registers or in cache, by operation and "
        "element type.",
        ours, seed, SEED_MACHINE)


def _reduction_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cm5_reduction_ops")
    if e is None:
        return ""
    counts = sorted({int(num(r.get("count"))) for r in e.rows if num(r.get("count")) is not None})
    count = counts[0] if counts else 1
    at = [r for r in e.rows if num(r.get("count")) == count]
    colls = [c for c in ("reduce", "allreduce", "scan", "segscan") if any(r.get("collective") == c for r in at)]
    dtypes = [d for d in ("int32", "uint32", "int64", "float32", "float64") if any(r.get("dtype") == d for r in at)]
    ops = [o for o in REDUCTION_OP_ORDER if any(r.get("op") == o for r in at)]
    cell = {(r.get("collective"), r.get("dtype"), r.get("op")): r for r in at}
    fig, axes = plots.figure(width=4.0 * max(1, len(colls)), height=4.0, ncols=max(1, len(colls)))
    axes = axes if isinstance(axes, list) else [axes]
    width = 0.8 / max(1, len(dtypes))
    allt = []
    for ax, coll in zip(axes, colls):
        for j, dtype in enumerate(dtypes):
            ys = [num(cell.get((coll, dtype, op), {}).get("median_us")) for op in ops]
            xs = [i + (j - (len(dtypes) - 1) / 2) * width for i, y in enumerate(ys) if y is not None]
            ys = [y for y in ys if y is not None]
            ax.bar(xs, ys, width, label=dtype, color=f"C{j}")
            allt += ys
        ax.set_xticks(np.arange(len(ops)), ops, fontsize="small", rotation=45)
        ax.set_title(coll, fontsize="medium")
        ax.set_ylabel("time (µs)")
    axes[0].legend(fontsize="small")
    ranks = e.params.get("ranks")
    figure = plots.save(fig, "cm5-reduction-ops", "reduction and scan time by operator and element type",
                        html.escape(f"Median time of the slowest rank, {count} element(s) per rank"
                                    + (f", {ranks} ranks" if ranks is not None else "") + "."))
    rows = [[html.escape(c), html.escape(d)] + [fmt(cell.get((c, d, o), {}).get("median_us")) for o in ops]
            for c in colls for d in dtypes if any((c, d, o) in cell for o in ops)]
    ours = figure + table(["collective", "type"] + list(ops), rows,
                          f"Median µs, {count} element(s) per rank (allreduce is the paper's reduction, "
                          "segscan its segmented scan, bor/bxor/band its ior/xor/and)", numeric_from=2)
    longer = [(r.get("collective"), r.get("dtype"), r.get("op"), r) for r in e.rows if num(r.get("count")) != count]
    if longer:
        ours += table(["collective", "type", "operator", "elements", "median (µs)"],
                      [[html.escape(str(c)), html.escape(str(d)), html.escape(str(o)), fmt(r.get("count")),
                        fmt(r.get("median_us"))] for c, d, o, r in longer],
                      "Longer vectors", numeric_from=3)
    seed_rows = [[op_name, type_name, *vals] for (op_name, type_name), vals in TABLE4_US.items()]
    seed = _seed_table(["operation", "type", *TABLE4_OPS], seed_rows,
                       "Table 4: global operations on a 32-node CM-5 (µs)", numeric_from=2)
    return seed_section(
        "cm5-reductions", "Reductions and scans by operator and type (Table 4)",
        "Every MPI reduction operator on every element type, as MPI_Reduce, MPI_Allreduce and MPI_Scan, "
        "with the segmented scans, on all ranks.",
        ours, seed, SEED_MACHINE)


def _alignment_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cm5_alignment")
    if e is None:
        return ""
    offsets = e.distinct("offset")
    fig, ax = plots.figure(width=7.5)
    allt, trows = [], []
    for i, off in enumerate(offsets):
        x, t, rows = e.series("bytes", where=lambda r, off=off: num(r.get("offset")) == off)
        if not len(x):
            continue
        ax.plot(x, t, marker="." if off else None, markersize=3, linewidth=1.0 if off == 0 else 0.8,
                color=f"C{i}", label=f"start at 64-byte boundary + {off:.0f}")
        allt += list(t)
        aligned = [ti for xi, ti in zip(x, t) if xi % 16 == 0]
        other = [ti for xi, ti in zip(x, t) if xi % 16 != 0]
        trows.append((f"{off:.0f}", str(len(x)), f"{size_text(x.min())} – {size_text(x.max())}",
                      fmt(np.median(aligned) if aligned else None), fmt(np.median(other) if other else None),
                      fmt(np.median(other) / np.median(aligned) if aligned and other else None)))
    ax.set_xlabel("message size (bytes)")
    value_axis(ax, allt, "one-way time (µs)", log=False)
    ax.set_title("ping-pong in small size steps, by buffer alignment")
    ax.legend(fontsize="small")
    figure = plots.save(fig, "cm5-alignment", "ping-pong time against size in small steps, per buffer offset",
                        "Median one-way time; a sawtooth would show as dips at multiples of the packet size.")
    ours = figure + table(["offset (bytes)", "sizes", "range", "median at l mod 16 = 0 (µs)",
                           "median elsewhere (µs)", "ratio"], trows,
                          "Sawtooth: sizes that are multiples of 16 bytes against the others")
    fig, ax = plots.figure(width=5.0, height=3.4)
    ls = np.arange(320, 577)
    ax.plot(ls, EQUATION1[0] + EQUATION1[1] * ls, color="C3")
    ax.set_xlabel("message size (bytes)")
    value_axis(ax, [], "one-way time (µs)", log=False)
    ax.set_title("Equation 1 over Figure 6's range")
    seed = (plots.save(fig, "cm5-alignment-seed", "the paper's Equation 1 over 320 to 576 bytes",
                       f"T(l) = {EQUATION1[0]:g} + {EQUATION1[1]:g} l µs (Equation 1, aligned messages); the "
                       "measured sawtooth of Figure 6 has no printed numbers.")
            + _seed_text([SAWTOOTH_TEXT]))
    return seed_section(
        "cm5-alignment", "Message alignment sawtooth (Figures 5 and 6)",
        "Ping-pong between two ranks against the message size in small steps, with the buffers starting "
        "at several offsets from a 64-byte boundary.",
        ours, seed, SEED_MACHINE)


def _distance_sizes_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cm5_distance")
    if e is None:
        return ""
    sizes = e.distinct("bytes")
    fig, ax = plots.figure(width=max(5.0, min(12.0, 2.0 + 0.5 * len(e.distinct("dst")))))
    width = 0.8 / max(1, len(sizes))
    allt, trows = [], []
    for j, nbytes in enumerate(sizes):
        x, t, rows = e.series("dst", where=lambda r, b=nbytes: num(r.get("bytes")) == b)
        if not len(x):
            continue
        ax.bar(x + (j - (len(sizes) - 1) / 2) * width, t, width, color=f"C{j}", label=size_label(nbytes))
        allt += list(t)
        trows.append((size_text(nbytes), str(len(x)), fmt(t.min()), fmt(t.max()), fmt(t.max() - t.min()),
                      f"{x[int(np.argmax(t))]:.0f}"))
    ax.set_xlabel("destination rank")
    whole_ticks(ax, e.distinct("dst"))
    value_axis(ax, allt, "one-way time (µs)", log=False)
    ax.set_title("ping-pong from rank 0 to every rank")
    ax.legend(fontsize="small", title="message size", title_fontsize="small")
    figure = plots.save(fig, "cm5-distance-sizes", "one-way time from rank 0 to every other rank at 16 B and 1 KB",
                        "Median one-way time of a ping-pong between rank 0 and each destination.")
    ours = figure + table(["size", "destinations", "fastest (µs)", "slowest (µs)", "difference (µs)",
                           "slowest destination"], trows, "Distance: spread over destinations")
    seed = table(["figure", "message", "what the text states"],
                 [(html.escape(a), html.escape(b), html.escape(c)) for a, b, c in DISTANCE_TEXT],
                 "Figures 8 and 9 (no printed numbers)", numeric_from=3)
    return seed_section(
        "cm5-distance-1k", "Distance at 16 bytes and 1 KB (Figures 8 and 9)",
        "One-way time from rank 0 to every other rank.",
        ours, seed, SEED_MACHINE)


def _mesh_shapes_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = by_kernel(entries, ("cm5_mesh_shift",))
    if not chosen:
        return ""
    order = {d: i for i, d in enumerate(DIRECTIONS)}
    fig, ax = plots.figure()
    allx, allt, trows = [], [], []
    for i, e in enumerate(chosen):
        mesh = e.params.get("mesh")
        name = "x".join(str(v) for v in mesh) if isinstance(mesh, (list, tuple)) else str(mesh)
        sizes = e.distinct("bytes")
        worst = [max(num(r.get("max_rank_median_us")) or 0.0 for r in e.rows if num(r.get("bytes")) == b)
                 for b in sizes]
        ax.plot(sizes, worst, marker="o", markersize=4, color=f"C{i % 10}", label=name)
        allx += sizes
        allt += worst
        for r in sorted(e.rows, key=lambda r: (num(r.get("bytes")) or 0, order.get(str(r.get("direction")), 9))):
            mx = num(r.get("max_rank_median_us"))
            trows.append((html.escape(name), html.escape(str(r.get("direction", "—"))), size_text(r.get("bytes")),
                          fmt(mx), fmt(r.get("min_rank_median_us")),
                          fmt(num(r.get("bytes")) / mx if mx else None)))
    bytes_axis(ax, allx)
    value_axis(ax, allt, "slowest rank's median (µs)", log=False)
    ax.set_title("torus shift: every mesh shape of the ranks")
    ax.legend(fontsize="small", title="mesh (rows x cols)", title_fontsize="small")
    figure = plots.save(fig, "cm5-mesh-shapes", "torus shift time per mesh shape",
                        "Slowest rank's median time over the four directions, per mesh shape, shuffled "
                        "row-major placement (the paper's Figure 13).")
    ours = figure + table(["mesh", "direction", "size", "max (µs)", "min (µs)", "MB/s (size / max)"], trows,
                          "Mesh shifts per shape: slowest and fastest rank's median", numeric_from=2)
    fig, ax = plots.figure(width=5.0, height=3.4)
    for i, mesh in enumerate(dict.fromkeys(m for m, _ in TABLE5_MS)):
        kb = [k for m, k in TABLE5_MS if m == mesh]
        ax.plot(kb, [max(TABLE5_MS[(mesh, k)][0::2]) for k in kb], marker="s", markersize=4, color=f"C{i}",
                label=mesh)
    ax.set_xlabel("message length (KB)")
    value_axis(ax, [], "max over directions (ms)", log=False)
    ax.legend(fontsize="small")
    ax.set_title("Table 5, 512-node CM-5")
    seed_rows = [[mesh, f"{kb} KB", *vals] for (mesh, kb), vals in TABLE5_MS.items()]
    seed = (plots.save(fig, "cm5-mesh-shapes-seed", "the paper's Table 5 drawn",
                       "Table 5's largest max over the four directions, per mesh shape.")
            + _seed_table(["mesh", "message", "N max", "N min", "E max", "E min", "W max", "W min", "S max",
                           "S min"], seed_rows, "Table 5: mesh shifts on a 512-node CM-5 (ms)", numeric_from=2)
            + _seed_text(["Mesh bandwidths are about 4 MB/s, below the 5 MB/s between arbitrary nodes, "
                          "because of contention when all nodes send long messages at once."]))
    return seed_section(
        "cm5-mesh-shapes", "Torus shifts on every mesh shape (Table 5)",
        "One-step shifts north, east, west and south on every rows × cols factorisation of the ranks.",
        ours, seed, SEED_MACHINE)


def _hypercube_dimension_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cm5_hypercube_dimension")
    if e is None:
        return ""
    fig, ax = plots.figure()
    allx, allt, trows = [], [], []
    for i, d in enumerate(e.distinct("dimension")):
        x, t, rows = e.series("bytes", where=lambda r, d=d: num(r.get("dimension")) == d)
        errorbars(ax, x, rows, color=f"C{i % 10}", label=f"dimension {d:.0f} only")
        allx += list(x)
        allt += list(t)
        trows += [(f"{d:.0f}", size_text(b), fmt(ti), fmt(b / ti if ti > 0 and b > 0 else None))
                  for b, ti in zip(x, t)]
    cumulative = first_entry(entries, "hypercube")
    if cumulative is not None and cumulative.distinct("dimension"):
        top = cumulative.distinct("dimension")[-1]
        x, t, rows = cumulative.series("bytes", where=lambda r: num(r.get("dimension")) == top)
        if len(x):
            errorbars(ax, x, rows, color="black", linestyle="--", label=f"dimensions 0..{top - 1:.0f} in sequence")
            allx += list(x)
            allt += list(t)
    bytes_axis(ax, allx)
    value_axis(ax, allt, "time (µs)", log=True)
    ax.set_title("hypercube exchange, one dimension at a time")
    ax.legend(fontsize="small")
    figure = plots.save(fig, "cm5-hypercube-dimension", "hypercube exchange time per dimension",
                        "Slowest rank's median time of one exchange along a single dimension (rank j with "
                        "j xor 2^i); dashed: all dimensions in sequence (the patterns suite), when measured.")
    ours = figure + table(["dimension", "size", "median (µs)", "MB/s"], trows,
                          "Exchange along one dimension", numeric_from=1)
    seed = (table(["quantity", "Figure 15"], [("rate (MB/s)", f"{FIGURE15_MBPS[0]:g} – {FIGURE15_MBPS[1]:g}"),
                                              ("dimensions", "0 .. 8 (512 nodes)")],
                  "Figure 15 (no printed points)", numeric_from=1)
            + _seed_text([FIGURE15_TEXT]))
    return seed_section(
        "cm5-hypercube-dimension", "Hypercube exchange per dimension (Figure 15)",
        "Every rank of the largest power-of-two prefix exchanges with its neighbour along one dimension "
        "at a time.",
        ours, seed, SEED_MACHINE)


def _aggregate_section(entries: Sequence[Entry], plots: Plots) -> str:
    chosen = by_kernel(entries, ("cm5_aggregate_flops",))
    if not chosen:
        return ""
    fig, ax = plots.figure()
    allp, trows = [], []
    shared_any = False
    for i, e in enumerate(chosen):
        p, rate, rows = e.series("ranks", "aggregate_mflops")
        if not len(p):
            continue
        label = f"{e.params.get('op', '?')} {e.params.get('dtype', '')}"
        own = np.array([not r.get("shared_cores") for r in rows])
        shared_any |= not own.all()
        # Rows where ranks share cores are each rank's speed while it runs: their sum is no machine's rate.
        ax.plot(p[own], rate[own] / 1e3, marker="o", markersize=4, color=f"C{i % 10}", label=label)
        ax.plot(p[own], p[own] * rate[0] / p[0] / 1e3, linestyle=":", linewidth=0.9, color=f"C{i % 10}")
        allp += list(p)
        trows += [(html.escape(label), fmt(r.get("ranks")), fmt(r.get("elements")),
                   "not summed: ranks share cores" if r.get("shared_cores") else
                   fmt(num(r.get("aggregate_mflops")) / 1e3), fmt(r.get("min_rank_mflops")),
                   fmt(r.get("max_rank_mflops")), fmt((num(r.get("aggregate_wall_mflops")) or 0) / 1e3 or None))
                  for r in rows]
    ranks_axis(ax, allp)
    value_axis(ax, [], "aggregate rate (Gflop/s)", log=False)
    ax.set_title("vector operations on every rank at once")
    ax.legend(fontsize="small")
    figure = plots.save(fig, "cm5-aggregate-flops", "aggregate vector rate against ranks",
                        "Sum over the ranks of flops × length / median sweep time; dotted: P times the rate "
                        "of one rank." + (" Rank counts whose ranks share cores are left out: each rank's own "
                                          "speed there counts only the time it held a core, so the sum would "
                                          "show scaling that is not there." if shared_any else ""))
    ours = figure + table(["operation", "ranks", "length", "aggregate (Gflop/s)", "slowest rank (Mflop/s)",
                           "fastest rank (Mflop/s)", "from wall time (Gflop/s)"], trows,
                          "Aggregate rate (wall time counts time a rank waited for a core)")
    seed_rows = [[op, dtype, *vals] for (dtype, op), vals in PEAK_GFLOPS.items()]
    seed = (_seed_table(["operation", "type", "R∞ one node (Mflop/s)"] + [f"{n} nodes (Gflop/s)"
                                                                           for n in PEAK_NODES],
                        seed_rows, "Tables 2 and 3: one node's R∞ and the peak rate on 64, 256, 512 nodes",
                        numeric_from=2)
            + _seed_text(["Section 9: the vector units give up to 30 Mflops per node, about 15 Gflops on a "
                          "512-node CM-5; peak rates stay close to nodes × the one-node rate."]))
    return seed_section(
        "cm5-aggregate", "Aggregate vector rate (Tables 2 and 3, peak rate)",
        "The first P ranks run the same vector operation at once, for P = 1 .. all ranks.",
        ours, seed, SEED_MACHINE)
