"""Vector operations: the report's section for the cvl experiments
(measure/suites/cvl.py), beside the numbers of the CVL on MPI paper."""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence

from .compare import Item, Row, one
from .format import Entry, by_kernel, first_entry, fmt, num, seed_section, size_text, table
from .plots import Plots, bytes_axis, errorbars, value_axis

TITLE = "Vector operations (the CVL on MPI paper)"
SEED = ("Hardwick, Porting a vector library: a comparison of MPI, Paris, CMMD and PVM (1994), measured on "
        "a CM-5 and other machines")
KERNELS: frozenset = frozenset({"cvl_buffer_size", "cvl_sweep", "cvl_table2", "cvl_scaling", "cvl_nesl"})
"""The kernels this section draws."""

SEED_MACHINES = "IBM SP-1, Intel Paragon and TMC CM-5 (ANL/MSU MPI), CM-5 CMMD, CM-2 Paris, Cray C90"

SEED_BUFFERS = (("Paragon MPI CVL (16 processors, Figure 2)", 4096, "chosen from the curve of Figure 2"),
                ("SP-1 MPI CVL", 4096, "default; an SP-2 switch might profit from larger buffers"),
                ("CM-5 MPI CVL", 1024, "limit: larger asynchronous buffers were unreliable"))
"""Section 3.4: the message buffer size per machine (bytes)."""

SEED_TABLE1 = (("SP-1 MPI", 7.9, 0.28, 28), ("Paragon MPI", 2.6, 0.11, 24), ("CM-5 MPI", 1.0, 0.03, 33),
               ("CM-5 CMMD", 1.0, 0.11, 9), ("CM-2 Paris", 0.34, 0.015, 22), ("C90 CAL", 220, 104, 2.1))
"""Table 1: per processor, out of cache: 64-bit additions (MFLOPS), random-permutation
bandwidth (Mwords/s) and their ratio."""

SEED_TABLE2 = (("SP-1 MPI", 520, 4100), ("Paragon MPI", 700, 1820), ("CM-5 MPI", 2000, 1940), ("CM-5 CMMD", 75, 70))
"""Table 2 (32 processors): overhead of the integer plus-reduce (µs) and the number of
out-of-cache 64-bit additions it represents (FLOPS)."""

SEED_NHALF = (("CM-5 CMMD", "4–5"), ("CM-5 MPI", "≈ 250"), ("Paragon MPI", "≈ 250"))
"""Figure 4 (32 processors): 64-bit words per processor at which a random permutation
reaches half its peak bandwidth."""

OP_LABELS = {"add": "elementwise add", "mul": "elementwise multiply", "scan": "add-scan (exclusive)",
             "reduce": "add-reduce", "permute": "random permutation", "plus-reduce overhead": "plus-reduce overhead"}


