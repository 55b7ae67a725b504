// datamotion._core.Grid, the axis maps and the block rule.
#include "bindings.hpp"

#include "core/error.hpp"
#include "layout/block_rule.hpp"
#include "layout/distribution.hpp"
#include "layout/grid.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>

namespace dm::python {

using layout::AxisMap;
using layout::ProcessGrid;

void bind_grid(nb::module_ &m) {
    nb::class_<ProcessGrid>(m, "Grid", "A process grid (see datamotion.ProcessGrid).")
        .def("__init__",
             [](ProcessGrid *self, nb::handle comm, std::vector<int> dims, std::vector<int> periods, int order) {
                 MPI_Comm c = comm_from_python(comm);
                 nb::gil_scoped_release release;
                 new (self) ProcessGrid(c, dims, periods, static_cast<dm_grid_order>(order));
             },
             nb::arg("comm"), nb::arg("dims"), nb::arg("periods"), nb::arg("order"))
        .def_prop_ro("comm", [](const ProcessGrid &g) { return comm_to_python(g.comm()); })
        .def_prop_ro("rank", &ProcessGrid::rank)
        .def_prop_ro("size", &ProcessGrid::size)
        .def_prop_ro("ndims", &ProcessGrid::ndims)
        .def_prop_ro("dims", &ProcessGrid::dims)
        .def_prop_ro("periods", &ProcessGrid::periods)
        .def_prop_ro("coords", &ProcessGrid::coords)
        .def_prop_ro("order", [](const ProcessGrid &g) { return static_cast<int>(g.order()); })
        .def("rank_of", [](const ProcessGrid &g, std::vector<int> coords) {
            if (static_cast<int>(coords.size()) != g.ndims())
                fail(DM_ERR_ARG, "rank_of: ", coords.size(), " coordinates for a grid of ", g.ndims(), " axes");
            return g.rank_of(coords.data());
        })
        .def("coords_of", [](const ProcessGrid &g, int rank) {
            std::vector<int> coords(static_cast<size_t>(g.ndims()));
            g.coords_of(rank, coords.data());
            return coords;
        })
        .def("axis_comm", [](const ProcessGrid &g, int axis) { return comm_to_python(g.axis_comm(axis)); });

    nb::class_<AxisMap>(m, "AxisMap", "A resolved map of one axis (layout::AxisMap).")
        .def("__init__",
             [](AxisMap *self, int kind, std::int64_t block, int src, std::vector<std::int64_t> sizes, std::int64_t n,
                int nprocs) { new (self) AxisMap(dist_from_spec(kind, block, src, sizes), n, nprocs); },
             nb::arg("kind"), nb::arg("block"), nb::arg("src"), nb::arg("sizes"), nb::arg("n"), nb::arg("nprocs"))
        .def_prop_ro("length", &AxisMap::length)
        .def_prop_ro("nprocs", &AxisMap::nprocs)
        .def_prop_ro("kind", [](const AxisMap &a) { return static_cast<int>(a.kind()); })
        // None where the map is not block-cyclic (Sizes).
        .def_prop_ro("block", [](const AxisMap &a) { return a.block_cyclic() ? std::optional(a.block()) : std::nullopt; })
        .def_prop_ro("src", [](const AxisMap &a) { return a.block_cyclic() ? std::optional(a.src()) : std::nullopt; })
        .def("owner", [](const AxisMap &a, std::int64_t g) {
            if (g < 0 || g >= a.length()) fail(DM_ERR_ARG, "global index ", g, " out of range [0, ", a.length(), ")");
            return a.owner(g);
        })
        .def("local_index", [](const AxisMap &a, std::int64_t g) {
            if (g < 0 || g >= a.length()) fail(DM_ERR_ARG, "global index ", g, " out of range [0, ", a.length(), ")");
            return a.local_index(g);
        })
        .def("global_index", [](const AxisMap &a, int coord, std::int64_t l) {
            if (coord < 0 || coord >= a.nprocs()) fail(DM_ERR_ARG, "coordinate ", coord, " out of range");
            if (l < 0 || l >= a.extent(coord)) fail(DM_ERR_ARG, "local index ", l, " out of range on coordinate ", coord);
            return a.global_index(coord, l);
        })
        .def("extent", [](const AxisMap &a, int coord) {
            if (coord < 0 || coord >= a.nprocs()) fail(DM_ERR_ARG, "coordinate ", coord, " out of range");
            return a.extent(coord);
        });

    nb::class_<layout::BlockRule>(m, "BlockRule",
                              "The block rule (layout::BlockRule): n elements over p ranks, ceil(n / p) consecutive "
                              "ones on each from rank 0; what vectors and Block axes place by.")
        .def("__init__",
             [](layout::BlockRule *self, std::int64_t n, int nranks) {
                 if (n < 0 || nranks < 1) fail(DM_ERR_ARG, "BlockRule: n must be >= 0 and nranks >= 1");
                 new (self) layout::BlockRule(n, nranks);
             },
             nb::arg("n"), nb::arg("nranks"))
        .def_prop_ro("length", &layout::BlockRule::length)
        .def_prop_ro("nranks", &layout::BlockRule::nranks)
        .def_prop_ro("max_count", &layout::BlockRule::max_count)
        .def("begin", [](const layout::BlockRule &b, int rank) {
            if (rank < 0 || rank >= b.nranks()) fail(DM_ERR_ARG, "rank ", rank, " out of range [0, ", b.nranks(), ")");
            return b.begin(rank);
        }, nb::arg("rank"))
        .def("count", [](const layout::BlockRule &b, int rank) {
            if (rank < 0 || rank >= b.nranks()) fail(DM_ERR_ARG, "rank ", rank, " out of range [0, ", b.nranks(), ")");
            return b.count(rank);
        }, nb::arg("rank"));

    m.def("numroc", [](std::int64_t n, std::int64_t block, int coord, int src, int nprocs) {
        if (n < 0 || block < 1 || nprocs < 1 || coord < 0 || coord >= nprocs || src < 0 || src >= nprocs)
            fail(DM_ERR_ARG, "numroc: invalid arguments");
        return layout::numroc(n, block, coord, src, nprocs);
    }, nb::arg("n"), nb::arg("block"), nb::arg("coord"), nb::arg("src"), nb::arg("nprocs"));
    m.def("rank_assignment", [](std::vector<int> dims, int order) {
        std::int64_t cells = 1;
        for (int d : dims) {
            if (d < 1) fail(DM_ERR_ARG, "rank_assignment: extents must be positive");
            if ((cells *= d) > (std::int64_t{1} << 24)) fail(DM_ERR_ARG, "rank_assignment: more than 2^24 cells");
        }
        return layout::rank_assignment(dims, static_cast<dm_grid_order>(order));
    }, nb::arg("dims"), nb::arg("order"));
    m.def("descinit", [](int m_, int n, int mb, int nb_, int rsrc, int csrc, int ctxt, int nprow, int npcol, int myrow,
                         int lld) {
        std::vector<int> desc(9);
        int status = dm_descinit(desc.data(), m_, n, mb, nb_, rsrc, csrc, ctxt, nprow, npcol, myrow, lld);
        if (status != DM_OK) fail(status, dm_last_error_message());
        return desc;
    });
}

}  // namespace dm::python
