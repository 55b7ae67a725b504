// datamotion._core.Array: a DistArray whose local storage NumPy views without copies.
#include "bindings.hpp"

#include "array/dist_array.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/text.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>

namespace dm::python {

using array::DistArray;
using layout::ProcessGrid;

namespace {

using InArray = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using OutArray = nb::ndarray<nb::c_contig, nb::device::cpu>;
using DistSpec = std::tuple<int, std::int64_t, int, std::vector<std::int64_t>>;  // kind, block, src, sizes
// A problem the Python layer met on this rank while preparing the call: (code, message).
using Problem = std::optional<std::pair<int, std::string>>;

void raise(const Problem &problem) {
    if (problem) fail(problem->first, problem->second);
}

// The distributions of `specs`, whose sizes they borrow (the array copies them).
std::vector<dm_dist> to_dists(const std::vector<DistSpec> &specs) {
    std::vector<dm_dist> dists;
    for (const auto &[kind, block, src, sizes] : specs)
        dists.push_back(dist_from_spec(kind, block, src, sizes));
    return dists;
}

// Checks that `data` (present on this rank) can hold the whole global array.
void check_global(const DistArray &a, const std::optional<InArray> &in, const std::optional<OutArray> &out,
                  const char *what) {
    size_t ndim = in ? in->ndim() : out ? out->ndim() : 0;
    size_t itemsize = in ? in->itemsize() : out ? out->itemsize() : 0;
    if (!in && !out) fail(DM_ERR_ARG, what, ": global array missing on rank ", a.grid().rank());
    std::vector<std::int64_t> shape;
    for (size_t i = 0; i < ndim; ++i)
        shape.push_back(static_cast<std::int64_t>(in ? in->shape(i) : out->shape(i)));
    if (shape != a.shape())
        fail(DM_ERR_ARG, what, ": the global array's shape ", tuple_text(shape),
             " differs from the distributed array's ", tuple_text(a.shape()));
    if (itemsize != a.element_size())
        fail(DM_ERR_ARG, what, ": the global array's elements are ", itemsize, " bytes, the distributed array's ",
             a.element_size(), " (", dtype_name(a.dtype()), ")");
}

nb::ndarray<nb::numpy> view(DistArray &a, std::byte *data, const std::vector<std::int64_t> &extent, nb::handle owner) {
    std::vector<size_t> shape(extent.begin(), extent.end());
    auto strides = a.byte_strides();
    for (auto &s : strides) s /= static_cast<std::int64_t>(a.element_size());
    return nb::ndarray<nb::numpy>(data, shape.size(), shape.data(), owner, strides.data(), dlpack_dtype(a.dtype()));
}

}  // namespace

void bind_array(nb::module_ &m) {
    nb::class_<DistArray>(m, "Array", "A distributed array (see datamotion.DistArray).")
        .def("__init__",
             [](DistArray *self, std::shared_ptr<ProcessGrid> grid, int dtype, std::vector<std::int64_t> shape,
                std::vector<DistSpec> dists, std::vector<int> ghost, bool zero, std::optional<OutArray> memory) {
                 array::Storage storage;
                 storage.fill = zero ? array::Storage::Zero : array::Storage::Uninitialised;
                 if (memory) {  // adopted: kept alive by the array (keep_alive below)
                     storage.adopt = true;
                     storage.memory = memory->data();
                     storage.bytes = static_cast<std::int64_t>(memory->nbytes());
                 }
                 nb::gil_scoped_release release;
                 new (self) DistArray(grid, dtype, shape, to_dists(dists), ghost, storage);
             },
             nb::arg("grid"), nb::arg("dtype"), nb::arg("shape"), nb::arg("dists"), nb::arg("ghost"),
             nb::arg("zero") = true, nb::arg("memory").none() = nb::none(), nb::keep_alive<1, 8>())
        .def_static("from_global",
             [](std::shared_ptr<ProcessGrid> grid, std::optional<InArray> global, int dtype,
                std::vector<DistSpec> dists, std::vector<int> ghost, int root, Problem problem) {
                 // The shape and type come from the global array: on every rank, or from root only.
                 MPI_Comm comm = grid->comm();
                 const bool reads = root == DM_ALL_RANKS || root == grid->rank();
                 std::vector<std::int64_t> header;  // dtype, ndim, shape...
                 nb::gil_scoped_release release;
                 require_same(comm, {root}, "root", array::root_text);
                 collective(comm, [&] {
                     raise(problem);
                     if (root != DM_ALL_RANKS && (root < 0 || root >= grid->size()))
                         fail(DM_ERR_ARG, "root ", root, " out of range [0, ", grid->size(), ") (or None for all ranks)");
                     if (!reads) return;
                     checked_dtype(dtype);
                     if (!global) fail(DM_ERR_ARG, "from_global: no global array on rank ", grid->rank());
                     if (global->ndim() < 1 || global->ndim() > DM_MAX_DIMS)
                         fail(DM_ERR_ARG, "distributed array: rank must be in [1, ", DM_MAX_DIMS, "], got ", global->ndim());
                 });
                 if (reads) {
                     header = {dtype, static_cast<std::int64_t>(global->ndim())};
                     for (size_t i = 0; i < global->ndim(); ++i) header.push_back(static_cast<std::int64_t>(global->shape(i)));
                 }
                 if (root != DM_ALL_RANKS) {  // everyone learns the root's shape and type
                     header.resize(2 + DM_MAX_DIMS, 0);
                     check_mpi(MPI_Bcast(header.data(), static_cast<int>(header.size()), MPI_INT64_T, root, comm), "MPI_Bcast");
                     header.resize(static_cast<size_t>(2 + header[1]));
                 }
                 std::vector<std::int64_t> shape(header.begin() + 2, header.end());
                 auto a = std::make_unique<DistArray>(grid, static_cast<int>(header[0]), shape, to_dists(dists), ghost);
                 a->scatter(reads ? global->data() : nullptr, root);
                 return a.release();
             },
             nb::arg("grid"), nb::arg("whole").none(), nb::arg("dtype"), nb::arg("dists"), nb::arg("ghost"),
             nb::arg("root"), nb::arg("problem").none() = nb::none(), nb::rv_policy::take_ownership)
        .def("scatter",
             [](DistArray &a, std::optional<InArray> global, int root, Problem problem) {
                 nb::gil_scoped_release release;
                 a.scatter(global ? global->data() : nullptr, root, [&] {
                     raise(problem);
                     if (root == DM_ALL_RANKS || root == a.grid().rank()) check_global(a, global, std::nullopt, "scatter");
                 });
             },
             nb::arg("whole").none(), nb::arg("root"), nb::arg("problem").none() = nb::none())
        .def("gather",
             [](const DistArray &a, std::optional<OutArray> global, int root, Problem problem) {
                 nb::gil_scoped_release release;
                 a.gather(global ? global->data() : nullptr, root, [&] {
                     raise(problem);
                     if (root == DM_ALL_RANKS || root == a.grid().rank()) check_global(a, std::nullopt, global, "gather");
                 });
             },
             nb::arg("whole").none(), nb::arg("root"), nb::arg("problem").none() = nb::none())
        .def_prop_ro("grid", [](const DistArray &a) { return std::const_pointer_cast<ProcessGrid>(a.grid_ptr()); })
        .def_prop_ro("dtype", [](const DistArray &a) { return static_cast<int>(a.dtype()); })
        .def_prop_ro("shape", &DistArray::shape)
        .def_prop_ro("ghost", &DistArray::ghost)
        .def_prop_ro("local_shape", &DistArray::local_shape)
        .def_prop_ro("dists", [](const DistArray &a) {
            std::vector<DistSpec> out;
            for (int i = 0; i < a.ndims(); ++i) {
                const dm_dist d = a.axis_map(i).resolved();
                out.emplace_back(d.kind, d.block, d.src, std::vector<std::int64_t>(d.sizes, d.sizes + (d.sizes ? d.count : 0)));
            }
            return out;
        })
        .def("axis_map", [](const DistArray &a, int axis) {
            if (axis < 0 || axis >= a.ndims()) fail(DM_ERR_ARG, "axis_map: axis ", axis, " out of range [0, ", a.ndims(), ")");
            return a.axis_map(axis);
        }, nb::arg("axis"))
        .def_prop_ro("local", [](nb::handle self) {
            DistArray &a = nb::cast<DistArray &>(self);
            return view(a, a.local_data(), a.local_shape(), self);
        }, "Zero-copy view of the owned elements.")
        .def_prop_ro("storage", [](nb::handle self) {
            DistArray &a = nb::cast<DistArray &>(self);
            return view(a, a.storage(), a.storage_shape(), self);
        }, "Zero-copy view of the local storage including ghost regions.");
}

}  // namespace dm::python
