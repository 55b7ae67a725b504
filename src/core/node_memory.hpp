// Node memory: storage that the other ranks of a node can read in place, so that an
// exchange between ranks of one node copies each byte once (straight from the
// sender's storage into the receiver's layout) instead of three times (pack, MPI,
// unpack). It comes from MPI_Win_allocate_shared windows over the ranks of a node,
// kept as a pool: windows are made collectively, only when some rank's pool is
// full, and freed at MPI_Finalize; allocating and releasing within them is local,
// so storage may be freed on one rank at a time (as Python frees arrays).
//
// Processes are named by their rank in MPI_COMM_WORLD; a communicator whose
// processes are not all in it gets no node memory. DATAMOTION_NODE_MEMORY=0
// allocates privately everywhere, as does MPICH's MPIR_CVAR_NOLOCAL=1 (every peer
// treated as remote). Not thread safe: one thread at a time, like MPI
// at MPI_THREAD_FUNNELED.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dm::node {

// Collective on comm (every rank, each with its own size; 0 is allowed). `bytes`
// of node memory, 64-byte aligned, not zeroed; nullptr where there is none for
// this rank: alone on its node, no MPI_COMM_WORLD rank, or disabled. The caller
// then allocates privately.
std::byte *allocate(MPI_Comm comm, std::int64_t bytes);

// Collective on comm the first time, local after: whether allocate() on comm gives
// this rank node memory (it shares its node with other ranks of comm).
bool available(MPI_Comm comm);

// Local. `bytes` of node memory from the windows already made for comm's node (by
// allocate on comm or on a communicator of the same processes), 64-byte aligned,
// not zeroed; nullptr when none has room, or available(comm) was never asked. Never
// makes a window, so a rank may call it alone; release() takes it back.
std::byte *take(MPI_Comm comm, std::int64_t bytes);

// Local. Returns memory from allocate() to the pool: true if p was node memory
// (then it is released, or ignored after MPI_Finalize), false otherwise.
bool release(void *p) noexcept;

// Where a byte of this process's node memory lies: a window (the same number on
// every rank that maps it) and the offset in this process's part of it.
struct Location {
    std::int64_t window = -1;  // -1: not node memory
    std::int64_t offset = 0;
};

// Local. The location of byte p of this process's memory.
Location locate(const void *p);

// Local. The address, in this process, of byte `offset` of the part of `window` that
// process `world_rank` holds; nullptr when this process does not map that window
// (the process is on another node, or not in the window's group).
const std::byte *address(std::int64_t window, int world_rank, std::int64_t offset);

// Local. Whether process `world_rank` maps `window` (it can read this process's part).
bool maps(std::int64_t window, int world_rank);

// Local. This process's rank in MPI_COMM_WORLD for each rank of comm (-1 where it
// has none), computed once per communicator.
const int *world_ranks(MPI_Comm comm);

// Local after the first call on comm (which is collective): for each rank of comm,
// whether it is on this process's node (MPI_Comm_split_type SHARED).
const char *same_node(MPI_Comm comm);

// Where the ranks of a communicator live: nodes are the MPI_Comm_split_type(SHARED)
// groups (hosts, or MPICH's emulated hosts), numbered 0, 1, ... in the order of their
// lowest rank, which leads the node. The same on every rank.
struct Topology {
    int nodes = 0;
    std::vector<int> node;    // per rank of comm: its node
    std::vector<int> leader;  // per node: its lowest rank
    std::vector<int> ranks;   // per node: how many ranks of comm it holds
    // Where several nodes: the one-way time of a small message between two nodes and
    // within one (0 where no node holds two ranks), in microseconds, measured once
    // per process by a short ping-pong.
    double across_us = 0, within_us = 0;
    bool one_node() const { return nodes <= 1; }
};

// Local after the first call on comm (which is collective, as for same_node).
const Topology &topology(MPI_Comm comm);

// Node memory that one user keeps between calls (a workspace buffer that the other
// ranks of the node read in place), grown when a call needs more, released by the
// destructor. Holding it keeps its bytes from the pool's other users.
class Scratch {
public:
    Scratch() = default;
    Scratch(const Scratch &) = delete;
    Scratch &operator=(const Scratch &) = delete;
    ~Scratch() { clear(); }

    // Local. At least `bytes` of node memory from comm's pool: what is held where it
    // is large enough, else a larger part (what was held is given back first, so no
    // other rank may still read it); nullptr, holding nothing, where the pool has no
    // room.
    std::byte *get(MPI_Comm comm, std::int64_t bytes);
    // Collective on comm, every rank on one node: makes a window where some rank's
    // pool has no room for its `bytes`, so that get(comm, bytes) then succeeds.
    void reserve(MPI_Comm comm, std::int64_t bytes);
    // Local. Gives back what is held.
    void clear() noexcept;

private:
    std::byte *held_ = nullptr;
    std::int64_t bytes_ = 0;
};

// Whether node memory is enabled (DATAMOTION_NODE_MEMORY is not 0), and one line
// saying why not when it is not.
bool enabled();

}  // namespace dm::node
