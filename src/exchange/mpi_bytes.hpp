// Contiguous bytes as MPI sees them, in one place for the whole exchange layer: the
// largest message the engine posts with an int count, a datatype for any number of
// bytes (also beyond INT_MAX), and one cache of committed byte types for callers that
// reuse a size (record types of gathers, the value pairs of reductions).
#pragma once

#include <mpi.h>

#include <cstdint>

namespace dm::exchange {

// The largest piece of contiguous bytes the engine hands MPI with an int count: a
// longer message travels as several (variable exchanges), or is described by a
// datatype made of pieces of this size (bytes_type). A power of two below INT_MAX.
constexpr std::int64_t kLargestMessage = std::int64_t(1) << 30;

// Local. A new datatype of `bytes` contiguous bytes (bytes >= 0), not committed: the
// caller commits and frees it. Beyond INT_MAX bytes it is a struct of whole
// kLargestMessage pieces and the rest. Throws DM_ERR_MPI naming a failed MPI call.
MPI_Datatype bytes_type(std::int64_t bytes);

// Local. A committed datatype of `bytes` contiguous bytes, made at its first use in
// the process and freed by MPI_Finalize: never free it. Safe from several threads.
MPI_Datatype shared_bytes_type(std::int64_t bytes);

}  // namespace dm::exchange
