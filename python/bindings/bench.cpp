// datamotion._core.bench_*: the measurement kernels, returning raw samples in seconds.
#include "bindings.hpp"

#include "bench/kernels.hpp"
#include "bench/local.hpp"
#include "bench/patterns.hpp"
#include "core/error.hpp"

#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <string>
#include <utility>

namespace dm::python {

void bind_bench(nb::module_ &m) {
    m.def("bench_pair",
          [](const std::string &kernel, nb::handle comm, int a, int b, std::size_t bytes, int reps, int warmup,
             int iters, int window, bool validate, std::int64_t corrupt_byte) {
              MPI_Comm c = comm_from_python(comm);
              bench::PairOptions o{a, b, bytes, reps, warmup, iters, window, validate, corrupt_byte};
              nb::gil_scoped_release release;
              if (kernel == "pingpong") return bench::pingpong(c, o);
              if (kernel == "exchange") return bench::exchange(c, o);
              if (kernel == "stream") return bench::stream(c, o);
              if (kernel == "bidir") return bench::bidirectional(c, o);
              fail(DM_ERR_ARG, "bench: unknown point-to-point kernel '", kernel, "'");
          },
          nb::arg("kernel"), nb::arg("comm"), nb::arg("a"), nb::arg("b"), nb::arg("bytes"), nb::arg("reps"),
          nb::arg("warmup"), nb::arg("iters"), nb::arg("window"), nb::arg("validate"), nb::arg("corrupt_byte") = -1,
          "Collective on comm. Raw samples (seconds) of a point-to-point kernel between ranks a and b, each the "
          "mean over `iters` operations (windows for stream and bidir) after `warmup` unrecorded ones; empty on "
          "the other ranks. corrupt_byte (tests only) flips that byte of the received message before the "
          "check that validate=True makes, which must then fail.");
    m.def("bench_barrier",
          [](nb::handle comm, int reps, int warmup, int iters) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::barrier(c, reps, warmup, iters);
          },
          nb::arg("comm"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters") = 1,
          "Collective on comm. Raw samples (seconds): the mean over ranks of each rank's mean time of `iters` "
          "back-to-back barriers, after `warmup` unrecorded ones (osu_barrier's definition).");
    m.def("bench_collective",
          [](const std::string &op, nb::handle comm, std::size_t bytes, int reps, int warmup, bool validate,
             int iters, std::int64_t corrupt_byte) {
              MPI_Comm c = comm_from_python(comm);
              bench::CollectiveOptions o{bytes, reps, warmup, iters, validate, corrupt_byte};
              nb::gil_scoped_release release;
              return bench::collective_op(c, op, o);
          },
          nb::arg("op"), nb::arg("comm"), nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"), nb::arg("validate"),
          nb::arg("iters") = 1, nb::arg("corrupt_byte") = -1,
          "Collective on comm. Raw samples (seconds): the mean over ranks of each rank's mean time of `iters` "
          "calls of one collective operation, each followed by an untimed barrier, after `warmup` unrecorded "
          "calls (osu_allreduce's definition). corrupt_byte (tests only) flips that byte of what a rank "
          "receives before the check that validate=True makes, which must then fail.");
    m.def("bench_memcopy",
          [](std::size_t bytes, int reps, int warmup, int iters) {
              nb::gil_scoped_release release;
              return bench::memcopy(bytes, reps, warmup, iters);
          },
          nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters"),
          "Local. Raw samples (seconds) of one memcpy of `bytes`.");
    m.def("bench_segscan",
          [](nb::handle comm, const std::string &dtype, const std::string &op, std::size_t bytes,
             std::int64_t segment_length, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::segmented_scan(c, dtype, op, bytes, segment_length, reps, warmup, validate);
          },
          nb::arg("comm"), nb::arg("dtype"), nb::arg("op"), nb::arg("bytes"), nb::arg("segment_length"),
          nb::arg("reps"), nb::arg("warmup"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of one exclusive segmented scan "
          "(dtype 'int64' or 'float64', op 'add', 'max' or 'min') over bytes / 8 elements per rank, a segment "
          "starting at every multiple of segment_length of the global index.");
    m.def("bench_vector",
          [](const std::string &op, bool single, std::size_t n, int reps, int warmup, int iters, bool scalar,
             std::size_t working_set) {
              nb::gil_scoped_release release;
              return bench::vector_op(op, single, n, reps, warmup, iters, scalar, working_set);
          },
          nb::arg("op"), nb::arg("single"), nb::arg("n"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters"),
          nb::arg("scalar") = false, nb::arg("working_set") = 0,
          "Local. Raw samples (seconds) of one sweep of a vector operation over n elements; scalar=True runs "
          "the same loop compiled without auto-vectorisation; working_set (bytes) spreads successive sweeps "
          "over that much memory.");
    m.def("bench_row_update",
          [](std::size_t rows, std::size_t length, int reps, int warmup, int iters, std::size_t stride,
             std::size_t first) {
              nb::gil_scoped_release release;
              return bench::row_update(rows, length, reps, warmup, iters, stride, first);
          },
          nb::arg("rows"), nb::arg("length"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters"),
          nb::arg("stride") = 0, nb::arg("first") = 0,
          "Local. Raw samples (seconds) of one sweep of Gaussian elimination's row update y_r -= f_r * x over "
          "columns [first, first + length) of rows float64 rows stride elements apart (default first + length; "
          "working set rows * length * 8 bytes).");
    m.def("bench_column_pass",
          [](const std::string &part, std::size_t rows, std::size_t stride, std::size_t column, int reps, int warmup,
             int iters) {
              if (part != "search" && part != "multipliers")
                  fail(DM_ERR_ARG, "bench: column_pass part must be 'search' or 'multipliers', not '", part, "'");
              const auto which = part == "search" ? bench::ColumnPass::search : bench::ColumnPass::multipliers;
              nb::gil_scoped_release release;
              return bench::column_pass(which, rows, stride, column, reps, warmup, iters);
          },
          nb::arg("part"), nb::arg("rows"), nb::arg("stride"), nb::arg("column"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("iters"),
          "Local. Raw samples (seconds) of one of Gaussian elimination's column passes over column `column` of "
          "rows float64 rows stride elements apart: part 'search' (the pivot search) or 'multipliers'.");
    m.def("bench_hypercube",
          [](nb::handle comm, int dimension, std::size_t bytes, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::hypercube(c, dimension, {bytes, reps, warmup, validate});
          },
          nb::arg("comm"), nb::arg("dimension"), nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of `dimension` hypercube "
          "exchanges (rank j with j xor 2^i, i = 0 .. dimension-1) on the first 2^dimension ranks.");
    m.def("bench_matching",
          [](nb::handle comm, const std::vector<int> &partner, std::size_t bytes, int reps, int warmup,
             bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::matching(c, partner, {bytes, reps, warmup, validate});
          },
          nb::arg("comm"), nb::arg("partner"), nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of every rank exchanging bytes "
          "with partner[rank] at once (-1 sits out; partner must be symmetric and the same on every rank).");
    m.def("bench_mesh_shift",
          [](nb::handle comm, int rows, int cols, const std::string &placement, const std::string &direction,
             std::size_t bytes, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              auto s = bench::mesh_shift(c, rows, cols, placement, direction, {bytes, reps, warmup, validate});
              return std::make_pair(std::move(s.slowest), std::move(s.own));
          },
          nb::arg("comm"), nb::arg("rows"), nb::arg("cols"), nb::arg("placement"), nb::arg("direction"),
          nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"), nb::arg("validate"),
          "Collective on comm. A rows x cols torus placed 'row-major', 'gray' or 'shuffle' on the ranks shifts "
          "bytes one step 'north', 'east', 'west' or 'south' (with wrap-around). Returns (slowest, own): raw "
          "samples (seconds) of the slowest rank's and of this rank's time.");
    m.def("vector_op_flops", &bench::vector_op_flops, nb::arg("op"), "Local. Flops per element of an operation.");
}

}  // namespace dm::python
