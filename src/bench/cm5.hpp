// Kernels of the CM-5 paper's experiments that the general kernels do not cover:
// scalar arithmetic (its Table 1), reductions and scans by operator and element
// type (its Table 4), ping-pong at a chosen buffer alignment (its Figures 5 and 6)
// and hypercube exchanges along one dimension (its Figure 15). Each returns raw
// samples in seconds, so summaries and fits happen above, on the same data.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dm::bench {

// Local. One statement of `op` ("add", "subtract", "multiply", "divide", "madd":
// x = x + y * z) on `dtype` ("int16", "int32", "int64", "float32", "float64") with
// operands from `operands`:
//   "registers"   four independent chains x_k = x_k op y, kept in registers;
//   "a&s1&s2"     a[i] = s1 op s2 with s1, s2 read from memory every time (volatile);
//   "a&b&c"       a[i] = b[j] op c[k], three arrays at different indices;
//   "a&b&s"       a[i] = b[i] op s, two arrays and a scalar read from memory.
// Arrays hold `n` elements (in cache when small); loops are compiled without
// auto-vectorisation, like the paper's SPARC code. A sample is the mean time of
// one statement over `iters` sweeps of n statements.
std::vector<double> scalar_op(const std::string &dtype, const std::string &op, const std::string &operands,
                              std::size_t n, int reps, int warmup, int iters);

// Arithmetic operations one statement of `op` performs (2 for "madd", else 1).
int scalar_op_count(const std::string &op);

// Collective on comm. A sample is the slowest rank's time of one `collective`
// ("reduce" to rank 0, "allreduce", "scan" inclusive) of `count` elements of
// `dtype` ("int32", "uint32", "int64", "float32", "float64") with the MPI
// operator `op` ("sum", "prod", "max", "min", "band", "bor", "bxor", "land",
// "lor"; the bitwise and logical ones on integer types only). With `validate`
// every result is compared with a serial fold of every rank's input.
std::vector<double> reduction(MPI_Comm comm, const std::string &collective, const std::string &op,
                              const std::string &dtype, std::size_t count, int reps, int warmup, bool validate);

// Collective on comm; ranks other than a and b only synchronise. The one-way time
// of a blocking ping-pong of `bytes` whose send and receive buffers start `offset`
// bytes (0 .. 63) past a 64-byte boundary; a sample is the mean over `iters`
// round trips, halved.
std::vector<double> aligned_pingpong(MPI_Comm comm, int a, int b, std::size_t bytes, std::size_t offset, int reps,
                                     int warmup, int iters, bool validate);

// Collective on comm. Ranks 0 .. 2^k - 1 (2^k the largest power of two not above
// the size) form a hypercube; each exchanges `bytes` with its neighbour along
// `dimension` only (rank j with j xor 2^dimension, MPI_Sendrecv); the others only
// synchronise. A sample is the slowest rank's time of the one exchange.
std::vector<double> hypercube_dimension(MPI_Comm comm, int dimension, std::size_t bytes, int reps, int warmup,
                                        bool validate);

}  // namespace dm::bench
