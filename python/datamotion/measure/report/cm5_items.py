"""The CM-5 paper's sixteen numbered data tables and figures, each beside ours
(:mod:`.compare`): the numbers it prints that cm5_experiments.py does not already
hold (Tables 2 and 3 whole, 6 and 7, the broadcast and concatenation equations), and one
:class:`~.compare.Item` per table or figure."""

from __future__ import annotations

from typing import List, Optional, Sequence

import numpy as np

from .cm5_experiments import (EQUATION1, EQUATION1_FIT_BYTES, FIGURE15_MBPS, OPERAND_TEXT, OUR_TABLE4_OP,
                              OUR_TABLE4_ROW, OUR_TABLE4_TYPE, SCALAR_OP_TEXT, TABLE1_OUR_TYPES, TABLE1_TYPES,
                              TABLE1_US, TABLE4_OPS, TABLE4_US, TABLE5_MS)
from .compare import Item, Row, find, one, pick
from .format import Entry, num

TABLE23 = {
    ("float64", "a=b+s"): (19.51, 327, 22), ("float64", "a=b+c"): (13.53, 202, 18),
    ("float64", "a=b*s"): (19.51, 324, 22), ("float64", "a=b*c"): (13.49, 200, 16),
    ("float64", "a=s*b+c"): (27.31, 318, 18), ("float64", "a=b*c+d*e"): (25.23, 190, 16),
    ("float32", "a=b+s"): (11.17, 214, 20), ("float32", "a=b+c"): (9.10, 171, 18),
    ("float32", "a=b*s"): (11.15, 212, 22), ("float32", "a=b*c"): (9.05, 170, 20),
    ("float32", "a=s*b+c"): (18.20, 168, 28), ("float32", "a=b*c+d*e"): (19.82, 160, 20),
}
"""Tables 2 (double) and 3 (single precision), one node: R_inf (Mflop/s), N_1/2 and N_v (elements)."""
PEAK_512_GFLOPS = {
    ("float64", "a=b+s"): 9.25, ("float64", "a=b+c"): 6.84, ("float64", "a=b*s"): 9.25, ("float64", "a=b*c"): 6.84,
    ("float64", "a=s*b+c"): 13.59, ("float64", "a=b*c+d*e"): 12.84, ("float32", "a=b+s"): 5.52,
    ("float32", "a=b+c"): 4.56, ("float32", "a=b*s"): 5.52, ("float32", "a=b*c"): 4.77, ("float32", "a=s*b+c"): 9.53,
    ("float32", "a=b*c+d*e"): 9.83,
}
"""Tables 2 and 3: peak rate on 512 nodes (Gflop/s)."""
FIGURE4_MAX_ELEMENTS = 4096
"""Figure 4 draws vector lengths up to 32 KB of doubles."""
TABLE6_N = (64, 128, 256, 512)
TABLE6_US = {"reduce_double_us": (14.24, 14.24, 14.24, 14.24), "reduce_int_us": (4.36, 4.36, 4.36, 4.36),
             "bcast_us": (604.96, 1193.76, 2371.36, 4726.56), "compute_us": (31.39, 117.18, 451.96, 1774.32),
             "iteration_us": (654.95, 1329.54, 2841.92, 6519.48)}
"""Table 6: cost per iteration of Gaussian elimination on a 32-node CM-5 (µs)."""
TABLE6_TEXT = {"reduce_double_us": "double reduction (max)", "reduce_int_us": "integer reduction (max)",
               "bcast_us": "broadcast of a row", "compute_us": "computation", "iteration_us": "time per iteration"}
TABLE7_MS = {64: (41.92, 45.62), 128: (170.18, 185.52), 256: (727.53, 787.29), 512: (3337.97, 4598.69)}
"""Table 7: estimated and measured time of Gaussian elimination on a 32-node CM-5 (ms)."""
BROADCAST_32 = (6.96, 1.15)
BROADCAST_512 = (7.40, 1.24)
"""Equations 2 and 3 (Figure 11): one-to-all broadcast T(l) = a + b l µs on 32 and 512 nodes."""
CONCATENATION = (23.44, 0.975)
"""Figure 10's equation: concatenation T(l, P) = 23.44 + 0.975 P l µs."""
DISTANCE_SPREAD_US = 5.0
"""Figures 8 and 9: nearest and farthest node differ by less than 5 µs (512 nodes)."""
SAWTOOTH = (320, 576)
"""Figure 6's range of message lengths (bytes)."""

