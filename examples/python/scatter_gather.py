"""Distribute a matrix over a 2-d process grid, work on the local blocks, gather.

    .venv/bin/mpiexec -n 4 .venv/bin/python examples/python/scatter_gather.py   # the mpiexec of datamotion's MPI
"""

import numpy as np

import datamotion as dm  # before mpi4py.MPI: started by another MPI's mpiexec, it stops in one line
from datamotion.launch import note_if_not_launched
from mpi4py import MPI

note_if_not_launched(__file__)
comm = MPI.COMM_WORLD
grid = dm.ProcessGrid(comm, dims=2, order="news")  # extents chosen like MPI_Dims_create

# Rank 0 holds the global 9 x 10 matrix; rows go block-cyclic in blocks of 2,
# columns in CM blocks of ceil(10 / grid extent).
matrix = np.arange(90, dtype=np.float64).reshape(9, 10) if comm.rank == 0 else None
a = dm.DistArray.from_global(grid, matrix, dist=[dm.BlockCyclic(2), dm.Block()], root=0)

# `local` is a view of this rank's block: writing to it writes the distributed array.
a.local[...] *= 2.0
# Rank 0 prints every rank's line, in rank order (lines printed by several ranks at
# once reach the terminal interleaved).
lines = comm.gather(f"rank {grid.rank} at {grid.coords} of {grid.dims} owns a {a.local_shape} block", root=0)
if comm.rank == 0:
    print("\n".join(lines))

result = a.to_global(root=0)
if comm.rank == 0:
    assert np.array_equal(result, 2.0 * np.arange(90).reshape(9, 10))
    print("gathered 9 x 10 matrix: every element doubled, ok")

# Mistakes are collective: every rank gets the same error, none is left waiting.
try:
    dm.DistArray.from_global(grid, np.zeros((4, 4)), dist=dm.BlockCyclic(0))
except dm.Error as e:
    if comm.rank == 0:
        print(f"expected error on every rank: {e}")
