// datamotion._core.bench_cm5_*: the CM-5 paper's kernels (src/bench/cm5.hpp), returning raw samples in seconds.
#include "bindings.hpp"

#include "bench/cm5.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

namespace dm::python {

void bind_bench_cm5(nb::module_ &m) {
    m.def("bench_cm5_scalar_op",
          [](const std::string &dtype, const std::string &op, const std::string &operands, std::size_t n, int reps,
             int warmup, int iters) {
              nb::gil_scoped_release release;
              return bench::scalar_op(dtype, op, operands, n, reps, warmup, iters);
          },
          nb::arg("dtype"), nb::arg("op"), nb::arg("operands"), nb::arg("n"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("iters"),
          "Local. Raw samples (seconds per statement) of one scalar arithmetic statement: op 'add', 'subtract', "
          "'multiply', 'divide' or 'madd' on dtype 'int16', 'int32', 'int64', 'float32' or 'float64', operands "
          "'registers', 'a&s1&s2', 'a&b&c' or 'a&b&s' (the CM-5 paper's Table 1), over arrays of n elements.");
    m.def("cm5_scalar_op_count", &bench::scalar_op_count, nb::arg("op"),
          "Local. Arithmetic operations in one statement of op (2 for 'madd', else 1).");
    m.def("bench_cm5_reduction",
          [](nb::handle comm, const std::string &collective, const std::string &op, const std::string &dtype,
             std::size_t count, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::reduction(c, collective, op, dtype, count, reps, warmup, validate);
          },
          nb::arg("comm"), nb::arg("collective"), nb::arg("op"), nb::arg("dtype"), nb::arg("count"), nb::arg("reps"),
          nb::arg("warmup"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of one MPI_Reduce ('reduce'), "
          "MPI_Allreduce or MPI_Scan of count elements of dtype ('int32', 'uint32', 'int64', 'float32', "
          "'float64') with op 'sum', 'prod', 'max', 'min' or, on integers, 'band', 'bor', 'bxor', 'land', 'lor'.");
    m.def("bench_cm5_aligned_pingpong",
          [](nb::handle comm, int a, int b, std::size_t bytes, std::size_t offset, int reps, int warmup, int iters,
             bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::aligned_pingpong(c, a, b, bytes, offset, reps, warmup, iters, validate);
          },
          nb::arg("comm"), nb::arg("a"), nb::arg("b"), nb::arg("bytes"), nb::arg("offset"), nb::arg("reps"),
          nb::arg("warmup"), nb::arg("iters"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds) of the one-way time of a ping-pong between ranks a and b "
          "whose buffers start offset bytes (0 .. 63) past a 64-byte boundary; empty on the other ranks.");
    m.def("bench_cm5_hypercube_dimension",
          [](nb::handle comm, int dimension, std::size_t bytes, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::hypercube_dimension(c, dimension, bytes, reps, warmup, validate);
          },
          nb::arg("comm"), nb::arg("dimension"), nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of one hypercube exchange along "
          "one dimension (rank j with j xor 2^dimension) on the largest power-of-two prefix of the ranks.");
}

}  // namespace dm::python
