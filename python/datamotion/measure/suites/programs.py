"""Two programs predicted from measured primitives and measured, side by side: a
stencil time step and a redistribution (the CM-5 paper's method, section 8, on
programs of this library).

* The stencil: an ``n x n`` float64 array in blocks of rows over the ranks
  (periodic along the rows), ghost width 1; one time step is ``Halo.exchange``
  then the 5-point average in four NumPy statements into preallocated arrays
  (``programs.STENCIL_STATEMENTS``).
* The redistribution: an ``n x n`` float64 matrix from cyclic rows to blocks of
  rows, one ``RedistPlan.execute``.

Each round measures the primitives the predictions read (``exchange`` between
ranks 0 and 1 at the plans' message sizes and around them, ``memcopy`` at their
run sizes, ``ufunc`` on ghosted blocks of rows shaped like the stencil's, each
local kernel on every rank at once as the programs compute), then the programs; rounds alternate so both see
the same machine. The pooled primitives are fitted
(:func:`datamotion.measure.fit.fit_results`) and priced from the plans' messages
(:mod:`datamotion.measure.programs`). Entries ``stencil_step`` and
``redistribution``: one row per ``n`` with ``predicted_us``, the measured
``median_us`` (slowest rank) and ``error_pct``, and each round's own error.
Entry ``plan_call``: what calling a plan costs by itself (a redistribution plan
that moves nothing), measured each round and added to both predictions.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Sequence, Tuple

import numpy as np

from ...array import DistArray
from ...layout import Block, Cyclic, ProcessGrid
from ...redist import RedistPlan
from ...shift import Halo
from .. import programs
from ..constants import QUICK_SIZES, RESULTS_SCHEMA
from ..fit import fit_results
from ..memory import working_sets
from ..stats import summarize, time_call
from . import local, pt2pt

QUICK_ORDERS = (256,)
FULL_ORDERS = (256, 512, 1024, 2048)
ROUNDS = (1, 3)  # quick, full


def stencil_program(comm, n: int) -> Tuple[Callable[[], None], List[dict], int, tuple]:
    """Collective. (one time step, this rank's halo messages, its local elements,
    objects to keep alive) of the 5-point stencil on an n x n array."""
    grid = ProcessGrid(comm, dims=[comm.size, 1], periods=[True, False])
    u = DistArray.zeros(grid, (n, n), ghost=1)
    halo = Halo(u)
    g, own = u.local_with_ghosts, u.local
    rng = np.random.default_rng(comm.rank)
    own[...] = rng.standard_normal(own.shape)
    t = np.empty_like(own)

    def step() -> None:
        halo.exchange(u)
        np.add(g[:-2, 1:-1], g[2:, 1:-1], out=t)
        np.add(t, g[1:-1, :-2], out=t)
        np.add(t, g[1:-1, 2:], out=t)
        np.multiply(t, 0.25, out=own)

    return step, halo.messages(), int(own.size), (grid, u, halo, t)


def redistribution_program(comm, n: int) -> Tuple[Callable[[], None], List[dict], int, tuple]:
    """Collective. (one execution, this rank's messages, its local elements, objects
    to keep alive) of an n x n matrix from cyclic rows to blocks of rows."""
    grid = ProcessGrid(comm, dims=[comm.size, 1])
    src = DistArray.zeros(grid, (n, n), dist=[Cyclic(), Block()])
    dst = DistArray.zeros(grid, (n, n), dist=[Block(), Block()])
    src.local[...] = comm.rank + 1.0
    plan = RedistPlan(src, dst)
    return (lambda: plan.execute(src, dst)), plan.messages(), int(src.local.size), (grid, src, dst, plan)


PROGRAMS = {"stencil_step": stencil_program, "redistribution": redistribution_program}
"""Entry kernel -> the function that builds the program."""


def call_program(comm) -> Tuple[Callable[[], None], tuple]:
    """Collective. (one call, objects to keep alive) of a redistribution plan that moves
    nothing (0 x 8 arrays): what calling a plan costs by itself, its checks and
    bookkeeping, which the predictions add to the priced messages."""
    grid = ProcessGrid(comm, dims=[comm.size, 1])
    src = DistArray.zeros(grid, (0, 8), dist=[Cyclic(), Block()])
    dst = DistArray.zeros(grid, (0, 8), dist=[Block(), Block()])
    plan = RedistPlan(src, dst)
    return (lambda: plan.execute(src, dst)), (grid, src, dst, plan)


def _plan_summary(shapes: Sequence[dict]) -> Dict[str, int]:
    """Messages, bytes and runs of one rank's plan, by kind."""
    out = {"messages_sent": 0, "bytes_sent": 0, "runs_sent": 0, "messages_received": 0, "bytes_received": 0,
           "runs_received": 0, "copies": 0, "bytes_copied": 0, "runs_copied": 0}
    for m in shapes:
        kind = ("copied", "copies") if m["peer"] < 0 else ("sent", "messages_sent") if m["sending"] \
            else ("received", "messages_received")
        out[kind[1]] += 1
        out[f"bytes_{kind[0]}"] += int(m["bytes"])
        out[f"runs_{kind[0]}"] += int(m["runs"])
    return out


def _pool(rows_by_round: Sequence[dict]) -> dict:
    """One row from the same row of every round: all their samples."""
    us = np.concatenate([np.asarray(r["samples_us"], dtype=float) for r in rows_by_round]) / 1e6
    keep = {k: v for k, v in rows_by_round[0].items() if k not in ("samples_us", "ci95_us")}
    return {**keep, **summarize(us), "median_by_round_us": [float(r["median_us"]) for r in rows_by_round]}


