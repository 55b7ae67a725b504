"""Where the ranks of a job live (datamotion/measure/hosts.py, docs/hosts.md): the layout
on WORLD, SELF and a split communicator at 1-4 ranks, the one-line description for the
ways nodes reach each other, the count of messages that cross nodes, the launcher's
DATAMOTION_NODES, and a 4-rank job run as 2 emulated nodes with MPICH's cliques."""

import subprocess
import sys
import textwrap

import pytest
from dmtest import MAIN, WORLD, check_all, job_environment, mpiexec_command, run_job

from datamotion import _built_with
from datamotion._launchers import mpi_family
from datamotion.launch import job_environment as launch_environment
from datamotion.measure.hosts import Layout, crossing, describe, emulated_nodes, job_layout, layout_of, path

SIZE = WORLD.size
CLIQUES = {"MPIR_CVAR_NUM_CLIQUES": "2", "MPIR_CVAR_CLIQUES_BY_BLOCK": "1"}


@pytest.mark.parallel(nprocs=MAIN)
@pytest.mark.parametrize("which", ["world", "self", "split"])
def test_the_layout_has_every_rank_once_and_agrees_with_the_shared_communicator(which):
    """Each rank's node holds exactly the ranks its shared-memory communicator holds;
    nodes are numbered by their lowest rank; the same on every rank."""
    from mpi4py import MPI

    comm = {"world": WORLD, "self": MPI.COMM_SELF, "split": WORLD.Split(WORLD.rank % 2, -WORLD.rank)}[which]
    got = job_layout(comm)
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    mates = sorted(node.allgather(comm.rank))
    node.Free()
    lowest = [got.node_of.index(n) for n in range(got.nodes)]
    check_all(WORLD, got.rank == comm.rank and sum(got.ranks_per_node) == comm.size
              and sorted(r for r in range(comm.size) if got.same_node(r, comm.rank)) == mates
              and lowest == sorted(lowest) and got.node == got.node_of[comm.rank]
              and comm.allgather(got._replace(rank=0)) == [got._replace(rank=0)] * comm.size, str(got))
    check_all(WORLD, got.hosts >= 1)
    if which == "split":
        comm.Free()


@pytest.mark.parallel(nprocs=[1])
def test_nodes_are_numbered_by_their_lowest_rank():
    got = layout_of([0, 3, 0, 3, 4], ["a"] * 5, rank=3)
    assert got == Layout([2, 2, 1], [0, 1, 0, 1, 2], 3, 1)
    assert (got.nodes, got.node, got.same_node(0, 2), got.same_node(0, 1)) == (3, 1, True, False)


TWO_BY_TWO = Layout([2, 2], [0, 0, 1, 1], 0, 1)


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("layout,environ,text", [
    (Layout([4], [0] * 4, 0, 1), {}, "1 node x 4 ranks"),
    (Layout([1], [0], 0, 1), {"MPIR_CVAR_NUM_CLIQUES": "2"}, "1 node x 1 rank"),
    (TWO_BY_TWO, CLIQUES, "2 nodes x 2 ranks, nodes reached by UCX shared memory (MPICH cliques)"),
    (TWO_BY_TWO, {**CLIQUES, "UCX_TLS": "tcp,self", "FI_PROVIDER": "tcp"},
     "2 nodes x 2 ranks, nodes reached by TCP (MPICH cliques)"),
    (Layout([1] * 4, [0, 1, 2, 3], 0, 1), {"MPIR_CVAR_NOLOCAL": "1", "UCX_TLS": "tcp,self"},
     "4 nodes x 1 rank, nodes reached by TCP (MPIR_CVAR_NOLOCAL=1)"),
    (Layout([2, 1], [0, 0, 1], 0, 1), CLIQUES, "2 nodes x 2/1 ranks, nodes reached by UCX shared memory (MPICH cliques)"),
    (Layout([2, 2], [0, 0, 1, 1], 0, 2), {}, "2 nodes x 2 ranks, nodes reached by the network"),
    (Layout([2, 2], [0, 0, 1, 1], 0, 2), {"UCX_TLS": "tcp"}, "2 nodes x 2 ranks, nodes reached by TCP"),
], ids=["one-node", "one-clique", "cliques-shm", "cliques-tcp", "nolocal-tcp", "uneven", "hosts", "hosts-tcp"])
def test_the_description_says_nodes_ranks_and_path(layout, environ, text):
    assert describe(layout, environ) == text


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("environ,way", [
    ({}, None), ({"UCX_TLS": "tcp,self"}, "TCP"), ({"UCX_TLS": "sm,self"}, "UCX shared memory"),
    ({"UCX_TLS": "^tcp"}, "UCX shared memory"), ({"UCX_TLS": "^shm"}, "TCP"), ({"UCX_TLS": "rc,self"}, "UCX rc,self"),
    ({"FI_PROVIDER": "tcp"}, "TCP"), ({"MPIR_CVAR_CH4_NETMOD": "ofi", "FI_PROVIDER": "shm"}, "OFI shm"),
    ({"MPIR_CVAR_CH4_NETMOD": "ofi", "UCX_TLS": "tcp"}, None),
])
def test_the_path_is_what_the_network_module_is_told(environ, way):
    assert path(environ) == way


