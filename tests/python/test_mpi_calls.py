"""Only the exchange layer moves data between ranks (docs/architecture.md: capabilities
describe what moves, exchange decides how). The capabilities built on the engine
(shift, redist, vector) call MPI only to reduce (Allreduce, Reduce, Scan, Exscan,
Reduce_scatter: values combined by an operator, a job MPI's own algorithms do best)
and to manage communicators, groups, attributes, datatypes, operators and timers.
Every call that delivers one rank's bytes to another (point to point, persistent
requests, all-to-all, gathers, scatters, broadcasts, neighbourhood collectives,
one-sided windows) goes through src/exchange: for the vector layer's counts and
gathers, src/exchange/collective.hpp. bench is exempt: it measures MPI itself.

Nor do they read other ranks' memory themselves: where a byte of node memory lies
for the peers (node::locate, node::maps), where a peer's byte lies here
(node::address) and which ranks share the node (node::same_node,
node::world_ranks) are asked of src/exchange/peer_memory.hpp, whose
done_reading() is the only barrier; a capability may place its own arrays in node
memory (node::allocate, take, release)."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ["src/shift", "src/redist", "src/vector"]
SUFFIXES = {".c", ".cpp", ".cc", ".h", ".hpp"}
# MPI calls that move data, with their nonblocking (I), request-based one-sided (R),
# persistent (_init) and large-count (_c) forms.
# After a prefix the name goes on in lower case (MPI_Isend, MPI_Ineighbor_alltoallw, MPI_Rget).
MOVES = ["Send", "Bsend", "Ssend", "Rsend", "Recv", "Mrecv", "Sendrecv", "Sendrecv_replace", "Psend", "Precv",
         "Start", "Startall", "Alltoall", "Alltoallv", "Alltoallw", "Allgather", "Allgatherv", "Gather", "Gatherv",
         "Scatter", "Scatterv", "Bcast", r"Neighbor_\w+", "Put", "Get", "Accumulate", "Get_accumulate",
         "Fetch_and_op", "Compare_and_swap", r"Win_\w+"]
NAMES = "|".join(f"[{name[0]}{name[0].lower()}]{name[1:]}" for name in MOVES)
CALL = re.compile(rf"\bMPI_[IR]?({NAMES})(_init)?(_c)?\s*\(")
# Comments, and string and character literals (an MPI name in a message is no call).
NOT_CODE = re.compile(r'//[^\n]*|/\*.*?\*/|"(\\.|[^"\\\n])*"|\'(\\.|[^\'\\\n])*\'', re.S)


# Reading peers' memory, or ordering ranks around such reads, outside the exchange layer.
PEER_READS = re.compile(r"\bnode::(address|locate|maps|same_node|world_ranks)\s*\(|\bMPI_Barrier\s*\(")


def code_only(text):
    """The text with comments and literals blanked, line breaks kept."""
    return NOT_CODE.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def sources():
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES)


@pytest.mark.parallel(nprocs=[1])
def test_capabilities_move_no_data_with_mpi():
    paths = sources()
    assert len(paths) > 20, f"only {len(paths)} source files found under {FOLDERS}"
    found = [f"{path.relative_to(ROOT)}:{code[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for path in paths for code in [code_only(path.read_text())] for m in CALL.finditer(code)]
    assert not found, "MPI moves data outside src/exchange (call the engine instead):\n" + "\n".join(found)


@pytest.mark.parallel(nprocs=[1])
def test_the_pattern_finds_data_movement():
    caught = ["MPI_Send(buf, n, MPI_BYTE, 1, 0, comm)", "check_mpi(MPI_Isend (p, n, t, r, tag, c, &q), x)",
              "MPI_Irecv(", "MPI_Sendrecv(", "MPI_Send_init(", "MPI_Recv_init(", "MPI_Startall(2, r)",
              "MPI_Start(&r)", "MPI_Ialltoall(", "MPI_Alltoallv(", "MPI_Alltoallw_c(", "MPI_Allgather(",
              "MPI_Iallgatherv(", "MPI_Gatherv(", "MPI_Scatter(", "MPI_Bcast(", "MPI_Neighbor_alltoallw(",
              "MPI_Ineighbor_allgather(", "MPI_Put(", "MPI_Rget(", "MPI_Win_create(", "MPI_Win_fence(",
              "MPI_Alltoall_init(", "MPI_Accumulate("]
    allowed = ["MPI_Allreduce(", "MPI_Exscan(", "MPI_Iallreduce(", "MPI_Reduce_scatter(", "MPI_Scan(",
               "MPI_Get_address(", "MPI_Get_count(", "MPI_Get_library_version(", "MPI_Comm_dup(",
               "MPI_Type_contiguous(", "MPI_Startup_thing", "MPI_Sendcount", "MPI_Waitall(",
               "// one MPI_Allgather(...) of counts", "/* MPI_Isend(p)\n   MPI_Recv( */",
               'fail("MPI_Send(x) failed")', "MPI_Recv_count"]
    assert all(CALL.search(code_only(s)) for s in caught), [s for s in caught if not CALL.search(code_only(s))]
    assert not any(CALL.search(code_only(s)) for s in allowed), [s for s in allowed if CALL.search(code_only(s))]
    # Lines are counted as in the file.
    assert code_only("a /* x\ny */ b // z\nc").count("\n") == 2


@pytest.mark.parallel(nprocs=[1])
def test_capabilities_read_no_peer_memory_themselves():
    found = [f"{path.relative_to(ROOT)}:{code[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for path in sources() for code in [code_only(path.read_text())] for m in PEER_READS.finditer(code)]
    assert not found, ("a capability reads peers' memory itself (ask src/exchange/peer_memory.hpp):\n"
                       + "\n".join(found))
    caught = ["dm::node::address(w, r, o)", "node::locate (p)", "node::maps(w, r)", "node::same_node(comm)",
              "node::world_ranks(c.comm)", "check_mpi(MPI_Barrier(comm), x)"]
    allowed = ["node::allocate(comm, n)", "node::release(p)", "dm::node::Location at", "node::take(c, n)",
               "// node::address(...) in a comment", "exchange::peer_address(comm, r, at)"]
    assert all(PEER_READS.search(code_only(s)) for s in caught)
    assert not any(PEER_READS.search(code_only(s)) for s in allowed)