MACHINE = "32-node CM-5 (CMMD 3.0)"
NODE = "one CM-5 node with vector units"


def _eq(pair, x) -> float:
    return pair[0] + pair[1] * x


def _table1(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cm5_scalar_ops")
    rows = []
    for (form, op), values in TABLE1_US.items():
        for ours_type, paper_type, paper in zip(TABLE1_OUR_TYPES, TABLE1_TYPES, values):
            ns = pick(e, "ns_per_statement", operands=form, op=op, dtype=ours_type)
            rows.append(Row(f"{OPERAND_TEXT[form]}, {SCALAR_OP_TEXT[op]}, {paper_type} ({ours_type})",
                            ns / 1e3 if ns is not None else None, paper, "µs per statement"))
    return rows


def _vector_entry(entries, dtype, op) -> Optional[Entry]:
    return one(entries, "vector", dtype=dtype, op=op)


def _peak_per_rank(entries, dtype, op) -> Optional[Row]:
    e = one(entries, "cm5_aggregate_flops", dtype=dtype, op=op)
    if e is None:
        return None
    ranks = [r for r in e.rows if num(r.get("aggregate_mflops")) is not None and not r.get("shared_cores")]
    peak = PEAK_512_GFLOPS[(dtype, op)]
    derived = f"paper: derived, Table 2's {peak:g} Gflop/s of 512 nodes / 512"
    if not ranks:
        return Row(f"{op}: peak rate per rank", None, peak * 1e3 / 512, "Mflop/s",
                   f"every rank count shares cores: not compared; {derived}", compared=False)
    top = max(ranks, key=lambda r: num(r.get("ranks")))
    p = num(top.get("ranks"))
    return Row(f"{op}: peak rate per rank (ours at P = {p:g}, paper at 512 nodes)",
               num(top["aggregate_mflops"]) / p, peak * 1e3 / 512, "Mflop/s", derived)


def _table23(dtype: str):
    def rows(entries: Sequence[Entry]) -> List[Row]:
        out = []
        for (d, op), (rinf, nhalf, nv) in TABLE23.items():
            if d != dtype:
                continue
            e = _vector_entry(entries, dtype, op)
            p = e.params if e else {}
            out += [Row(f"{op}: R∞", num(p.get("rinf_mflops")), rinf, "Mflop/s"),
                    Row(f"{op}: N½", num(p.get("nhalf")), nhalf, "elements"),
                    Row(f"{op}: N_v (vector beats scalar from)", num(p.get("nv")), nv, "elements",
                        "" if num(p.get("nv")) is not None else "ours: the vector code never wins (memory bound)")]
            peak = _peak_per_rank(entries, dtype, op)
            if peak:
                out.append(peak)
        return out
    return rows


def _table4(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cm5_reduction_ops")
    rows = []
    for (what, paper_type), values in TABLE4_US.items():
        for op_name, paper in zip(TABLE4_OPS, values):
            if paper is None:
                continue
            ours = [pick(e, "median_us", collective=OUR_TABLE4_ROW[what], dtype=t, op=OUR_TABLE4_OP[op_name], count=1)
                    for t in OUR_TABLE4_TYPE[paper_type]]
            ours = [v for v in ours if v is not None]
            rows.append(Row(f"{what}, {op_name}, {paper_type}", ours[0] if ours else None, paper, "µs",
                            "" if ours else "not measured"))
    return rows


def _table5(entries: Sequence[Entry]) -> List[Row]:
    shifts = find(entries, "cm5_mesh_shift")
    rows = []
    for kb in (16, 32, 64):
        nbytes = kb * 1024
        ours = [num(r.get("max_rank_median_us")) for e in shifts for r in e.rows if num(r.get("bytes")) == nbytes]
        ours = [v for v in ours if v is not None]
        paper = max(max(vals[0::2]) for (mesh, k), vals in TABLE5_MS.items() if k == kb) * 1e3
        worst = max(ours) if ours else None
        rows.append(Row(f"{kb} KB: slowest rank over directions and mesh shapes", worst, paper, "µs"))
        rows.append(Row(f"{kb} KB: bandwidth per rank (size / slowest)", nbytes / worst if worst else None,
                        nbytes / paper, "MB/s"))
    return rows


def _gauss(entries: Sequence[Entry]) -> Optional[Entry]:
    """The C program's entry (benchmarks/gauss_elimination.py --out, no "program"
    parameter: the program the model prices) where one is given, else the NumPy one
    of ``datamotion bench gauss``."""
    found = find(entries, "gauss_elimination")
    return next((e for e in found if "program" not in e.params), found[0] if found else None)


def _gauss_program(e: Optional[Entry]) -> str:
    if e is None or "program" not in e.params:
        return "ours: the C program of examples/c, benchmarks/gauss_elimination.py"
    return (f"ours: {e.params['program']} (datamotion bench gauss), whose interpreter pays microseconds per call "
            "that the model, made for the C program, does not price; give benchmarks/gauss_elimination.py's "
            "--out to the report for the C program")


def _table6(entries: Sequence[Entry]) -> List[Row]:
    e = _gauss(entries)
    rows = []
    for i, n in enumerate(TABLE6_N):
        for field, values in TABLE6_US.items():
            rows.append(Row(f"{n} × {n + 1}: {TABLE6_TEXT[field]}", pick(e, field, n=n), values[i], "µs"))
    return rows


def _table7(entries: Sequence[Entry]) -> List[Row]:
    e = _gauss(entries)
    rows = []
    program = _gauss_program(e)
    params = e.params if e is not None else {}
    if params.get("loaded"):  # the driver's verdict, in the item, not only among the warnings
        share = num(params.get("others_share"))
        program += ("; LOADED: other work took " + (f"{100 * share:.0f} % of" if share is not None else "part of")
                    + " the cores' time during the run, so the measured times include its time slices")
    for n, (est, meas) in TABLE7_MS.items():
        ours_est, ours_meas = pick(e, "predicted_ms", n=n), pick(e, "measured_ms", n=n)
        rows.append(Row(f"{n} × {n + 1}: estimated", ours_est, est, "ms", program))
        rows.append(Row(f"{n} × {n + 1}: measured", ours_meas, meas, "ms", program))
        of_medians = 100.0 * (ours_est - ours_meas) / ours_meas if ours_est is not None and ours_meas else None
        err = pick(e, "error_pct", n=n)  # the driver's: the median of its rounds' errors
        note = "errors are compared by their difference, not a ratio"
        if err is None:
            err = of_medians
        elif of_medians is not None:
            note = (f"ours: the median of the rounds' errors (each round's estimate against its own measurement); "
                    f"the two medians above give {of_medians:+.1f} %; " + note)
        rows.append(Row(f"{n} × {n + 1}: error (estimated − measured) / measured", err,
                        100.0 * (est - meas) / meas, "%", note, compared=False))
    return rows


def _figure4(entries: Sequence[Entry]) -> List[Row]:
    rows = []
    for (dtype, op), (rinf, nhalf, _) in TABLE23.items():
        e = _vector_entry(entries, dtype, op)
        if dtype != "float64" or e is None:
            continue
        flops = num(e.params.get("flops_per_element")) or 1.0
        n, t, _ = e.series("elements", where=lambda r: num(r.get("median_us")) and num(r.get("elements")) <= 4096)
        for ni, ti in zip(n, t):
            rows.append(Row(f"{op}, {ni:.0f} elements", flops * ni / ti, rinf * ni / (ni + nhalf), "Mflop/s",
                            "paper: Hockney's R∞ n / (n + N½) from Table 2 (Figure 4 prints no points)"))
    return rows


def _pingpong(entries):
    return one(entries, "pingpong")


def _figure5(entries: Sequence[Entry]) -> List[Row]:
    e = _pingpong(entries)
    x, t, _ = e.series("bytes", where=lambda r: num(r.get("bytes")) <= 10240) if e else ([], [], [])
    return [Row(f"one-way time at {b:.0f} bytes", ti, _eq(EQUATION1, b), "µs", "paper: Equation 1")
            for b, ti in zip(x, t)]


def _figure6(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cm5_alignment")
    rows = []
    if e is None:
        return rows
    lo, hi = SAWTOOTH
    for aligned in (True, False):
        x, t, _ = e.series("bytes", where=lambda r: num(r.get("offset")) == 0 and lo <= num(r.get("bytes")) <= hi
                           and (num(r.get("bytes")) % 16 == 0) == aligned)
        if len(x):
            what = "lengths a multiple of 16" if aligned else "other lengths"
            rows.append(Row(f"mean one-way time, {lo}–{hi} bytes, {what}", float(np.mean(t)),
                            float(np.mean(_eq(EQUATION1, x))), "µs",
                            "paper: Equation 1 (aligned); its sawtooth is drawn, not printed"))
    return rows


def _figure7(entries: Sequence[Entry]) -> List[Row]:
    e = _pingpong(entries)
    rows = []
    if e is None:
        return rows
    x, t, _ = e.series("bytes", where=lambda r: num(r.get("bytes")) > 0)
    for b, ti in zip(x, t):
        if b in (1024, 4096, 65536) or b == x.max():
            rows.append(Row(f"transfer rate at {b:.0f} bytes", b / ti, b / _eq(EQUATION1, b), "MB/s",
                            "paper: l / Equation 1" + (
                                f", extrapolated: the equation was fitted on 0-{EQUATION1_FIT_BYTES // 1000} KB"
                                if b > EQUATION1_FIT_BYTES else "")))
    rows.append(Row("asymptotic rate", (x.max() / t.max()) if len(x) else None, 8.5, "MB/s",
                    "ours at the largest size; paper: text (1 / 0.117 µs per byte)"))
    return rows


def _distance(nbytes: int):
    def rows(entries: Sequence[Entry]) -> List[Row]:
        e = one(entries, "cm5_distance")
        x, t, _ = e.series("dst", where=lambda r: num(r.get("bytes")) == nbytes) if e else ([], [], [])
        if not len(t):
            return []
        # A spread needs two destinations; with one, the row says so instead of a 0.
        spread = float(t.max() - t.min()) if len(t) > 1 else None
        return [Row(f"{nbytes} bytes: fastest destination", float(t.min()), _eq(EQUATION1, nbytes), "µs",
                    "paper: Equation 1 (nearest neighbour)"),
                Row(f"{nbytes} bytes: slowest minus fastest destination ({len(t)} destination"
                    f"{'s' if len(t) != 1 else ''})", spread, DISTANCE_SPREAD_US, "µs",
                    "paper: less than 5 µs over 511 destinations (an upper bound)" if spread is not None else
                    "needs at least 2 destinations (3 or more ranks): not measured in this run",
                    compared=spread is not None)]
    return rows


def _collective_rows(entries, kernel, equation, label, suffix=""):
    e = one(entries, kernel)
    if e is None:
        return []
    top = max(e.distinct("ranks") or [0])
    x, t, _ = e.series("bytes", where=lambda r: num(r.get("ranks")) == top)
    return [Row(f"P = {top:.0f}, l = {b:.0f} bytes{suffix}", ti, equation(b, top), "µs", label)
            for b, ti in zip(x, t)]


def _figure10(entries: Sequence[Entry]) -> List[Row]:
    return _collective_rows(entries, "allgather", lambda b, p: CONCATENATION[0] + CONCATENATION[1] * p * b,
                            "paper: T = 23.44 + 0.975 P l (its fit over 32–512 nodes)")


def _figure11(entries: Sequence[Entry]) -> List[Row]:
    return (_collective_rows(entries, "bcast", lambda b, p: _eq(BROADCAST_32, b), "paper: Equation 2, 32 nodes",
                             " (32 nodes)")
            + _collective_rows(entries, "bcast", lambda b, p: _eq(BROADCAST_512, b), "paper: Equation 3, 512 nodes",
                               " (512 nodes)"))


def _figure15(entries: Sequence[Entry]) -> List[Row]:
    e = one(entries, "cm5_hypercube_dimension")
    rows = []
    if e is None:
        return rows
    top = max(e.distinct("bytes") or [0])
    for d in e.distinct("dimension"):
        t = pick(e, "median_us", dimension=d, bytes=top)
        rows.append(Row(f"dimension {d:.0f}, {top:.0f} bytes: rate", top / t if t else None,
                        sum(FIGURE15_MBPS) / 2, "MB/s", "paper: 3.3–3.6 MB/s for every dimension (the middle)"))
    return rows


ITEMS = (
    Item("cm5", "Table 1", "scalar arithmetic on the SPARC, operands in cache", frozenset({"cm5_scalar_ops"}),
         _table1, "one CM-5 node's 33 MHz SPARC", "Ours: one core, loops compiled without auto-vectorisation."),
    Item("cm5", "Table 2", "vector performance, double precision (R∞, N½, N_v, peak rate)",
         frozenset({"vector", "cm5_aggregate_flops"}), _table23("float64"), NODE,
         "Ours: one core's SIMD units; peak rate per rank only at rank counts without shared cores."),
    Item("cm5", "Table 3", "vector performance, single precision (R∞, N½, N_v, peak rate)",
         frozenset({"vector", "cm5_aggregate_flops"}), _table23("float32"), NODE,
         "Ours: one core's SIMD units; peak rate per rank only at rank counts without shared cores."),
    Item("cm5", "Table 4", "reductions and scans by operator and type", frozenset({"cm5_reduction_ops"}), _table4,
         MACHINE + ", control network", "Ours: MPI collectives over P ranks, one element per rank."),
    Item("cm5", "Table 5", "torus shifts on mesh shapes", frozenset({"cm5_mesh_shift"}), _table5,
         "512-node CM-5 (16x32 … 2x256 meshes)", "Ours: every mesh shape of P ranks."),
    Item("cm5", "Table 6", "cost per iteration of Gaussian elimination", frozenset({"gauss_elimination"}), _table6,
         MACHINE, "Ours: the primitives measured on P ranks, priced by the fitted models."),
    Item("cm5", "Table 7", "Gaussian elimination, estimated against measured", frozenset({"gauss_elimination"}),
         _table7, MACHINE, "Ours: the C program of Figure 16 on P ranks where benchmarks/gauss_elimination.py's "
         "--out is given to the report, else the program in NumPy + mpi4py (datamotion bench gauss)."),
    Item("cm5", "Figure 4", "vector rate against length, one node, double precision", frozenset({"vector"}),
         _figure4, NODE),
    Item("cm5", "Figure 5", "nearest-neighbour time, 0–10 KB", frozenset({"pingpong"}), _figure5, MACHINE,
         "Ours: ranks 0 and 1 in shared memory."),
    Item("cm5", "Figure 6", "the alignment sawtooth, 320–576 bytes", frozenset({"cm5_alignment"}), _figure6, MACHINE),
    Item("cm5", "Figure 7", "transfer rate between nearest neighbours", frozenset({"pingpong"}), _figure7, MACHINE),
    Item("cm5", "Figure 8", "distance at 16 bytes", frozenset({"cm5_distance"}), _distance(16),
         "512-node CM-5", "Ours: rank 0 to every other rank."),
    Item("cm5", "Figure 9", "distance at 1 KB", frozenset({"cm5_distance"}), _distance(1024), "512-node CM-5",
         "Ours: rank 0 to every other rank."),
    Item("cm5", "Figure 10", "concatenation against size and P", frozenset({"allgather"}), _figure10,
         "32- to 512-node CM-5", "Ours: MPI_Allgather at our largest P."),
    Item("cm5", "Figure 11", "one-to-all broadcast", frozenset({"bcast"}), _figure11, "32- and 512-node CM-5",
         "Ours: MPI_Bcast at our largest P."),
    Item("cm5", "Figure 15", "hypercube exchange per dimension", frozenset({"cm5_hypercube_dimension"}), _figure15,
         "512-node CM-5", "Ours: the largest power-of-two prefix of the ranks."),
)
"""The CM-5 paper's numbered data tables and figures (Figures 1-3, 12-14 and 16 are
diagrams and code)."""
