"""The rest of the CM-5 paper's tables and figures in the report, measured by the
experiments of ``datamotion bench cm5`` (scalar and reduction operations, alignment,
distance, mesh shapes, hypercube dimensions, aggregate speed), each beside the paper's
own numbers, transcribed below with the table or figure named."""

from __future__ import annotations

import html
from typing import Any, List, Sequence

import numpy as np

from .format import (
    DIRECTIONS,
    Entry,
    by_kernel,
    first_entry,
    fmt,
    num,
    seed_section,
    size_label,
    size_text,
    table,
)
from .plots import Plots, bytes_axis, errorbars, ranks_axis, value_axis, whole_ticks


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of these subsections that have data."""
    return [_scalar_section(entries, plots), _reduction_section(entries, plots), _alignment_section(entries, plots),
            _distance_sizes_section(entries, plots), _mesh_shapes_section(entries, plots),
            _hypercube_dimension_section(entries, plots), _aggregate_section(entries, plots)]


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
EQUATION1_FIT_BYTES = 10000
"""The message lengths Equation 1 was fitted on (Figure 5: 0 to 10 KB); beyond, it is extrapolated."""
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
