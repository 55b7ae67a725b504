// datamotion._core.bench_chain_exchange and bench_memcpy_offsets: the kernels of
// the Paragon/SP2/CS-2 paper, returning raw samples in seconds.
#include "bindings.hpp"

#include "bench/paragon.hpp"

#include <nanobind/stl/vector.h>

namespace dm::python {

void bind_bench_paragon(nb::module_ &m) {
    m.def("bench_chain_exchange",
          [](nb::handle comm, int pairs, int messages, std::size_t bytes, int reps, int warmup, bool validate) {
              MPI_Comm c = comm_from_python(comm);
              nb::gil_scoped_release release;
              return bench::chain_exchange(c, pairs, messages, {bytes, reps, warmup, validate});
          },
          nb::arg("comm"), nb::arg("pairs"), nb::arg("messages"), nb::arg("bytes"), nb::arg("reps"),
          nb::arg("warmup"), nb::arg("validate"),
          "Collective on comm. Raw samples (seconds): the slowest rank's time of ranks i and 2*pairs-1-i "
          "(i < pairs) each sending `messages` nonblocking messages of `bytes` to the other at once, every "
          "receive posted before a barrier (the Paragon paper's exchange and its contention chain).");
    m.def("bench_memcpy_offsets",
          [](std::size_t bytes, int src_offset, int dst_offset, int reps, int warmup, int iters, bool validate) {
              nb::gil_scoped_release release;
              return bench::memcpy_offsets(bytes, src_offset, dst_offset, reps, warmup, iters, validate);
          },
          nb::arg("bytes"), nb::arg("src_offset"), nb::arg("dst_offset"), nb::arg("reps"), nb::arg("warmup"),
          nb::arg("iters"), nb::arg("validate") = false,
          "Local. Raw samples (seconds) of one memcpy of `bytes` from src_offset to dst_offset bytes past "
          "page-aligned buffers; validate checks the copied bytes and the guard bytes around them.");
}

}  // namespace dm::python