@pytest.mark.parallel(nprocs=MAIN)
def test_crossing_counts_the_sent_messages_to_other_nodes_over_every_rank():
    """Each rank sends 8 bytes to every other rank (and receives as much, and copies
    locally): with nodes of two consecutive ranks, the messages whose ends are on
    different nodes cross, counted once, at the sender."""
    layout = layout_of([r - r % 2 for r in range(SIZE)], ["a"] * SIZE, WORLD.rank)
    messages = [{"peer": -1, "bytes": 80, "sending": True}]
    for peer in range(SIZE):
        if peer != WORLD.rank:
            messages += [{"peer": peer, "bytes": 8, "sending": True}, {"peer": peer, "bytes": 8, "sending": False}]
    pairs = sum(1 for a in range(SIZE) for b in range(SIZE) if a // 2 != b // 2)
    check_all(WORLD, crossing(WORLD, messages, layout) == (pairs, 8 * pairs))
    # Through the node leaders: one message per ordered pair of nodes, the same bytes.
    for m in messages:
        m["transport"] = "aggregate"
    nodes = (SIZE + 1) // 2
    check_all(WORLD, crossing(WORLD, messages, layout) == (nodes * (nodes - 1), 8 * pairs))


@pytest.mark.parallel(nprocs=[1])
def test_datamotion_nodes_sets_the_cliques_or_refuses_in_one_line():
    mpich = "MPICH 5.0.2"
    assert emulated_nodes("2", 4, mpich) == CLIQUES
    assert emulated_nodes("4", 4, "Intel MPI 2021.10") == {**CLIQUES, "MPIR_CVAR_NUM_CLIQUES": "4"}
    for value, nprocs, mpi, words in [("3", 4, mpich, "DATAMOTION_NODES=3 does not divide 4 ranks"),
                                      ("two", 4, mpich, "a positive integer"), ("0", 4, mpich, "a positive integer"),
                                      ("2", 4, "Open MPI 4.1.4", "needs MPICH")]:
        with pytest.raises(ValueError, match=words):
            emulated_nodes(value, nprocs, mpi)
    env = launch_environment(4, {"PATH": "/bin"})
    assert "MPIR_CVAR_NUM_CLIQUES" not in env and env["MPIR_CVAR_CH4_PROGRESS_THROTTLE"] == "1"
    if mpi_family(_built_with.MPI) == "MPICH":
        assert launch_environment(4, {"DATAMOTION_NODES": "2"})["MPIR_CVAR_NUM_CLIQUES"] == "2"


@pytest.mark.parallel(nprocs=[1])
def test_the_cli_refuses_nodes_that_do_not_divide_the_ranks_in_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "datamotion", "demo", "--np", "4"], cwd=tmp_path,
                          env=job_environment(DATAMOTION_NODES="3"), capture_output=True, text=True, timeout=120)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 1 and len(lines) == 1, (done.returncode, done.stdout, done.stderr)
    assert lines[0] == "datamotion: error: DATAMOTION_NODES=3 does not divide 4 ranks into equal nodes"


# Across the two nodes: a redistribution from a 1 x 4 grid to 4 x 1 sends a piece
# from every rank to every other, 8 of the 12 between the nodes.
JOB = textwrap.dedent("""
    import numpy as np
    from mpi4py import MPI
    import datamotion as dm
    from datamotion.measure.hosts import crossing, job_description, job_layout

    comm = MPI.COMM_WORLD
    x = np.arange(64 * 64, dtype=np.float64).reshape(64, 64)
    a = dm.DistArray.from_global(dm.ProcessGrid(dims=[1, 4]), x)
    b = dm.DistArray.from_global(dm.ProcessGrid(dims=[4, 1]), np.zeros_like(x))
    plan = dm.RedistPlan(a, b, executor="pack")
    plan.execute(a, b)
    ok = comm.allreduce(bool(np.array_equal(b.to_global(), x)), op=MPI.LAND)
    layout, text = job_layout(comm), job_description(comm)
    crossed = crossing(comm, plan.messages())
    if comm.rank == 0:
        print(f"{layout.ranks_per_node} {layout.node_of} | {text} | {crossed} | {'ok' if ok else 'WRONG'}", flush=True)
""")


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.skipif(mpi_family(_built_with.MPI) != "MPICH", reason="emulated nodes are MPICH's cliques")
@pytest.mark.skipif(mpiexec_command(4) is None, reason="no mpiexec beside this Python or on PATH")
def test_a_job_with_cliques_sees_two_nodes_and_counts_what_crosses(tmp_path):
    done = run_job(JOB, 4, tmp_path, **CLIQUES)
    assert done.returncode == 0, done.stdout
    assert done.stdout.strip().splitlines()[-1] == (
        "[2, 2] [0, 0, 1, 1] | 2 nodes x 2 ranks, nodes reached by UCX shared memory (MPICH cliques) "
        f"| (8, {8 * 16 * 16 * 8}) | ok"), done.stdout
