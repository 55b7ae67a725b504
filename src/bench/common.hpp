// Shared pieces of the communication kernels: message bytes that a receiver
// can check, and the slowest or the average rank's time of a repetition.
#pragma once

#include "core/error.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace dm::bench::detail {

// Byte i of a message seeded by `seed`; senders and ranks differ in the seed, so
// a message from the wrong peer or of the wrong repetition shows.
inline unsigned char message_byte(std::size_t i, int seed) {
    return static_cast<unsigned char>(i * 7 + seed * 13 + 1);
}

inline void fill(unsigned char *buf, std::size_t n, int seed) {
    for (std::size_t i = 0; i < n; ++i) buf[i] = message_byte(i, seed);
}

// Local: fails with DM_ERR_INTERNAL on the first wrong byte (callers agree on it).
inline void verify(const unsigned char *buf, std::size_t n, int seed, const char *kernel) {
    for (std::size_t i = 0; i < n; ++i)
        if (buf[i] != message_byte(i, seed))
            fail(DM_ERR_INTERNAL, kernel, ": received byte ", i, " of ", n, " is wrong");
}

// Local. Tests only: flips byte `index` of a received buffer of n bytes (nothing
// when index is negative), so that the check that follows must fail.
inline void corrupt(unsigned char *buf, std::size_t n, std::int64_t index) {
    if (index >= 0 && static_cast<std::uint64_t>(index) < n) buf[index] ^= 0xFF;
}

// Collective on comm: the largest of every rank's `seconds`.
inline double slowest(MPI_Comm comm, double seconds) {
    double result = 0;
    check_mpi(MPI_Allreduce(&seconds, &result, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return result;
}

// Collective on comm: the mean of every rank's `seconds` (OSU's collective
// benchmarks report the average over ranks of each rank's mean time).
inline double mean_over_ranks(MPI_Comm comm, double seconds) {
    int size = 1;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    double sum = 0;
    check_mpi(MPI_Allreduce(&seconds, &sum, 1, MPI_DOUBLE, MPI_SUM, comm), "MPI_Allreduce");
    return sum / size;
}

}  // namespace dm::bench::detail
