"""The 27-point 3-d stencil from chained PSHIFTs (the PSHIFT paper's Figure 7).

    mpiexec -n 4 python examples/python/stencil_27point.py

Shifting along axis 0 gives 3 arrays; shifting each of them along axis 1
gives 9; shifting those along axis 2 gives all 27 neighbours. Results of one
PSHIFT are the sources of the next, as in the paper. Weights depend on the
distance from the centre (face, edge, corner). Checked against NumPy.
"""

import itertools

import numpy as np
from mpi4py import MPI

import datamotion as dm

WEIGHTS = {0: 0.4, 1: 0.05, 2: 0.02, 3: 0.01}  # by the number of nonzero offsets


def run(comm=MPI.COMM_WORLD, shape=(10, 12, 9)) -> bool:
    grid = dm.ProcessGrid(comm, dims=3)
    x = np.random.default_rng(27).standard_normal(shape)
    src = dm.DistArray.from_global(grid, x)

    # Level by level: {offsets so far: array shifted by them}.
    level = {(): src}
    for axis in range(3):
        sources = list(level.items())
        shifts = [dm.CShift(axis, d) for _ in sources for d in (-1, 1)]
        plan = dm.PShift(src, shifts)
        shifted = plan([a for _, a in sources for _ in (-1, 1)])
        nxt = {}
        for i, (offsets, a) in enumerate(sources):
            nxt[offsets + (0,)] = a
            nxt[offsets + (-1,)] = shifted[2 * i]
            nxt[offsets + (1,)] = shifted[2 * i + 1]
        level = nxt

    result = dm.DistArray.zeros(grid, shape)
    for offsets, a in level.items():
        result.local[...] += WEIGHTS[sum(o != 0 for o in offsets)] * a.local
    expected = np.zeros(shape)
    for offsets in itertools.product((-1, 0, 1), repeat=3):
        expected += WEIGHTS[sum(o != 0 for o in offsets)] * np.roll(x, [-o for o in offsets], axis=(0, 1, 2))
    return bool(np.allclose(result.to_global(), expected, rtol=1e-12, atol=1e-12))


if __name__ == "__main__":
    ok = run()
    if MPI.COMM_WORLD.rank == 0:
        print("27-point stencil from three chained PSHIFTs:", "matches NumPy" if ok else "WRONG")
    raise SystemExit(0 if ok else 1)
