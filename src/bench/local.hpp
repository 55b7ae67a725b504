// Local kernels: memory copy and the CM-5 paper's vector operations, timed on
// each rank without communication (samples in seconds).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace dm::bench {

// memcpy of `bytes` between two buffers allocated and touched beforehand; a
// sample is the mean over `iters` copies.
std::vector<double> memcopy(std::size_t bytes, int reps, int warmup, int iters);

// One of a=b+s, a=b+c, a=b*s, a=b*c, a=s*b+c, a=b*c+d*e on vectors of n elements
// of float32 (`single`) or float64; a sample is the mean over `iters` sweeps.
// `scalar` runs the same loop compiled without auto-vectorisation (for N_v).
// `working_set` (bytes, 0: one sweep's arrays) spreads successive sweeps over
// that much memory, so a sweep reads its arrays from the cache level (or main
// memory) that a working set of that size lives in.
std::vector<double> vector_op(const std::string &op, bool single, std::size_t n, int reps, int warmup, int iters,
                              bool scalar = false, std::size_t working_set = 0);

// The row update of Gaussian elimination over `rows` float64 rows of `stride`
// elements (0: first + length), columns [first, first + length) of each:
// y_r[k] -= f_r * x[k], the pivot row x shared (it stays in cache), the rows
// streamed: a working set of rows * length * 8 bytes. stride = N + 1 and first = j
// are iteration j of an N x (N + 1) matrix (rows that start off a vector boundary,
// gaps between them). A sample is the mean time of one sweep over all rows (over
// `iters` sweeps).
std::vector<double> row_update(std::size_t rows, std::size_t length, int reps, int warmup, int iters,
                               std::size_t stride = 0, std::size_t first = 0);

// The two column passes of Gaussian elimination's iteration, over column `column` of
// `rows` float64 rows `stride` elements apart (one element per row, a row apart):
// the pivot search (the largest |a[r][column]| of the rows not yet pivoted) or the
// multipliers (a[r][column] / pivot). A sample is the mean time of one pass (over
// `iters` passes).
enum class ColumnPass { search, multipliers };
std::vector<double> column_pass(ColumnPass part, std::size_t rows, std::size_t stride, std::size_t column, int reps,
                                int warmup, int iters);

// Floating-point operations per element of `op` (throws for an unknown op).
int vector_op_flops(const std::string &op);

}  // namespace dm::bench
