"""Block-cyclic redistribution: the report's section for the redist experiments
(measure/suites/redist.py): Figures 11(c), 11(d) and 12 against K and against P,
with Table 1's collectives; the K-phase variants side by side; Figure 7's
permutation blocks."""

from __future__ import annotations

import html
from typing import Dict, List, Mapping, Sequence, Tuple

from .format import Entry, beside_seed, ci_text, first_entry, fmt, num, table
from .plots import Plots, errorbars, ranks_axis, value_axis, whole_number_ticks

TITLE = "Block-cyclic redistribution (the Walker-Otto paper)"
SEED = ("Walker & Otto, Redistribution of block-cyclic data distributions using MPI (1996), measured on "
        "an IBM SP-1 (Argonne's SP, MPICH 1.0.7 over Ethernet)")
KERNELS: frozenset = frozenset({"redist_expand", "redist_collectives", "redist_fig7b"})
"""The kernels this section draws."""

SP1 = "IBM SP-1 (Argonne, Power-1 nodes, MPICH 1.0.7 over Ethernet)"
PARAGON = "Intel Paragon XP/S 5 (ORNL, 2-d mesh, MPICH 1.0.7)"

TABLE1_P = (3, 10, 16, 32, 64)
"""Table 1's process counts (also the curves of Figures 11 and 12)."""
TABLE1_MS: Dict[str, Dict[str, Tuple[float, ...]]] = {
    PARAGON: {"bcast": (1.2, 2.7, 3.2, 4.3, 5.0), "alltoall": (2.9, 5.9, 7.9, 12.2, 22.9),
              "redist K=2": (14.0, 14.6, 14.9, 15.3, 15.7), "redist K=20": (20.9, 21.8, 22.5, 23.4, 24.3)},
    SP1: {"bcast": (1.8, 3.6, 4.6, 5.4, 7.2), "alltoall": (2.4, 4.4, 5.0, 8.1, 15.2),
          "redist K=2": (7.1, 7.6, 8.0, 8.5, 9.0), "redist K=20": (10.8, 12.1, 12.3, 15.0, 15.8)},
}
"""Table 1, milliseconds: MPI_Bcast of 3200 integers from one process, MPI_Alltoall of
floor(3200 / P) integers per pair, and the MPI_Sendrecv redistribution (the algorithm of
Figures 11(d) and 12(d)) of 800 blocks of r = 4 integers per process for K = 2 and 20."""

FIGURE_STATEMENTS = (
    ("Figure 11(a)", "the unsynchronized version of the routine is up to a factor of three times faster than "
                     "the synchronized version"),
    ("Figure 11(b)", "the mild rise in redistribution time as K increases ... due to the number of communication "
                     "phases increasing linearly with K ... even though the total amount of data sent is "
                     "independent of K"),
    ("Figure 11(c)", "The optimal schedule reduces the timings so they are comparable with the unsynchronized case."),
    ("Figure 11(d)", "the version using MPI_SENDRECV is comparable in performance with the unsynchronized version "
                     "using nonblocking receives"),
    ("Figure 12(c), (d)", "Using the optimal send schedule (but still within the non-blocking receive algorithm) "
                          "gives the good results shown in Fig. 12(c). Finally, using MPI_SENDRECV ... leads to the "
                          "best performance results shown in Fig. 12(d)."),
)
"""What the text states about Figures 11 and 12, which the paper gives only as plots
(time against K for P = 3, 10, 16, 32, 64; 800 blocks of 4 integers per process)."""

VARIANT_TEXT = (
    ("Section 2.2.1", "in the unsynchronized algorithm the data can be sent in ready mode, provided a barrier "
                      "synchronization is performed after posting all the receives. This may result in improved "
                      "performance on some systems."),
    ("Section 5", "a version of the redistribution algorithm using the MPI routine MPI_SENDRECV that requires no "
                  "extra buffering ... It is also comparable in performance."),
)

FIG8_FIRST_BLOCK = ((0, 49, 98, 147), (144, 1, 50, 99), (96, 145, 2, 51), (48, 97, 146, 3))
"""Figure 8(a), rows k = 0..3 and columns p = 0..3: the permutation block of layout (a)
for P = 16, K = 12, B' = 0, the block drawn on the right of Figure 7(a). The text gives no
numbers for layout (b)."""

