// Reading other ranks' memory in place on one node: the primitives behind every
// one-copy movement. The on-node transport and the node leaders read the runs a plan
// lists; the vector layer's gathers and scatters, whose pattern is data, not runs,
// read values through these. Nothing outside src/exchange locates node memory for
// its peers or reads theirs (tests/python/test_mpi_calls.py).
#pragma once

#include "core/node_memory.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace dm::exchange {

// Local (collective on the first call on comm, as node::same_node). Whether every
// rank of comm is on this node and has node memory: the same answer on every rank.
bool all_on_node(MPI_Comm comm);

// Local. Where byte p of this process lies in node memory that every rank of comm
// maps: the location to tell them, or {-1, 0} where it does not (not node memory, or
// a rank that does not map its window).
node::Location shared_with(MPI_Comm comm, const void *p);

// Local. The address, in this process, of the byte that rank `rank` of comm told as
// `at` (shared_with() there); nullptr where this process does not map it.
const std::byte *peer_address(MPI_Comm comm, int rank, const node::Location &at);

// Local. Whether this rank may read its peers' memory in place: DM_EXCHANGE names
// no executor that keeps messages on a node as messages (pack, datatype, hybrid).
bool may_read_in_place();

// Local. Whether moving `bytes` bytes between two ranks of a node is worth reading
// in place, as the on-node transport prices its messages: below its minimum the
// synchronisation costs more than the copies saved.
bool worth_reading_in_place(std::int64_t bytes);

// Collective on comm: this rank has finished reading its peers' memory; returns once
// every rank has, so that each may change (or free) what the others read.
void done_reading(MPI_Comm comm);

}  // namespace dm::exchange
