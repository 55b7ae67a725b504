// Boxes: N-d rectangular parts of a row-major local storage, and the loops,
// copies and MPI datatypes over them that data-movement plans are built from.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace dm::array {

struct Box {
    std::vector<std::int64_t> start;  // per axis, in elements of the storage
    std::vector<std::int64_t> size;   // per axis
    std::int64_t count() const;       // elements in the box
};

// Calls row(offset, index) for every row of `box` (all axes but the last),
// where offset is the storage offset (elements) of the row's first element and
// index the row's multi-index relative to the box start (last entry 0).
// Nothing is called for an empty box.
void for_each_row(const std::vector<std::int64_t> &storage_shape, const Box &box,
                  const std::function<void(std::int64_t, const std::vector<std::int64_t> &)> &row);

// Copies `from` in src to the box of the same size `to` in dst; both storages have `storage_shape`.
// The boxes may not overlap if src == dst.
void copy_box(std::byte *dst, const Box &to, const std::byte *src, const Box &from,
              const std::vector<std::int64_t> &storage_shape, std::size_t elsize);

// Sets every element of `box` to the `elsize` bytes at `value`.
void fill_box(std::byte *dst, const Box &box, const void *value, const std::vector<std::int64_t> &storage_shape,
              std::size_t elsize);

// A committed MPI datatype selecting `box` of a storage of `storage_shape` with
// elements of `element`. Throws DM_ERR_UNSUPPORTED past int extents.
MPI_Datatype box_datatype(const std::vector<std::int64_t> &storage_shape, const Box &box, MPI_Datatype element);

}  // namespace dm::array
