"""The 27-point 3-d stencil from chained PSHIFTs (the PSHIFT paper's Figure 7), and
the same stencil in halo mode.

    .venv/bin/mpiexec -n 4 .venv/bin/python examples/python/stencil_27point.py   # the mpiexec of datamotion's MPI

Shifting along axis 0 gives 3 arrays; shifting each of them along axis 1
gives 9; shifting those along axis 2 gives all 27 neighbours. Results of one
PSHIFT are the sources of the next, as in the paper. Weights depend on the
distance from the centre (face, edge, corner). In halo mode one exchange fills
a ghost shell of width 1, edges and corners included, and the stencil reads
the 27 neighbours in place: no shifted copies at all; the centre term is
computed while the ghosts travel. Both are checked against
NumPy.
"""

import itertools

import numpy as np

import datamotion as dm  # before mpi4py.MPI: started by another MPI's mpiexec, it stops in one line
from datamotion.launch import note_if_not_launched
from mpi4py import MPI

WEIGHTS = {0: 0.4, 1: 0.05, 2: 0.02, 3: 0.01}  # by the number of nonzero offsets


def expected(x):
    out = np.zeros(x.shape)
    for offsets in itertools.product((-1, 0, 1), repeat=3):
        out += WEIGHTS[sum(o != 0 for o in offsets)] * np.roll(x, [-o for o in offsets], axis=(0, 1, 2))
    return out


def halo_mode(grid, x) -> np.ndarray:
    u = dm.DistArray.from_global(grid, x, ghost=1)
    result = dm.DistArray.empty(grid, x.shape)
    with dm.Halo(u, corners=True).start(u):  # the ghosts travel; the owned elements may be read
        result.local[...] = WEIGHTS[0] * u.local  # the centre needs no ghost
    g = u.local_with_ghosts
    n0, n1, n2 = u.local_shape
    for offsets in itertools.product((-1, 0, 1), repeat=3):
        if not any(offsets):
            continue
        o0, o1, o2 = (1 + o for o in offsets)
        result.local[...] += WEIGHTS[sum(o != 0 for o in offsets)] * g[o0:o0 + n0, o1:o1 + n1, o2:o2 + n2]
    return result.to_global()


def run(comm=MPI.COMM_WORLD, shape=(10, 12, 9)) -> bool:
    grid = dm.ProcessGrid(comm, dims=3, periods=[True] * 3)
    x = np.random.default_rng(27).standard_normal(shape)
    src = dm.DistArray.from_global(grid, x)

    # Level by level: {offsets so far: array shifted by them}.
    level = {(): src}
    for axis in range(3):
        sources = list(level.items())
        shifts = [dm.CShift(d, axis=axis) for _ in sources for d in (-1, 1)]
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
    want = expected(x)
    chained = np.allclose(result.to_global(), want, rtol=1e-12, atol=1e-12)
    halo = np.allclose(halo_mode(grid, x), want, rtol=1e-12, atol=1e-12)
    return bool(chained and halo)


if __name__ == "__main__":
    note_if_not_launched(__file__)
    ok = run()
    if MPI.COMM_WORLD.rank == 0:
        print("27-point stencil from three chained PSHIFTs and in halo mode:", "matches NumPy" if ok else "WRONG")
    raise SystemExit(0 if ok else 1)
