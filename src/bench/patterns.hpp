// Communication patterns of the CM-5 paper's section 7 (hypercube exchanges and
// torus shifts under three placements) and the contention patterns (random
// perfect matchings, the chain). Each kernel is collective on comm, starts every
// repetition with a barrier and returns raw samples (seconds) of the slowest rank.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dm::bench {

struct PatternOptions {
    std::size_t bytes = 0;  // message size
    int reps = 10;          // samples
    int warmup = 2;         // unrecorded repetitions first
    bool validate = false;  // fill, check and fail on a wrong byte
};

// Ranks 0 .. 2^dimension - 1 form a hypercube (the others only synchronise):
// rank j exchanges `bytes` with j xor 2^i for i = 0 .. dimension-1 in sequence
// (MPI_Sendrecv); a sample is the time of the dimension steps.
std::vector<double> hypercube(MPI_Comm comm, int dimension, const PatternOptions &o);

// Every rank exchanges `bytes` with partner[rank] at once (MPI_Sendrecv); -1 sits
// out. `partner` (one entry per rank, the same on every rank) must be a
// symmetric pairing: partner[partner[r]] == r, never r itself.
std::vector<double> matching(MPI_Comm comm, const std::vector<int> &partner, const PatternOptions &o);

struct MeshSamples {
    std::vector<double> slowest;  // per repetition, the slowest rank's time
    std::vector<double> own;      // per repetition, this rank's time
};

// A rows x cols torus (rows * cols == ranks) placed on the ranks by `placement`:
// "row-major" (cell (r, c) on rank r * cols + c), "gray" (the binary-reflected
// Gray codes of r and c, then row-major on the coded values) or "shuffle" (the
// bits of r and c interleaved, the paper's Figure 13); for sides that are not
// powers of two, cells are ranked in the order of those keys (the layout's grid
// orders send, news and shuffle). Every rank sends `bytes` to its neighbour in
// `direction` ("north" = row - 1, "south", "east" = column + 1, "west", with
// wrap-around) and receives from the opposite one, all at once.
MeshSamples mesh_shift(MPI_Comm comm, int rows, int cols, const std::string &placement, const std::string &direction,
                       const PatternOptions &o);

}  // namespace dm::bench