def _predicted(predict: Callable, model: dict, call_us: float):
    """(the prediction, None), or (None, why) where the model lacks what it needs (a
    kernel its points could not fit, say)."""
    try:
        return predict(model, call_us), None
    except ValueError as exc:
        return None, str(exc)


def _error_pct(p, measured: dict):
    """100 (predicted - measured) / measured, None without a prediction."""
    return None if p is None else 100.0 * (p["total_us"] - measured["median_us"]) / measured["median_us"]


def _primitives(comm, plans: Sequence[List[dict]], blocks: Sequence[Tuple[int, int]], quick: bool) -> List[dict]:
    """Collective. The exchange, memcopy and ufunc entries the predictions read, on
    rank 0 (empty elsewhere); the local kernels run on every rank at once. memcopy
    at the plans' run sizes and over working sets two per octave up to twice the
    most a rank copies in one execution (``plans``: this rank's messages of each
    plan), ufunc on ghosted blocks of rows like the stencil's (``blocks`` and two
    shapes per octave up to twice the largest), so that every cache level the
    programs reach has points of its own."""
    shapes = [m for plan in plans for m in plan]
    sent = {int(m["bytes"]) for m in shapes if m["peer"] >= 0}
    runs = {max(1, int(round(m["bytes"] / m["runs"]))) for m in shapes if m["runs"] > 1 or m["peer"] < 0}
    copied = max([programs.copied_bytes(plan) for plan in plans] + [1 << 20])
    exchange = pt2pt.pair_entry(comm, "exchange", sorted(set(QUICK_SIZES) | sent), quick)
    memcopy = local.memcopy_entry(sorted(runs | set(working_sets(copied, smallest=64))), quick)
    widest = max(n for _, n in blocks)
    largest = 8 * max(r * n for r, n in blocks)
    swept = {(max(1, e // (8 * widest)), widest) for e in working_sets(largest, smallest=8 * 16 * widest)}
    grid = sorted(set(blocks) | swept | {(1 << k, 2 << k) for k in range(3, 9, 2)})
    ufuncs = [local.ufunc_entry(grid, quick, ghost=1, form=form) for form in programs.STENCIL_STATEMENTS]
    return [exchange, memcopy, *ufuncs] if comm.rank == 0 else []


def run(comm, quick: bool = False, validate: bool = False, progress=None) -> List[dict]:
    """Collective. The stencil step and the redistribution at each order, predicted
    from this run's primitives and measured; entries on rank 0, [] elsewhere."""
    orders = QUICK_ORDERS if quick else FULL_ORDERS
    built = {(kernel, n): make(comm, n) for kernel, make in PROGRAMS.items() for n in orders}
    gathered = {key: comm.gather(b[1], root=0) for key, b in built.items()}
    elements = {key: comm.gather(b[2], root=0) for key, b in built.items()}
    blocks = sorted({(b[2] // n, n) for (kernel, n), b in built.items() if kernel == "stencil_step"})
    call, _keep = call_program(comm)
    primitives, measured, calls = [], {key: [] for key in built}, []
    for _ in range(ROUNDS[0] if quick else ROUNDS[1]):
        primitives.append(_primitives(comm, [b[1] for b in built.values()], blocks, quick))
        calls.append(time_call(comm, call, quick))
        for key, (fn, *_rest) in built.items():
            measured[key].append(time_call(comm, fn, quick))
            if progress:
                progress()
    if comm.rank != 0:
        return []
    pooled = [{**entry, "rows": [_pool([r[k]["rows"][i] for r in primitives]) for i in range(len(entry["rows"]))]}
              for k, entry in enumerate(primitives[0])]
    model = fit_results({"schema": RESULTS_SCHEMA, "results": pooled})
    by_round_models = [fit_results({"schema": RESULTS_SCHEMA, "results": r}) for r in primitives]
    pooled_call = _pool(calls)
    call_us = pooled_call["median_us"]
    by_round_calls = [r["median_us"] for r in calls]
    results = [{"kernel": "plan_call", "params": {"ranks": comm.size, "rounds": len(calls)},
                "rows": [{"bytes": 0, "ranks": comm.size, **pooled_call}]}]
    for kernel in PROGRAMS:
        rows = []
        for n in orders:
            key = (kernel, n)
            predict = (lambda m, c: programs.stencil_step(m, gathered[key], elements[key], call_us=c)) \
                if kernel == "stencil_step" else (lambda m, c: programs.redistribution(m, gathered[key], call_us=c))
            got = _pool(measured[key])
            row = {"n": n, "bytes": 8 * n * n, "ranks": comm.size, **got, "plan_rank0": _plan_summary(gathered[key][0])}
            per_round = [_error_pct(_predicted(predict, m, c)[0], r) for m, c, r in
                         zip(by_round_models, by_round_calls, measured[key])]
            row["error_by_round_pct"] = [e for e in per_round if e is not None]
            p, why = _predicted(predict, model, call_us)
            if p is None:  # the measured times stay; the row says why there is no prediction
                rows.append({**row, "predicted_us": None, "error_pct": None, "not_predicted": why})
                continue
            slowest = p["by_rank"][p["slowest_rank"]]
            rows.append({**row, "predicted_us": p["total_us"], "error_pct": _error_pct(p, got),
                         **{k: p[k] for k in ("halo_us", "compute_us") if k in p},
                         **{k: slowest[k] for k in ("exchange_us", "on_node_us", "pack_us", "copy_us", "call_us")
                            if k in slowest},
                         "model_warnings": p["warnings"]})
        results.append({"kernel": kernel, "params": {"ranks": comm.size, "rounds": len(primitives)}, "rows": rows})
    return results
