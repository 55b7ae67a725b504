// datamotion._core.bench_*: the measurement kernels, returning raw samples in seconds.
#include "bindings.hpp"

#include "bench/kernels.hpp"
#include "bench/local.hpp"
#include "core/error.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>

namespace dm::python {

void bind_bench(nb::module_ &m) {
    m.def("bench_pair",
          [](const std::string &kernel, nb::handle comm, int a, int b, std::size_t bytes, int reps, int warmup,
             int iters, int window, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              bench::PairOptions o{a, b, bytes, reps, warmup, iters, window, validate};
              nb::gil_scoped_release release;
              if (kernel == "pingpong") return bench::pingpong(c, o);
              if (kernel == "exchange") return bench::exchange(c, o);
              if (kernel == "stream") return bench::stream(c, o);
              if (kernel == "bidir") return bench::bidirectional(c, o);
              fail(DM_ERR_ARG, "bench: unknown point-to-point kernel '", kernel, "'");
          },
          nb::arg("kernel"), nb::arg("comm"), nb::arg("a"), nb::arg("b"), nb::arg("bytes"), nb::arg("reps"),
          nb::arg("warmup"), nb::arg("iters"), nb::arg("window"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds) of a point-to-point kernel between ranks a and b; "
          "empty on the other ranks.");
    m.def("bench_barrier",
          [](nb::handle comm, int reps, int warmup) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::barrier(c, reps, warmup);
          },
          nb::arg("comm"), nb::arg("reps"), nb::arg("warmup"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of one barrier.");
    m.def("bench_collective",
          [](const std::string &op, nb::handle comm, std::size_t bytes, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::collective_op(c, op, bytes, reps, warmup, validate);
          },
          nb::arg("op"), nb::arg("comm"), nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of one collective operation.");
    m.def("bench_memcopy",
          [](std::size_t bytes, int reps, int warmup, int iters) {
              nb::gil_scoped_release release;
              return bench::memcopy(bytes, reps, warmup, iters);
          },
          nb::arg("bytes"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters"),
          "Local. Raw samples (seconds) of one memcpy of `bytes`.");
    m.def("bench_vector",
          [](const std::string &op, bool single, std::size_t n, int reps, int warmup, int iters) {
              nb::gil_scoped_release release;
              return bench::vector_op(op, single, n, reps, warmup, iters);
          },
          nb::arg("op"), nb::arg("single"), nb::arg("n"), nb::arg("reps"), nb::arg("warmup"), nb::arg("iters"),
          "Local. Raw samples (seconds) of one sweep of a vector operation over n elements.");
    m.def("vector_op_flops", &bench::vector_op_flops, nb::arg("op"), "Local. Flops per element of an operation.");
}

}  // namespace dm::python
