"""The 4-d QCD exchange: 8 shifts of 8 arrays in one PSHIFT (the PSHIFT paper's Figure 6).

    .venv/bin/mpiexec -n 4 .venv/bin/python examples/python/qcd_exchange.py   # the mpiexec of datamotion's MPI

Each lattice site holds a 3 x 2 complex block (two local axes); the lattice
axes X, Y, Z, T are distributed. One call moves XP, XM, ..., TM by +1/-1
along their axis, concurrently, instead of eight CSHIFTs one after another.
"""

import numpy as np

import datamotion as dm  # before mpi4py.MPI: started by another MPI's mpiexec, it stops in one line
from datamotion.launch import note_if_not_launched
from mpi4py import MPI


def run(comm=MPI.COMM_WORLD, lattice=(4, 6, 4, 6)) -> bool:
    shape = (3, 2) + tuple(lattice)
    grid = dm.ProcessGrid(comm, dims=[1, 1, 0, 0, 0, 0])  # the 3 x 2 block stays on its site
    rng = np.random.default_rng(6)
    names = [f"{axis}{sign}" for axis in "XYZT" for sign in "PM"]
    sources = {name: (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(np.complex64)
               for name in names}
    src = {name: dm.DistArray.from_global(grid, value) for name, value in sources.items()}
    dst = {name: dm.DistArray.zeros(grid, shape, np.complex64) for name in names}
    shifts = [dm.CShift(+1 if name.endswith("P") else -1, axis=2 + i // 2) for i, name in enumerate(names)]

    plan = dm.PShift(src["XP"], shifts)
    plan.execute([dst[n] for n in names], [src[n] for n in names])

    ok = True
    for name, shift in zip(names, shifts):
        expected = np.roll(sources[name], -shift.shift, axis=shift.axis)
        ok = ok and np.array_equal(dst[name].to_global(), expected)
    return bool(ok)


if __name__ == "__main__":
    note_if_not_launched(__file__)
    ok = run()
    if MPI.COMM_WORLD.rank == 0:
        print("QCD exchange, 8 shifts in one PSHIFT:", "matches NumPy" if ok else "WRONG")
    raise SystemExit(0 if ok else 1)