def _buffer_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cvl_buffer_size")
    if e is None:
        return ""
    x, y, rows = e.series("buffer_bytes", "mwords_per_s", where=lambda r: r.get("method") == "buffered")
    library = [r for r in e.rows if r.get("method") == "vector.permute"]
    fig, ax = plots.figure(5.2, 3.6)
    if len(x):
        ax.plot(x, y, marker="o", label="plain MPI, messages ≤ buffer")
        bytes_axis(ax, x, label="buffer (largest message) size")
    if library and num(library[0].get("mwords_per_s")):
        ax.axhline(num(library[0]["mwords_per_s"]), color="C1", linestyle="--",
                   label="vector.permute (one message per peer)")
    value_axis(ax, list(y) + [num(r.get("mwords_per_s")) or 0 for r in library], "Mwords/s per rank", log=False)
    ax.legend(fontsize=8)
    n = e.rows[0].get("elements_per_rank") if e.rows else None
    ours = plots.save(fig, "cvl buffer size", "Random-permutation bandwidth against the message buffer size",
                      f"{fmt(n)} float64 elements per rank, each sent with a 32-bit offset.")
    ours += table(["method", "buffer (bytes)", "messages per rank", "time (µs)", "Mwords/s per rank"],
                  [(r.get("method", "—"), size_text(r.get("buffer_bytes")) if r.get("buffer_bytes") else "one per peer",
                    fmt(r.get("messages_per_rank")), fmt(r.get("median_us")), fmt(r.get("mwords_per_s")))
                   for r in e.rows], "Figure 2, ours", numeric_from=1)
    seed = table(["implementation", "buffer (bytes)", "why"],
                 [(m, size_text(b), w) for m, b, w in SEED_BUFFERS],
                 "Section 3.4 and Figure 2: message buffers of MPI CVL (four per peer: sending, filling, receiving, "
                 "unpacking)")
    return seed_section(
        "cvl-buffer", "Figure 2: buffer size and permutation bandwidth",
        "The paper's MPI CVL aggregates the elements bound for one processor in fixed-size user buffers, "
        "so the buffer size is the largest message. Our library has no such knob: "
        "<code>vector.permute</code> sends everything for a peer in one message. The closest equivalent "
        "is measured here: the same random permutation in plain MPI, each message holding at most the buffer "
        "size of (offset, value) records (bucketed by owner once, before timing: a call sends, receives and writes "
        "the elements into place), beside the library's whole permute.",
        ours, seed, "Intel Paragon, IBM SP-1, TMC CM-5 (ANL/MSU MPI)")


def _sweep_section(entries: Sequence[Entry], plots: Plots) -> str:
    sweeps = by_kernel(entries, ["cvl_sweep"])
    if not sweeps:
        return ""
    fig, axes = plots.figure(10.4, 3.8, ncols=2)
    rates, times, lengths = [], [], []
    for e in sweeps:
        label = OP_LABELS.get(str(e.params.get("op")), str(e.params.get("op")))
        x, y, rows = e.series("elements_per_rank", "mwords_per_s")
        axes[0].plot(x, y, marker="o", label=label)
        errorbars(axes[1], x, rows, label=label)
        rates += list(y)
        times += [num(r.get("median_us")) for r in rows]
        lengths += list(x)
    for ax in axes:
        bytes_axis(ax, lengths, label="64-bit words per rank", counts=True)
        ax.legend(fontsize=8)
    value_axis(axes[0], rates, "Mwords/s per rank", log=True)
    value_axis(axes[1], times, "time per call (µs)", log=True)
    ours = plots.save(fig, "cvl sweep", "Rate and time of the vector operations against elements per rank",
                      "Left: the paper's Figure 4 axes (words per rank against bandwidth); right: the times.")
    rows = [(OP_LABELS.get(str(e.params.get("op")), str(e.params.get("op"))), fmt(e.params.get("t0_us")),
             fmt(e.params.get("rate_melem_per_s")), fmt(e.params.get("nhalf"))) for e in sweeps]
    ours += table(["operation", "t0 (µs)", "asymptotic Mwords/s per rank", "n½ (words per rank)"], rows,
                  "T(n) = t0 + n / r per operation, n½ = t0 r")
    seed = table(["implementation", "n½ of the random permutation (words per processor)"], SEED_NHALF,
                 "Figure 4 (32 processors), as the text reads it")
    seed += table(["implementation", "Mwords/s per processor"], [(m, f"{w:g}") for m, _, w, _ in SEED_TABLE1],
                  "Table 1: asymptotic random-permutation bandwidth")
    return seed_section(
        "cvl-sweep", "Figure 4: operations against the number of elements per rank",
        "Elementwise add, add-scan, add-reduce and a random permutation of float64 vectors with n "
        "elements per rank, on every rank of the job.",
        ours, seed, SEED_MACHINES)


