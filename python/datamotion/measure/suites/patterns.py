"""Communication patterns on every rank: hypercube exchanges, random matchings, the
chain and torus shifts under three placements (the CM-5 paper's section 7)."""

from __future__ import annotations

import math
from typing import List

import numpy as np

from ... import _core
from ..stats import adaptive, summarize

PLACEMENTS = ("row-major", "gray", "shuffle")
DIRECTIONS = ("north", "east", "west", "south")
MATCHING_SEED = 1995


def _is_power_of_two(x: int) -> bool:
    return x >= 1 and x & (x - 1) == 0


def mesh_shape(p: int) -> tuple:
    """The logical torus (rows, cols) of p ranks: the most square factorisation
    with rows <= cols, with power-of-two sides when p is a power of two."""
    if _is_power_of_two(p):
        rows = 1 << ((p.bit_length() - 1) // 2)
    else:
        rows = max(d for d in range(1, math.isqrt(p) + 1) if p % d == 0)
    return rows, p // rows


def random_matchings(p: int, count: int, seed: int) -> List[List[int]]:
    """`count` random perfect matchings of p ranks as partner vectors (with an
    odd p, one rank sits out as -1), from numpy's Generator seeded by `seed`."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        order = rng.permutation(p)
        partner = [-1] * p
        for a, b in zip(order[0:p - 1:2], order[1:p:2]):
            partner[int(a)], partner[int(b)] = int(b), int(a)
        out.append(partner)
    return out


def chain_partners(p: int) -> List[int]:
    """Rank i with p-1-i: every pair crosses the middle (the middle rank of an odd p sits out)."""
    return [p - 1 - i if p - 1 - i != i else -1 for i in range(p)]


def suite_patterns(comm, quick=False, validate=False, progress=None) -> List[dict]:
    """The CM-5 paper's section 7 and contention patterns on all ranks: hypercube
    exchanges along d = 1 .. log2 P dimensions in sequence; random perfect
    matchings (one median per matching, so a row's samples are the distribution
    over matchings and `spread` its max / min); the chain (rank i with P-1-i);
    and one-step torus shifts in each direction under the row-major, Gray-code
    and shuffle placements (the last two only with power-of-two sides), with the
    fastest and slowest rank's median. Patterns needing more ranks are skipped."""
    p = comm.size
    if p < 2:
        return []
    sizes = [8, 4096, 65536] if quick else [8, 64, 512, 4096, 16384, 32768, 65536, 262144, 1 << 20]
    results = []

    def tick():
        if progress:
            progress()

    hyper = []
    for d in range(1, p.bit_length()):  # 2^d <= p
        for nbytes in sizes:
            samples = adaptive(comm, lambda reps: _core.bench_hypercube(comm, d, nbytes, reps, 2, validate), quick)
            if comm.rank == 0:
                hyper.append({"dimension": d, "bytes": nbytes, "ranks": 2 ** d, **summarize(samples)})
            tick()
    results.append({"kernel": "hypercube", "params": {}, "rows": hyper})

    count, reps = (10, 5) if quick else (100, 10)
    matchings = comm.bcast(random_matchings(p, count, MATCHING_SEED) if comm.rank == 0 else None, root=0)
    rows = []
    for nbytes in sizes:
        medians = [float(np.median(_core.bench_matching(comm, partner, nbytes, reps, 1, validate)))
                   for partner in matchings]
        if comm.rank == 0:
            low = min(medians)
            rows.append({"bytes": nbytes, "ranks": p, "matchings": count,
                         "spread": max(medians) / low if low > 0 else None, **summarize(medians)})
        tick()
    results.append({"kernel": "matching", "params": {"seed": MATCHING_SEED}, "rows": rows})

    chain = chain_partners(p)
    rows = []
    for nbytes in sizes:
        samples = adaptive(comm, lambda reps: _core.bench_matching(comm, chain, nbytes, reps, 2, validate), quick)
        if comm.rank == 0:
            rows.append({"bytes": nbytes, "ranks": p, **summarize(samples)})
        tick()
    results.append({"kernel": "chain", "params": {}, "rows": rows})

    mesh_rows, mesh_cols = mesh_shape(p)
    powers_of_two = _is_power_of_two(mesh_rows) and _is_power_of_two(mesh_cols)
    for placement in PLACEMENTS:
        if placement != "row-major" and not powers_of_two:
            continue  # Gray codes and bit shuffles place power-of-two sides
        rows = []
        for direction in DIRECTIONS:
            for nbytes in sizes:
                own: List[float] = []

                def measure(reps):
                    slowest, mine = _core.bench_mesh_shift(comm, mesh_rows, mesh_cols, placement, direction, nbytes,
                                                           reps, 2, validate)
                    own.extend(mine)
                    return slowest

                samples = adaptive(comm, measure, quick)
                rank_medians = comm.gather(float(np.median(own)) * 1e6, root=0)
                if comm.rank == 0:
                    rows.append({"direction": direction, "bytes": nbytes, "ranks": p,
                                 "min_rank_median_us": min(rank_medians), "max_rank_median_us": max(rank_medians),
                                 **summarize(samples)})
                tick()
        results.append({"kernel": "mesh_shift", "params": {"placement": placement, "mesh": [mesh_rows, mesh_cols]},
                        "rows": rows})
    return results

