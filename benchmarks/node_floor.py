"""What the one-copy floors of the benchmarks share: the ranks of one node.

The floors (halo_vs_peers.py, cvl_permute_vs_alltoallv.py) put every rank's data in
an MPI_Win_allocate_shared window and copy straight between them, which needs every
rank of the communicator on one node.
"""

from mpi4py import MPI


def node_of(comm, needs):
    """Collective. The communicator of the ranks of `comm` on this node (rank r of
    `comm` is rank r of it), or None and why when `comm` spans several nodes;
    `needs` says what the floor does with other ranks' memory, for that reason."""
    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.rank)
    if comm.allreduce(node.size == comm.size, op=MPI.LAND):
        return node, None
    sizes = sorted(set(comm.allgather(node.size)))
    node.Free()
    return None, (f"the ranks span several nodes (ranks per node: {', '.join(map(str, sizes))} of {comm.size}); "
                  f"the one-copy floor {needs} and needs every rank on one node")