def _cache_phrase(params: Mapping, ranks: Optional[float]) -> str:
    """Where the vectors of ``cvl_table2`` lived: an add's three vectors on every rank
    against the last-level cache the machine states. The paper's rates are out of
    cache; a quick run's 8 MiB vectors may not be."""
    n, cache, ranks = num(params.get("elements_per_rank")), num(params.get("last_level_cache_bytes")), ranks or 1
    if n is None or cache is None:
        return "vectors of the size given below (the machine's caches not recorded)"
    working = 3 * 8 * n * ranks  # two sources and a result per rank, all ranks sharing the cache
    mib = f"{working / 2**20:.0f} MiB for an add against a {cache / 2**20:.0f} MiB last-level cache"
    return f"out of cache ({mib})" if working > cache else f"in cache, not out of it as in the paper ({mib})"


def _table2_section(entries: Sequence[Entry], plots: Plots) -> str:
    e = first_entry(entries, "cvl_table2")
    if e is None:
        return ""
    p = e.params
    ops = [r for r in e.rows if num(r.get("ns_per_element")) is not None]
    fig, ax = plots.figure(5.2, 3.6)
    names = [OP_LABELS.get(str(r.get("op")), str(r.get("op"))) for r in ops if r.get("op") != "plus-reduce overhead"]
    values = [num(r["ns_per_element"]) for r in ops if r.get("op") != "plus-reduce overhead"]
    ax.bar(range(len(names)), values, color="#4878a8")
    ax.set_xticks(range(len(names)), names, rotation=30, ha="right", fontsize=8)
    value_axis(ax, values, "ns per element per rank", log=False)
    ours = plots.save(fig, "cvl table 2", f"Time per element of the vector operations, "
                      f"{_cache_phrase(p, num(ops[0].get('ranks')) if ops else None)}",
                      f"{fmt(p.get('elements_per_rank'))} float64 elements per rank.")
    ours += table(["operation", "elements per rank", "time (µs)", "ns per element", "Mflop/s per rank",
                   "Mwords/s per rank"],
                  [(OP_LABELS.get(str(r.get("op")), str(r.get("op"))), fmt(r.get("elements_per_rank")),
                    fmt(r.get("median_us")), fmt(r.get("ns_per_element")), fmt(r.get("mflops")),
                    fmt(r.get("mwords_per_s"))) for r in ops], "Per-element rates (Table 1's columns)")
    checked = " (checked mode: one more MPI_Allreduce per call)" if p.get("checked_mode") else ""
    ours += table(["plus-reduce overhead (µs)", "FLOPS", "Mflop/s", "Mwords/s", "ratio"],
                  [(fmt(p.get("reduce_overhead_us")), fmt(p.get("flops_equivalent")), fmt(p.get("add_mflops")),
                    fmt(p.get("permute_mwords_per_s")), fmt(p.get("ratio")))],
                  f"Table 2 and Table 1's ratio, ours{checked}", numeric_from=0)
    # The seeds' numbers as printed (no rounding).
    seed = table(["implementation", "overhead (µs)", "FLOPS"], [(m, f"{o:g}", f"{f:g}") for m, o, f in SEED_TABLE2],
                 "Table 2: overhead of the integer plus-reduce and the out-of-cache 64-bit additions it is worth "
                 "(32 processors)")
    seed += table(["implementation", "MFLOPS", "Mwords/s", "ratio"],
                  [(m, f"{f:g}", f"{w:g}", f"{r:g}") for m, f, w, r in SEED_TABLE1],
                  "Table 1: per processor, out of cache")
    return seed_section(
        "cvl-table2", "Table 2 with its FLOPS column (and Table 1)",
        "The fixed cost of an int32 plus-reduce with one element per rank, and how many out-of-cache "
        "float64 additions (per rank) it is worth; beside it the per-element rates of the operations on "
        "long vectors (the figure's title says whether they left the caches).",
        ours, seed, SEED_MACHINES)


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return [s for s in (_buffer_section(entries, plots), _sweep_section(entries, plots),
                        _table2_section(entries, plots)) if s]


