"""Vector operations: the report's section for the cvl experiments
(measure/suites/cvl.py), beside the numbers of the CVL on MPI paper."""

from __future__ import annotations

from typing import List, Sequence

from .format import Entry, by_kernel, first_entry, fmt, num, seed_section, size_text, table
from .plots import Plots, bytes_axis, errorbars, value_axis

TITLE = "Vector operations (the CVL on MPI paper)"
SEED = ("Hardwick, Porting a vector library: a comparison of MPI, Paris, CMMD and PVM (1994), measured on "
        "a CM-5 and other machines")
KERNELS: frozenset = frozenset({"cvl_buffer_size", "cvl_sweep", "cvl_table2"})
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
    ours = plots.save(fig, "cvl table 2", "Time per element of the vector operations out of cache",
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
        "vectors far larger than the caches.",
        ours, seed, SEED_MACHINES)


def sections(entries: Sequence[Entry], plots: Plots) -> List[str]:
    """The HTML of this seed's subsections that have data."""
    return [s for s in (_buffer_section(entries, plots), _sweep_section(entries, plots),
                        _table2_section(entries, plots)) if s]
