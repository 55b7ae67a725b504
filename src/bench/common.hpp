// Shared pieces of the communication kernels: message bytes that a receiver
// can check, and the slowest rank's time of a repetition.
#pragma once

#include "core/error.hpp"

#include <mpi.h>

#include <cstddef>

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

// Collective on comm: the largest of every rank's `seconds`.
inline double slowest(MPI_Comm comm, double seconds) {
    double result = 0;
    check_mpi(MPI_Allreduce(&seconds, &result, 1, MPI_DOUBLE, MPI_MAX, comm), "MPI_Allreduce");
    return result;
}

}  // namespace dm::bench::detail
