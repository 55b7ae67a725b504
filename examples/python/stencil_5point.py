"""The 5-point 2-d stencil with one PSHIFT per step (the PSHIFT paper's Figure 5).

    .venv/bin/mpiexec -n 4 .venv/bin/python examples/python/stencil_5point.py   # the mpiexec of datamotion's MPI

Four circular shifts of `u` travel concurrently in one call; the plan is set
up once and reused every step. The centre term, which needs no neighbour, is
computed while the shifts travel (`plan.start` ... `wait`). The result is
checked against NumPy.
"""

import numpy as np

import datamotion as dm  # before mpi4py.MPI: started by another MPI's mpiexec, it stops in one line
from datamotion.launch import note_if_not_launched
from mpi4py import MPI


def run(comm=MPI.COMM_WORLD, shape=(24, 30), steps=5) -> bool:
    grid = dm.ProcessGrid(comm, dims=2, periods=[True, True])
    u0 = np.random.default_rng(5).standard_normal(shape)
    u = dm.DistArray.from_global(grid, u0)
    c0, cn, ce, cw, cs = 0.5, 0.125, 0.125, 0.125, 0.125

    # N, E, W, S: the neighbours' values at every point, as in CM Fortran's CSHIFT(src, 1, -1) ...
    plan = dm.PShift(u, [dm.CShift(-1, axis=0), dm.CShift(1, axis=1), dm.CShift(-1, axis=1), dm.CShift(1, axis=0)])
    n, e, w, s = (dm.DistArray.empty(grid, shape) for _ in range(4))  # every element is written
    for _ in range(steps):
        with plan.start([n, e, w, s], [u, u, u, u]):  # messages in flight: read u, touch no n, e, w, s
            centre = c0 * u.local
        u.local[...] = cn * n.local + ce * e.local + cw * w.local + cs * s.local + centre

    expected = u0.copy()
    for _ in range(steps):
        expected = (cn * np.roll(expected, 1, 0) + ce * np.roll(expected, -1, 1) + cw * np.roll(expected, 1, 1)
                    + cs * np.roll(expected, -1, 0) + c0 * expected)
    result = u.to_global()
    return bool(np.allclose(result, expected, rtol=1e-12, atol=1e-12))


if __name__ == "__main__":
    note_if_not_launched(__file__)
    ok = run()
    if MPI.COMM_WORLD.rank == 0:
        print("5-point stencil, 5 steps with PSHIFT:", "matches NumPy" if ok else "WRONG")
    raise SystemExit(0 if ok else 1)
