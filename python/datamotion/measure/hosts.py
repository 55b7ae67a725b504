"""Where the ranks of a job live: how many nodes, how many ranks on each, and how the
nodes reach each other; and how many of a plan's messages cross between nodes.

A node is a set of ranks that share memory (``MPI_Comm_split_type`` with
``MPI_COMM_TYPE_SHARED``). One machine can run a job as several emulated nodes:
MPICH's cliques (``MPIR_CVAR_NUM_CLIQUES=K MPIR_CVAR_CLIQUES_BY_BLOCK=1``: K blocks
of consecutive ranks) or ``MPIR_CVAR_NOLOCAL=1`` (every rank a node of its own);
ranks of different nodes then reach each other through MPICH's network module, over
UCX shared memory unless ``UCX_TLS`` (or ``FI_PROVIDER`` for the OFI module) says
TCP. docs/hosts.md tells how. :func:`emulated_nodes` gives the variables for a job,
:func:`job_layout` what a job sees, :func:`describe` says it in one line.

Only :func:`job_layout` and :func:`crossing` load MPI (they are collective).
"""

from __future__ import annotations

import os
from typing import Dict, List, Mapping, NamedTuple, Optional, Sequence, Tuple

# How many emulated nodes the launcher of `datamotion demo/bench` makes (launch.py).
NODES_VARIABLE = "DATAMOTION_NODES"

# MPICH's cliques: K blocks of consecutive ranks, each an emulated node.
CLIQUES = "MPIR_CVAR_NUM_CLIQUES"
BY_BLOCK = "MPIR_CVAR_CLIQUES_BY_BLOCK"
# MPICH: every rank an emulated node of its own.
NOLOCAL = "MPIR_CVAR_NOLOCAL"

# UCX transports that move bytes through the memory of one machine.
_UCX_SHARED_MEMORY = ("shm", "sm", "posix", "sysv", "cma", "xpmem", "knem", "mm")


class Layout(NamedTuple):
    """The ranks of a communicator by node; nodes are numbered in the order of their
    lowest rank."""
    ranks_per_node: List[int]  # ranks of node 0, 1, ...
    node_of: List[int]         # the node of every rank of the communicator
    rank: int                  # this rank
    hosts: int                 # distinct processor names (real machines) the ranks run on

    @property
    def nodes(self) -> int:
        return len(self.ranks_per_node)

    @property
    def node(self) -> int:
        """This rank's node."""
        return self.node_of[self.rank]

    def same_node(self, a: int, b: int) -> bool:
        """Whether ranks ``a`` and ``b`` share a node."""
        return self.node_of[a] == self.node_of[b]


def layout_of(lowest: Sequence[int], names: Sequence[str], rank: int) -> Layout:
    """The layout from every rank's node's lowest rank and processor name (no MPI)."""
    order = {low: i for i, low in enumerate(sorted(set(lowest)))}
    node_of = [order[low] for low in lowest]
    return Layout([node_of.count(i) for i in range(len(order))], node_of, rank, len(set(names)))


def job_layout(comm) -> Layout:
    """Collective on ``comm``. The ranks of ``comm`` by node, the same on every rank
    but :attr:`Layout.rank`."""
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.rank)
    lowest = node.bcast(comm.rank, root=0)  # ranked by key: rank 0 of node is its lowest
    node.Free()
    everyone = comm.allgather((lowest, MPI.Get_processor_name()))
    return layout_of([low for low, _ in everyone], [name for _, name in everyone], comm.rank)


def path(environ: Mapping[str, str] = os.environ) -> Optional[str]:
    """How MPICH's network module carries messages between nodes, as the environment
    chooses it: ``"TCP"``, ``"UCX shared memory"``, ``"OFI shm"``...; None where the
    environment does not say (the module picks for itself). The module is
    ``MPIR_CVAR_CH4_NETMOD``'s, else UCX where ``UCX_TLS`` is set, else OFI where
    ``FI_PROVIDER`` is."""
    netmod = environ.get("MPIR_CVAR_CH4_NETMOD", "").lower() or \
        ("ucx" if "UCX_TLS" in environ else "ofi" if "FI_PROVIDER" in environ else "")
    if netmod == "ofi":
        provider = environ.get("FI_PROVIDER", "").lower()
        return None if not provider else "TCP" if provider.split(";")[0] == "tcp" else f"OFI {provider}"
    tls = [t.strip().lower() for t in environ.get("UCX_TLS", "").split(",") if t.strip()]
    if netmod != "ucx" or not tls:
        return None
    if tls[0].startswith("^"):  # every transport but these
        excluded = {tls[0][1:], *tls[1:]}
        return "TCP" if excluded & {"shm", "sm"} else "UCX shared memory"
    if "all" in tls or any(t in _UCX_SHARED_MEMORY for t in tls):
        return "UCX shared memory"
    return "TCP" if "tcp" in tls else f"UCX {','.join(tls)}"