VARIANT_LABELS = {
    "sendrecv": "sendrecv (Fig. 10: K phases of MPI_Sendrecv)",
    "rsend": "rsend (receives posted, barrier, MPI_Rsend)",
    "irecv": "irecv (Fig. 4 phases, optimal schedule: Figs. 11(c), 12(c))",
    "datamotion": "datamotion RedistPlan",
}
VARIANT_COLORS = {"sendrecv": "tab:blue", "rsend": "tab:orange", "irecv": "tab:green", "datamotion": "tab:red"}
PYTHON_NOTE = ("The three literal variants are driven from Python: each phase is one or two mpi4py calls, about a "
               "microsecond of interpreter and binding overhead each beyond MPI's own cost, so at small volumes they "
               "pay that K times where RedistPlan's plan runs in C++.")


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    expand = first_entry(entries, "redist_expand")
    collectives = first_entry(entries, "redist_collectives")
    fig7 = first_entry(entries, "redist_fig7b")
    return [_against_k_section(expand, plots) if expand else "",
            _against_p_section(expand, collectives, plots) if expand or collectives else "",
            _variants_section(expand) if expand else "",
            _fig7_section(fig7) if fig7 else ""]


def _rows(entry: Entry, **where) -> List[Mapping]:
    return [r for r in entry.rows if all(r.get(k) == v for k, v in where.items())]


def _quotes(statements) -> str:
    return "<ul>" + "".join(f"<li><b>{html.escape(where)}</b>: “{html.escape(text)}”</li>"
                            for where, text in statements) + "</ul>"


def _volume_text(entry: Entry) -> str:
    blocks, r = entry.params.get("blocks_per_rank"), entry.params.get("r")
    dtype = html.escape(str(entry.params.get("dtype", "int32")))
    return f"{fmt(blocks)} blocks of r = {fmt(r)} {dtype} per rank" if blocks is not None else "the paper's volume"


def _against_k_section(entry: Entry, plots: Plots) -> str:
    panels = [v for v in ("irecv", "sendrecv") if _rows(entry, variant=v)]
    if not panels:
        return ""
    fig, axes = plots.figure(width=9.6, height=4.0, ncols=len(panels))
    axes = axes if isinstance(axes, list) else [axes]
    ranks = sorted({int(num(r.get("ranks"))) for r in entry.rows if num(r.get("ranks")) is not None})
    values = [num(r.get("median_us")) for r in entry.rows if r.get("variant") in panels]
    for ax, variant in zip(axes, panels):
        for P in ranks:
            x, _, rows = entry.series("K", where=lambda r, P=P, v=variant: (r.get("ranks"), r.get("variant")) == (P, v))
            if len(x):
                errorbars(ax, x, rows, label=f"P = {P}")
        ax.set_xlabel("expansion factor K (block size r → K r)")
        whole_number_ticks(ax, entry.distinct("K"))
        value_axis(ax, values, "time (µs)")
        ax.set_title({"irecv": "(c) optimal schedule, nonblocking receives",
                      "sendrecv": "(d) optimal schedule, MPI_Sendrecv"}[variant], fontsize=10)
        ax.legend(fontsize=8)
    ours = plots.save(fig, "redist figure 11 against K", "Redistribution time against the expansion factor K",
                      f"Median with 5–95% range, {_volume_text(entry)}; one curve per P (the first P ranks).")
    seed = (f"<p>Figures 11 (IBM SP-1) and 12 (Intel Paragon) plot the time against K for "
            f"P = {', '.join(str(p) for p in TABLE1_P)}, 800 blocks of r = 4 integers per process; the paper gives "
            "them only as plots. Its text states:</p>" + _quotes(FIGURE_STATEMENTS)
            + "<p>Table 1 quotes panel (d) at K = 2 and 20 (next subsection).</p>")
    return ("<section id=redist-fig11><h3>Figures 11(c), 11(d) and 12: redistribution time against K</h3>"
            + beside_seed(ours, seed, f"{SP1}; {PARAGON}") + "</section>")