# ---------------------------------------------------------------------------
# Every numbered table and figure beside ours (measure/report/compare.py)
# ---------------------------------------------------------------------------

MPI_MACHINES = ("SP-1 MPI", "Paragon MPI", "CM-5 MPI", "CM-5 CMMD")
FIGURE5_MACHINES = ("Paragon MPI", "CM-5 MPI", "CM-5 CMMD")  # what Figures 5 and 6 plot (Section 4.3)
LINEFIT_REDUCES = 5
"""The line-fit benchmark's only communication: five plus-reductions (Section 4.3)."""
NHALF_TEXT = {"CM-5 CMMD": 4.5, "CM-5 MPI": 250.0, "Paragon MPI": 250.0}
"""Figure 4 as the text reads it: 4 or 5 words for CMMD, about 250 for the MPI versions."""


def _table1_values(machine: str):
    return next((f, w, r) for m, f, w, r in SEED_TABLE1 if m == machine)


def _item_figure2(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cvl_buffer_size")
    if e is None:
        return []
    buffered = [r for r in e.rows if r.get("method") == "buffered" and num(r.get("mwords_per_s"))]
    at_4k = next((num(r["mwords_per_s"]) for r in buffered if num(r.get("buffer_bytes")) == 4096), None)
    best = max(buffered, key=lambda r: num(r["mwords_per_s"])) if buffered else None
    return [Row("bandwidth with 4 KB buffers, Paragon MPI", at_4k, _table1_values("Paragon MPI")[1],
                "Mwords/s per rank", "paper: Table 1 (Figure 2 prints no points; 4 KB is its chosen buffer)"),
            Row("buffer size with the best bandwidth", num(best.get("buffer_bytes")) if best else None, 4096, "bytes",
                "paper: the size it chose from the Paragon's curve; each machine's curve has its own best size, "
                "so the two are set side by side, not compared", compared=False)]


def _item_figure3(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cvl_scaling")
    if e is None:
        return []
    P, bw, _ = e.series("ranks", "mwords_per_s")
    out = []
    for p, b in zip(P, bw):
        for m in ("Paragon MPI", "CM-5 MPI", "CM-5 CMMD"):
            out.append(Row(f"P = {p:.0f}, {m}", b, _table1_values(m)[1], "Mwords/s per rank",
                           "paper: Table 1's asymptote, the level of Figure 3's curve"))
    if len(P) > 1:
        out.append(Row(f"per-rank bandwidth at P = {P[-1]:.0f} / at P = {P[0]:.0f}", bw[-1] / bw[0], 1.0, "×",
                       "paper: horizontal = perfect scaling"))
    return out


def _item_figure4(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cvl_sweep", op="permute")
    ours = num(e.params.get("nhalf")) if e else None
    return [Row(f"n½ of the random permutation, {m}", ours, v, "words per rank", "paper: as the text reads Figure 4")
            for m, v in NHALF_TEXT.items()]


def _overhead_us(entries) -> Optional[float]:
    e = one(entries, "cvl_table2")
    return num(e.params.get("reduce_overhead_us")) if e else None


def _item_nesl(benchmark: str):
    def rows(entries: Sequence[Entry]) -> List[Row]:
        e = one(entries, "cvl_nesl", benchmark=benchmark)
        if e is None:
            return []
        p = e.params
        out = []
        if benchmark == "linefit":
            for m, overhead, _ in SEED_TABLE2:
                if m in FIGURE5_MACHINES:
                    out.append(Row(f"fixed cost t0, {m}", num(p.get("t0_us")), LINEFIT_REDUCES * overhead, "µs",
                                   "paper: five plus-reductions at Table 2's overhead (Figure 5 prints no points)"))
            own = _overhead_us(entries)
            out.append(Row("fixed cost t0 / five of our plus-reductions", num(p.get("t0_us")) / (LINEFIT_REDUCES * own)
                           if own and num(p.get("t0_us")) is not None else None, 1.0, "×",
                           "1 = the reductions are the whole fixed cost, as the paper explains the curve"))
        out.append(Row("n½ (elements per rank at half the asymptotic rate)", num(p.get("nhalf")), None,
                       "elements per rank", "paper: \u201cvery high\u201d for the MPI versions, no number printed",
                       compared=False))
        if benchmark == "median":
            fit = one(entries, "cvl_nesl", benchmark="linefit")
            ratio = (num(p.get("nhalf")) / num(fit.params.get("nhalf"))
                     if fit and num(p.get("nhalf")) and num(fit.params.get("nhalf")) else None)
            out.append(Row("n½ of the median / n½ of the line-fit", ratio, 1.0, "×",
                           "paper: more than 1 (\u201cMPI's high communication overhead is even more apparent\u201d); "
                           "a lower bound"))
        out.append(Row("asymptotic rate", num(p.get("rate_melem_per_s")), None, "M elements/s per rank",
                       "paper: drawn, not printed", compared=False))
        return out
    return rows


def _item_table1(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cvl_table2")
    if e is None:
        return []
    p = e.params
    where = "ours: " + _cache_phrase(p, num(e.rows[0].get("ranks")) if e.rows else None)
    out = []
    for m, f, w, r in SEED_TABLE1:
        if m in MPI_MACHINES:
            out += [Row(f"64-bit additions, {m}", num(p.get("add_mflops")), f, "MFLOPS per rank", where),
                    Row(f"random permutation, {m}", num(p.get("permute_mwords_per_s")), w, "Mwords/s per rank"),
                    Row(f"ratio MFLOPS / Mwords/s, {m}", num(p.get("ratio")), r, "")]
    return out


def _item_table2(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cvl_table2")
    if e is None:
        return []
    p = e.params
    out = []
    for m, overhead, flops in SEED_TABLE2:
        out += [Row(f"plus-reduce overhead, {m}", num(p.get("reduce_overhead_us")), overhead, "µs",
                    "paper: 32 processors"),
                Row(f"out-of-cache additions it is worth, {m}", num(p.get("flops_equivalent")), flops, "FLOPS")]
    return out


ITEMS = (
    Item("cvl", "Figure 2", "buffer size against permutation bandwidth", frozenset({"cvl_buffer_size"}),
         _item_figure2, "Intel Paragon, 16 processors, MPI CVL",
         "Ours: plain MPI with the buffer as the largest message."),
    Item("cvl", "Figure 3", "permutation bandwidth against the number of ranks", frozenset({"cvl_scaling"}),
         _item_figure3, SEED_MACHINES, "Ours: the first P ranks of the job."),
    Item("cvl", "Figure 4", "bandwidth against words per rank", frozenset({"cvl_sweep"}), _item_figure4,
         "32 processors", "Ours: every rank of the job."),
    Item("cvl", "Figure 5", "the NESL line-fit benchmark", frozenset({"cvl_nesl"}), _item_nesl("linefit"),
         "Paragon MPI, CM-5 MPI and CM-5 CMMD CVL, 32 processors", "Ours: datamotion.vector on every rank."),
    Item("cvl", "Figure 6", "the NESL median benchmark", frozenset({"cvl_nesl"}), _item_nesl("median"),
         "Paragon MPI, CM-5 MPI and CM-5 CMMD CVL, 32 processors", "Ours: datamotion.vector on every rank."),
    Item("cvl", "Table 1", "out-of-cache additions and permutation bandwidth per processor", frozenset({"cvl_table2"}),
         _item_table1, SEED_MACHINES),
    Item("cvl", "Table 2", "plus-reduce overhead and the additions it is worth", frozenset({"cvl_table2"}),
         _item_table2, "32 processors of each machine"),
)
"""The CVL paper's numbered data tables and figures (Figure 1 is a diagram)."""