def describe(layout: Layout, environ: Mapping[str, str] = os.environ) -> str:
    """One line: ``"2 nodes x 2 ranks, nodes reached by UCX shared memory (MPICH
    cliques)"``, ``"... by TCP (MPICH cliques)"``, ``"4 nodes x 1 rank, nodes reached
    by TCP (MPIR_CVAR_NOLOCAL=1)"``, ``"1 node x 4 ranks"``; uneven nodes read
    ``"2 nodes x 2/1 ranks"``. Nodes on one machine are emulated ones: MPICH's
    network module carries their messages, by UCX shared memory unless the
    environment picks another transport."""
    counts = layout.ranks_per_node
    ranks = str(counts[0]) if len(set(counts)) == 1 else "/".join(map(str, counts))
    text = f"{layout.nodes} node{'s' if layout.nodes > 1 else ''} x {ranks} rank{'' if ranks == '1' else 's'}"
    if layout.nodes == 1:
        return text
    chosen = path(environ)
    if layout.hosts >= layout.nodes:
        return f"{text}, nodes reached by {chosen or 'the network'}"
    how = f"{NOLOCAL}=1" if environ.get(NOLOCAL) == "1" else "MPICH cliques" if environ.get(CLIQUES) else \
        f"{layout.nodes} nodes on {layout.hosts} host{'s' if layout.hosts > 1 else ''}"
    return f"{text}, nodes reached by {chosen or 'UCX shared memory'} ({how})"


def job_description(comm) -> str:
    """Collective on ``comm``. :func:`describe` of :func:`job_layout`."""
    return describe(job_layout(comm))


def crossing(comm, messages: Sequence[Mapping], layout: Optional[Layout] = None) -> Tuple[int, int]:
    """Collective on ``comm``. ``(messages, bytes)``: of the messages each rank sends
    (``sending`` and ``peer`` >= 0, as a plan's ``messages()`` lists them; ``peer`` a
    rank of ``comm``, which is the plan's communicator or congruent with it), those
    to a rank on another node, summed over the ranks; the same on every rank. Those
    whose ``transport`` is ``"aggregate"`` count as one message per node pair (the
    leaders' messages), their bytes as they are."""
    layout = layout or job_layout(comm)
    mine = [m for m in messages if m["sending"] and m["peer"] >= 0 and not layout.same_node(comm.rank, m["peer"])]
    # The aggregate transport sends one message per node pair, from the node's leader.
    through_leaders = [m for m in mine if m.get("transport") == "aggregate"]
    direct = [m for m in mine if m.get("transport") != "aggregate"]
    everyone = comm.allgather((len(direct), sum(int(m["bytes"]) for m in mine),
                               {(layout.node, layout.node_of[m["peer"]]) for m in through_leaders}))
    node_pairs = set().union(*(pairs for _, _, pairs in everyone))
    return sum(n for n, _, _ in everyone) + len(node_pairs), sum(b for _, b, _ in everyone)


def sent_to(counts: Sequence[int], itemsize: int = 1) -> List[Dict]:
    """Messages in the form :func:`crossing` reads, one per rank this rank sends a
    nonzero count to (``counts[r]`` items of ``itemsize`` bytes to rank r): what an
    ``MPI_Alltoallv`` with these send counts moves, for rows without a plan."""
    return [{"peer": r, "bytes": int(c) * itemsize, "sending": True} for r, c in enumerate(counts) if c]


def emulated_nodes(nodes: str, nprocs: int, mpi: str) -> Dict[str, str]:
    """The variables that run a job of ``nprocs`` ranks as ``nodes`` emulated nodes
    (``DATAMOTION_NODES``'s value, a positive integer dividing ``nprocs``) with the
    MPI ``mpi`` (as the build recorded it: "MPICH 5.0.2"); raises ValueError with
    a one-line reason otherwise."""
    from .._launchers import mpi_family

    try:
        k = int(nodes)
    except ValueError:
        k = 0
    if k < 1:
        raise ValueError(f"{NODES_VARIABLE}={nodes!r}: give the number of nodes, a positive integer")
    if nprocs % k:
        raise ValueError(f"{NODES_VARIABLE}={k} does not divide {nprocs} ranks into equal nodes")
    if mpi_family(mpi) != "MPICH":
        raise ValueError(f"{NODES_VARIABLE}={k} needs MPICH (its cliques emulate nodes); "
                         f"this datamotion uses {mpi or 'an MPI it cannot name'}")
    return {CLIQUES: str(k), BY_BLOCK: "1"}