def _against_p_section(expand, collectives, plots: Plots) -> str:
    fig, ax = plots.figure()
    values: List[float] = []
    ranks: List[float] = []
    Ks = sorted({int(num(r["K"])) for r in expand.rows if num(r.get("K")) is not None}) if expand else []
    Ks = sorted({Ks[0], Ks[-1]}) if Ks else []
    for K, style in zip(Ks, ("-", "--")):
        for variant in ("sendrecv", "rsend", "irecv", "datamotion"):
            x, y, rows = expand.series(
                "ranks", where=lambda r, K=K, v=variant: (r.get("K"), r.get("variant")) == (K, v))
            if len(x):
                errorbars(ax, x, rows, label=f"{variant}, K = {K}", linestyle=style, color=VARIANT_COLORS[variant])
                values += list(y)
                ranks += list(x)
    if collectives:
        for op, color in (("bcast", "tab:gray"), ("alltoall", "tab:purple")):
            x, y, rows = collectives.series("ranks", where=lambda r, op=op: r.get("op") == op)
            if len(x):
                errorbars(ax, x, rows, label=f"MPI_{op.capitalize()}", linestyle=":", marker="s", color=color)
                values += list(y)
                ranks += list(x)
    if not values:
        return ""
    ranks_axis(ax, ranks)
    value_axis(ax, values, "time (µs)")
    ax.legend(fontsize=7, ncol=2)
    ours = plots.save(fig, "redist against P", "Redistribution and collectives against the number of ranks",
                      "Median with 5–95% range against P (the first P ranks of the job); the collectives move "
                      "Table 1's volumes: bcast of the 3200 integers a rank holds, alltoall of ⌊3200/P⌋ per pair.")
    table_rows = []
    for P in sorted(set(int(p) for p in ranks)):
        cells = [str(P)]
        for K in Ks:
            row = next(iter(_rows(expand, ranks=P, K=K, variant="sendrecv")), {}) if expand else {}
            cells.append(ci_text(row.get("median_us"), row.get("ci95_us")))
        for op in ("bcast", "alltoall"):
            row = next(iter(_rows(collectives, ranks=P, op=op)), {}) if collectives else {}
            cells.append(ci_text(row.get("median_us"), row.get("ci95_us")))
        table_rows.append(cells)
    ours += table(["P"] + [f"sendrecv K = {K} (µs)" for K in Ks] + ["bcast (µs)", "alltoall (µs)"], table_rows,
                  "Medians [95% CI of the median] at each P")
    sfig, sax = plots.figure(width=5.2, height=3.6)
    for machine, color in ((SP1, "tab:blue"), (PARAGON, "tab:red")):
        short = "SP-1" if machine == SP1 else "Paragon"
        for op, style in (("redist K=2", "-"), ("redist K=20", "--"), ("alltoall", ":"), ("bcast", "-.")):
            sax.plot(TABLE1_P, TABLE1_MS[machine][op], color=color, linestyle=style, marker="o", markersize=3,
                     label=f"{short} {op}")
    ranks_axis(sax, TABLE1_P)
    value_axis(sax, [v for m in TABLE1_MS.values() for vs in m.values() for v in vs], "time (ms)")
    sax.legend(fontsize=6, ncol=2)
    seed = plots.save(sfig, "redist table 1 seed", "The paper's Table 1 against P", "Table 1 as published (ms).")
    seed += table(["machine", "operation"] + [f"P = {p}" for p in TABLE1_P],
                  [[html.escape(m.split(" (")[0]), html.escape(op)] + [fmt(v) for v in vs]
                   for m, ops in TABLE1_MS.items() for op, vs in ops.items()],
                  "Table 1 (ms): redist is the MPI_Sendrecv algorithm, 800 blocks of r = 4 integers per process",
                  numeric_from=2)
    return ("<section id=redist-ranks><h3>Redistribution against P, with Table 1's collectives</h3>"
            + beside_seed(ours, seed, f"{SP1}; {PARAGON}") + "</section>")


