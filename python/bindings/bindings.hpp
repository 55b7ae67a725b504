// Shared pieces of the nanobind bindings: communicator conversion and dtypes.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <datamotion/core.h>
#include <datamotion/layout.h>

#include "exchange/plan.hpp"

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

namespace dm::python {

namespace nb = nanobind;

// The MPI_Comm inside an mpi4py communicator (TypeError for anything else).
MPI_Comm comm_from_python(nb::handle comm);
// A new mpi4py communicator referring to (not owning) `comm`.
nb::object comm_to_python(MPI_Comm comm);

nb::dlpack::dtype dlpack_dtype(dm_dtype dtype);

// The distribution Python's Distribution._spec() describes (kind, block, src, sizes);
// it borrows `sizes`. The kind is passed on as any integer, for the library to check.
inline dm_dist dist_from_spec(int kind, std::int64_t block, int src, const std::vector<std::int64_t> &sizes) {
    return dm_dist{static_cast<dm_dist_kind>(kind), block, src, static_cast<int>(sizes.size()), sizes.data()};
}

// A plan's messages as (peer, round, bytes, runs, sending, transport) tuples (peer -1:
// a local copy).
inline std::vector<std::tuple<int, int, std::int64_t, std::int64_t, bool, std::string, std::string, std::int64_t>>
message_tuples(const std::vector<exchange::MessageShape> &shapes) {
    std::vector<std::tuple<int, int, std::int64_t, std::int64_t, bool, std::string, std::string, std::int64_t>> out;
    for (const exchange::MessageShape &m : shapes)
        out.emplace_back(m.peer, m.round, m.bytes, m.runs, m.sending, m.transport, m.way, m.pieces);
    return out;
}

void bind_errors(nb::module_ &m);
void bind_grid(nb::module_ &m);
void bind_array(nb::module_ &m);
void bind_shift(nb::module_ &m);
void bind_bench(nb::module_ &m);
void bind_bench_paragon(nb::module_ &m);
void bind_bench_cm5(nb::module_ &m);
void bind_redist(nb::module_ &m);
void bind_cost(nb::module_ &m);
void bind_vector(nb::module_ &m);

}  // namespace dm::python
