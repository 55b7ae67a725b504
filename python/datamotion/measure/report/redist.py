"""Block-cyclic redistribution: the report's section for the redist experiments
(measure/suites/redist.py): Figures 11 and 12 (all four panels) against K and against P,
with Table 1's collectives; the K-phase variants side by side; Figure 7's
permutation blocks."""

from __future__ import annotations

import html
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .compare import Item, Row, one, pick
from .format import Entry, beside_seed, ci_text, first_entry, fmt, num, table
from .plots import Plots, errorbars, ranks_axis, value_axis, whole_number_ticks

TITLE = "Block-cyclic redistribution (the Walker-Otto paper)"
SEED = ("Walker & Otto, Redistribution of block-cyclic data distributions using MPI (1996), measured on "
        "an IBM SP-1 (Argonne's SP, MPICH 1.0.7 over Ethernet)")
KERNELS: frozenset = frozenset({"redist_expand", "redist_collectives", "redist_fig7b", "redist_schedules"})
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


PANELS = (("(a) simple schedule, wildcard receives", ("simple_sync", "simple_unsync")),
          ("(b) random schedule, synchronized", ("random_sync",)),
          ("(c) optimal schedule, nonblocking receives", ("irecv",)),
          ("(d) optimal schedule, MPI_Sendrecv", ("sendrecv",)))
"""Figures 11 and 12's four panels and the variants each draws."""
PANEL_LINES = {"simple_sync": "-", "simple_unsync": ":"}