def _variants_section(entry: Entry) -> str:
    variants = [v for v in ("sendrecv", "rsend", "irecv", "datamotion") if _rows(entry, variant=v)]
    keys = sorted({(int(num(r["ranks"])), int(num(r["K"]))) for r in entry.rows
                   if num(r.get("ranks")) is not None and num(r.get("K")) is not None})
    rows = []
    for P, K in keys:
        got = {v: next(iter(_rows(entry, ranks=P, K=K, variant=v)), {}) for v in variants}
        first = next(r for r in got.values() if r)
        method = got.get("datamotion", {}).get("method")
        cells = [str(P), str(K), f"{fmt(first.get('r'))} → {fmt(first.get('s'))}", fmt(first.get("bytes"))]
        cells += [ci_text(got[v].get("median_us"), got[v].get("ci95_us")) for v in variants]
        base = num(got.get("datamotion", {}).get("median_us"))
        cells += [fmt(num(got[v].get("median_us")) / base) if base and num(got[v].get("median_us")) is not None
                  else "—" for v in variants if v != "datamotion"]
        cells.append(html.escape(str(method)) if method else "—")
        rows.append(cells)
    headers = (["P", "K", "r → s", "bytes moved"] + [f"{html.escape(v)} (µs)" for v in variants]
               + [f"{html.escape(v)} / datamotion" for v in variants if v != "datamotion"] + ["datamotion method"])
    ours = table(headers, rows, "Medians [95% CI] of the same redistribution, the variants interleaved in every "
                                "repetition, each checked against a NumPy oracle and RedistPlan first; bytes moved "
                                "between ranks in all", numeric_from=3)
    ours += "<ul>" + "".join(f"<li>{html.escape(VARIANT_LABELS[v])}</li>" for v in variants) + "</ul>"
    ours += f"<p>{html.escape(PYTHON_NOTE)}</p>"
    seed = "<p>The paper times no ready-mode variant; its text states:</p>" + _quotes(VARIANT_TEXT)
    return ("<section id=redist-variants><h3>The K-phase algorithm: MPI_Sendrecv, ready mode and datamotion</h3>"
            + beside_seed(ours, seed, SP1) + "</section>")


def _block_table(block, caption: str) -> str:
    if not isinstance(block, (list, tuple)) or not block:
        return ""
    width = len(block[0]) if isinstance(block[0], (list, tuple)) else 0
    return table(["k mod g \\ α"] + [str(a) for a in range(width)],
                 [[str(g)] + [fmt(v) for v in row] for g, row in enumerate(block)], caption)


def _fig7_section(entry: Entry) -> str:
    p = entry.params
    blocks = p.get("permutation_blocks") if isinstance(p.get("permutation_blocks"), Mapping) else {}
    where = f"P = {fmt(p.get('P'))}, K = {fmt(p.get('K'))}, B' = {fmt(p.get('Bprime'))}"
    ours = "".join(_block_table(blocks.get(layout), f"layout ({layout}): global block B = g B' + P K' β + α, {where}")
                   for layout in ("a", "b"))
    ours += ("<p>Layout (a) is Eq. 10, β = (α − γ) mod g; the text does not spell out layout (b), taken here "
             "as β = (α + γ) mod g (γ = k mod g). Both keep α as the column and every β once per row, so every "
             "phase stays a permutation of the processes; for g ≤ 2 they coincide.</p>")
    rows = [[html.escape(str(r.get("layout"))), fmt(r.get("ranks")), fmt(r.get("K")), fmt(r.get("g")),
             fmt(r.get("bytes")), ci_text(r.get("median_us"), r.get("ci95_us"))] for r in entry.rows]
    ours += table(["layout", "P", "K", "g = gcd(P, K)", "bytes moved", "sendrecv (µs)"], rows,
                  "The MPI_Sendrecv expansion with each layout's full schedule (receive schedule by inversion), "
                  "interleaved", numeric_from=1)
    seed = _block_table(FIG8_FIRST_BLOCK, "Figure 8(a), rows 0–3, columns 0–3: the layout (a) block of Figure 7 "
                                          "for P = 16, K = 12, B' = 0")
    seed += "<p>Figure 7 draws both layouts for g = 4; the text gives numbers for layout (a) only (Figure 8).</p>"
    return ("<section id=redist-fig7><h3>Figure 7(b): permutation blocks of the optimal schedule</h3>"
            + beside_seed(ours, seed, "schedule tables, no machine") + "</section>")