def _against_k_section(entry: Entry, plots: Plots) -> str:
    panels = [(title, [v for v in variants if _rows(entry, variant=v)]) for title, variants in PANELS]
    panels = [(title, variants) for title, variants in panels if variants]
    if not panels:
        return ""
    fig, axes = plots.figure(width=4.2 * len(panels), height=4.0, ncols=len(panels))
    axes = axes if isinstance(axes, list) else [axes]
    ranks = sorted({int(num(r.get("ranks"))) for r in entry.rows if num(r.get("ranks")) is not None})
    values = [num(r.get("median_us")) for r in entry.rows if any(r.get("variant") in v for _, v in panels)]
    for ax, (title, variants) in zip(axes, panels):
        for i, P in enumerate(ranks):
            for v in variants:
                x, _, rows = entry.series("K", where=lambda r, P=P, v=v: (r.get("ranks"), r.get("variant")) == (P, v))
                if len(x):
                    sync = {"simple_sync": ", synchronized", "simple_unsync": ", unsynchronized"}.get(v, "")
                    errorbars(ax, x, rows, color=f"C{i}", linestyle=PANEL_LINES.get(v, "-"), label=f"P = {P}{sync}")
        ax.set_xlabel("expansion factor K (block size r → K r)")
        whole_number_ticks(ax, entry.distinct("K"))
        value_axis(ax, values, "time (µs)")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    ours = plots.save(fig, "redist figure 11 against K", "Redistribution time against the expansion factor K",
                      f"Median with 5–95% range, {_volume_text(entry)}; one curve per P (the first P ranks), "
                      f"K = {', '.join(f'{k:g}' for k in entry.distinct('K'))}.")
    seed = (f"<p>Figures 11 (IBM SP-1) and 12 (Intel Paragon) plot the time against K for "
            f"P = {', '.join(str(p) for p in TABLE1_P)}, 800 blocks of r = 4 integers per process; the paper gives "
            "them only as plots. Its text states:</p>" + _quotes(FIGURE_STATEMENTS)
            + "<p>Table 1 quotes panel (d) at K = 2 and 20 (next subsection).</p>")
    return ("<section id=redist-fig11><h3>Figures 11 and 12, panels (a)–(d): redistribution time against K</h3>"
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


# ---------------------------------------------------------------------------
# Every numbered table and figure beside ours (measure/report/compare.py)
# ---------------------------------------------------------------------------

FIGURE6 = {"send_block": ((0, 9, 6, 3), (4, 1, 10, 7), (8, 5, 2, 11)),
           "send_proc": ((0, 3, 2, 1), (1, 0, 3, 2), (2, 1, 0, 3)),
           "send_local": ((0, 2, 1, 0), (1, 0, 2, 1), (2, 1, 0, 2))}
"""Figure 6: the optimal send schedule of the reduced system K' = 3, P' = 4 (rows k, columns p):
global block, destination process and local block."""
FIGURE8A = (
    (0, 49, 98, 147, 36, 85, 134, 183, 24, 73, 122, 171, 12, 61, 110, 159),
    (144, 1, 50, 99, 180, 37, 86, 135, 168, 25, 74, 123, 156, 13, 62, 111),
    (96, 145, 2, 51, 132, 181, 38, 87, 120, 169, 26, 75, 108, 157, 14, 63),
    (48, 97, 146, 3, 84, 133, 182, 39, 72, 121, 170, 27, 60, 109, 158, 15),
    (16, 65, 114, 163, 4, 53, 102, 151, 40, 89, 138, 187, 28, 77, 126, 175),
    (160, 17, 66, 115, 148, 5, 54, 103, 184, 41, 90, 139, 172, 29, 78, 127),
    (112, 161, 18, 67, 100, 149, 6, 55, 136, 185, 42, 91, 124, 173, 30, 79),
    (64, 113, 162, 19, 52, 101, 150, 7, 88, 137, 186, 43, 76, 125, 174, 31),
    (32, 81, 130, 179, 20, 69, 118, 167, 8, 57, 106, 155, 44, 93, 142, 191),
    (176, 33, 82, 131, 164, 21, 70, 119, 152, 9, 58, 107, 188, 45, 94, 143),
    (128, 177, 34, 83, 116, 165, 22, 71, 104, 153, 10, 59, 140, 189, 46, 95),
    (80, 129, 178, 35, 68, 117, 166, 23, 56, 105, 154, 11, 92, 141, 190, 47),
)
FIGURE9A = (
    (0, 12, 24, 36, 49, 61, 73, 85, 98, 110, 122, 134, 147, 159, 171, 183),
    (1, 13, 25, 37, 50, 62, 74, 86, 99, 111, 123, 135, 144, 156, 168, 180),
    (2, 14, 26, 38, 51, 63, 75, 87, 96, 108, 120, 132, 145, 157, 169, 181),
    (3, 15, 27, 39, 48, 60, 72, 84, 97, 109, 121, 133, 146, 158, 170, 182),
    (4, 16, 28, 40, 53, 65, 77, 89, 102, 114, 126, 138, 151, 163, 175, 187),
    (5, 17, 29, 41, 54, 66, 78, 90, 103, 115, 127, 139, 148, 160, 172, 184),
    (6, 18, 30, 42, 55, 67, 79, 91, 100, 112, 124, 136, 149, 161, 173, 185),
    (7, 19, 31, 43, 52, 64, 76, 88, 101, 113, 125, 137, 150, 162, 174, 186),
    (8, 20, 32, 44, 57, 69, 81, 93, 106, 118, 130, 142, 155, 167, 179, 191),
    (9, 21, 33, 45, 58, 70, 82, 94, 107, 119, 131, 143, 152, 164, 176, 188),
    (10, 22, 34, 46, 59, 71, 83, 95, 104, 116, 128, 140, 153, 165, 177, 189),
    (11, 23, 35, 47, 56, 68, 80, 92, 105, 117, 129, 141, 154, 166, 178, 190),
)
"""Figures 8(a) and 9(a): the optimal send schedule B(k, p) and receive schedule C(k, q)
for P = 16, K = 12 (rows k, columns p); their panels (b) and (c) follow by the paper's
formulas q = floor(B / K) mod P, b = floor(B / P), p = C mod P, t = C mod K."""
SCHEDULE_TABLES = {
    "Figure 8": ("fig8_fig9", (("send_block", "(a) global block B(k, p)", lambda B: B),
                               ("send_proc", "(b) destination process", lambda B: (B // 12) % 16),
                               ("send_local", "(c) local block", lambda B: B // 16)), FIGURE8A),
    "Figure 9": ("fig8_fig9", (("recv_block", "(a) global block C(k, q)", lambda C: C),
                               ("recv_proc", "(b) source process", lambda C: C % 16),
                               ("recv_slot", "(c) local slot", lambda C: C % 12)), FIGURE9A),
}
FIGURE11_STATEMENTS = {
    "sync_over_unsync": (3.0, "(a): the unsynchronized routine up to three times faster than the synchronized one"),
    "random_over_simple": (None, "(b): the random schedule a substantial improvement over the simple one"),
    "optimal_over_unsync": (1.0, "(c): the optimal schedule comparable with the unsynchronized case"),
    "sendrecv_over_unsync": (1.0, "(d): MPI_SENDRECV comparable with the unsynchronized routine"),
}


def _schedules(entries) -> Dict:
    e = one(entries, "redist_schedules")
    return e.params.get("schedules", {}) if e is not None and isinstance(e.params.get("schedules"), Mapping) else {}


def _matching(ours, paper) -> Tuple[Optional[int], int]:
    a, b = np.asarray(ours if ours is not None else [], dtype=float), np.asarray(paper, dtype=float)
    equal = int((a == b).sum()) if a.shape == b.shape else None
    return equal, b.size


def _item_figure6(entries: Sequence[Entry]) -> List[Row]:
    tables = _schedules(entries).get("fig6", {})
    rows = []
    for field, text in (("send_block", "global block"), ("send_proc", "destination process"),
                        ("send_local", "local block")):
        equal, total = _matching(tables.get(field), FIGURE6[field])
        rows.append(Row(f"{text}: entries equal to the paper's", equal, total, "entries",
                        f"K' = 3, P' = 4: {total} entries"))
    return rows


def _schedule_item(name: str):
    def rows(entries: Sequence[Entry]) -> List[Row]:
        key, panels, printed = SCHEDULE_TABLES[name]
        tables = _schedules(entries).get(key, {})
        out = []
        for field, text, formula in panels:
            paper = [[formula(v) for v in r] for r in printed]
            equal, total = _matching(tables.get(field), paper)
            out.append(Row(f"{text}: entries equal to the paper's", equal, total, "entries", "P = 16, K = 12"))
        return out
    return rows


def _item_figure7(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "redist_fig7b")
    blocks = e.params.get("permutation_blocks", {}) if e is not None else {}
    equal, total = _matching(blocks.get("a"), FIG8_FIRST_BLOCK)
    out = [Row("layout (a) permutation block, B' = 0: entries equal to the paper's", equal, total, "entries",
               "paper: Figure 8(a), rows 0-3, columns 0-3")]
    if e is not None:
        a, b = pick(e, layout="a"), pick(e, layout="b")
        P = num(e.rows[0].get("ranks")) if e.rows else None
        # Two processes have one pairing per phase: both layouts then run the same schedule.
        same = P is not None and P <= 2
        out.append(Row(f"layout (b) / layout (a) expansion time, P = {fmt(P)}, K = 12",
                       b / a if a and b else None, 1.0, "×", "paper: both layouts keep every phase a permutation; "
                       "it times neither apart" + ("; at P = 2 the two layouts run the same schedule, so this "
                                                   "ratio times one schedule twice" if same else ""),
                       compared=False))
    return out


def _largest_p(entry: Optional[Entry]) -> Optional[int]:
    ranks = entry.distinct("ranks") if entry is not None else []
    return int(ranks[-1]) if ranks else None


def _paper_p(P: int) -> int:
    """Table 1's process count nearest ours."""
    return min(TABLE1_P, key=lambda p: abs(p - P))


def _figure_11_12(machine: str):
    def rows(entries: Sequence[Entry]) -> List[Row]:
        e = one(entries, "redist_expand")
        P = _largest_p(e)
        if P is None:
            return []
        Ks = [int(k) for k in e.distinct("K")]
        med = {(v, K): pick(e, variant=v, ranks=P, K=K) for v in VARIANTS_ALL for K in Ks}
        out = []

        def ratio_row(key, num_variant, den_variant, how):
            vals = [med[(num_variant, K)] / med[(den_variant, K)] for K in Ks
                    if med[(num_variant, K)] and med[(den_variant, K)]]
            target, text = FIGURE11_STATEMENTS[key]
            out.append(Row(f"{num_variant} / {den_variant}, {how} over K = {Ks[0]}..{Ks[-1]}, P = {P}",
                           (max(vals) if how == "largest" else float(np.median(vals))) if vals else None, target,
                           "×", "paper: " + text, compared=target is not None))

        if machine == SP1:  # Section 3.1's statements are about the SP-1
            ratio_row("sync_over_unsync", "simple_sync", "simple_unsync", "largest")
            ratio_row("random_over_simple", "random_sync", "simple_sync", "median")
            ratio_row("optimal_over_unsync", "irecv", "simple_unsync", "median")
            ratio_row("sendrecv_over_unsync", "sendrecv", "simple_unsync", "median")
        else:  # Section 3.2 says only that MPI_SENDRECV gives the Paragon's best results
            others = [v for v in VARIANTS_ALL if v != "sendrecv"]
            vals = [med[("sendrecv", K)] / min(med[(v, K)] for v in others if med[(v, K)])
                    for K in Ks if med[("sendrecv", K)] and any(med[(v, K)] for v in others)]
            out.append(Row(f"sendrecv / the fastest other variant, median over K = {Ks[0]}..{Ks[-1]}, P = {P}",
                           float(np.median(vals)) if vals else None, 1.0, "×",
                           "paper (Section 3.2): MPI_SENDRECV gives the best results on the Paragon (at most 1)"))
        paper_p = _paper_p(P)
        for K in (2, 20):
            ours = med.get(("sendrecv", K))
            out.append(Row(f"(d) sendrecv, K = {K}: ours at P = {P}, paper at P = {paper_p}",
                           ours / 1e3 if ours else None, TABLE1_MS[machine][f"redist K={K}"][TABLE1_P.index(paper_p)],
                           "ms", "paper: Table 1, the only printed points of the figure"))
        return out
    return rows


def _item_table1(entries: Sequence[Entry]) -> List[Row]:
    expand, coll = one(entries, "redist_expand"), one(entries, "redist_collectives")
    P = _largest_p(expand) or _largest_p(coll)
    if P is None:
        return []
    paper_p = _paper_p(P)
    i = TABLE1_P.index(paper_p)
    out = []
    for machine in (SP1, PARAGON):
        short = "SP-1" if machine == SP1 else "Paragon"
        for op in ("bcast", "alltoall"):
            ours = pick(coll, op=op, ranks=P)
            out.append(Row(f"{op}, {short}: ours at P = {P}, paper at P = {paper_p}", ours / 1e3 if ours else None,
                           TABLE1_MS[machine][op][i], "ms"))
        for K in (2, 20):
            ours = pick(expand, variant="sendrecv", ranks=P, K=K)
            out.append(Row(f"redist K = {K}, {short}: ours at P = {P}, paper at P = {paper_p}",
                           ours / 1e3 if ours else None, TABLE1_MS[machine][f"redist K={K}"][i], "ms"))
    return out


VARIANTS_ALL = ("sendrecv", "rsend", "irecv", "datamotion", "simple_sync", "simple_unsync", "random_sync")
_SCHEDULE_MACHINE = "schedule tables (no machine)"
_PAPER_P = "The paper: P = 3, 10, 16, 32, 64 processes, 800 blocks of r = 4 integers each; ours: the same volume."
ITEMS = (
    Item("redist", "Figure 6", "the optimal send schedule of the reduced system", frozenset({"redist_schedules"}),
         _item_figure6, _SCHEDULE_MACHINE, "Ours: datamotion.redist.optimal_schedule(4, 3)."),
    Item("redist", "Figure 7", "permutation blocks of the two layouts", frozenset({"redist_fig7b"}), _item_figure7,
         _SCHEDULE_MACHINE),
    Item("redist", "Figure 8", "the optimal send schedule, P = 16, K = 12", frozenset({"redist_schedules"}),
         _schedule_item("Figure 8"), _SCHEDULE_MACHINE, "Ours: datamotion.redist.optimal_schedule(16, 12)."),
    Item("redist", "Figure 9", "the optimal receive schedule, P = 16, K = 12", frozenset({"redist_schedules"}),
         _schedule_item("Figure 9"), _SCHEDULE_MACHINE, "Ours: datamotion.redist.optimal_schedule(16, 12)."),
    Item("redist", "Figure 11", "redistribution time against K on the IBM SP-1, panels (a)-(d)",
         frozenset({"redist_expand"}), _figure_11_12(SP1), SP1, _PAPER_P),
    Item("redist", "Figure 12", "redistribution time against K on the Intel Paragon, panels (a)-(d)",
         frozenset({"redist_expand"}), _figure_11_12(PARAGON), PARAGON, _PAPER_P),
    Item("redist", "Table 1", "broadcast, all-to-all and redistribution", frozenset({"redist_expand",
                                                                                     "redist_collectives"}),
         _item_table1, f"{SP1}; {PARAGON}", _PAPER_P),
)
"""Walker and Otto's numbered data tables and figures (Figures 1-5 and 10 are diagrams and code)."""
