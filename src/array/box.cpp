#include "array/box.hpp"

#include "core/error.hpp"

#include <climits>
#include <cstring>

namespace dm::array {

std::int64_t Box::count() const {
    std::int64_t n = 1;
    for (auto s : size) n *= s;
    return n;
}

void copy_box(std::byte *dst, const Box &to, const std::byte *src, const Box &from,
              const std::vector<std::int64_t> &storage_shape, std::size_t elsize) {
    const int n = static_cast<int>(storage_shape.size());
    std::int64_t stride[kMaxAxes];
    stride[n - 1] = 1;
    for (int a = n - 2; a >= 0; --a) stride[a] = stride[a + 1] * storage_shape[a + 1];
    std::int64_t shift = 0;  // source offset minus destination offset, the same for every row
    for (int a = 0; a < n; ++a) shift += (from.start[a] - to.start[a]) * stride[a];
    const std::size_t row_bytes = static_cast<std::size_t>(to.size[n - 1]) * elsize;
    for_each_row(storage_shape, to, [&](std::int64_t offset, const std::int64_t *) {
        std::memcpy(dst + offset * elsize, src + (offset + shift) * elsize, row_bytes);
    });
}

void fill_box(std::byte *dst, const Box &box, const void *value, const std::vector<std::int64_t> &storage_shape,
              std::size_t elsize) {
    const std::int64_t length = box.size.back();
    for_each_row(storage_shape, box, [&](std::int64_t offset, const std::int64_t *) {
        std::byte *p = dst + offset * elsize;
        for (std::int64_t i = 0; i < length; ++i) std::memcpy(p + i * elsize, value, elsize);
    });
}

MPI_Datatype box_datatype(const std::vector<std::int64_t> &storage_shape, const Box &box, MPI_Datatype element) {
    const int n = static_cast<int>(storage_shape.size());
    std::vector<int> sizes(n), subsizes(n), starts(n);
    for (int a = 0; a < n; ++a) {
        if (storage_shape[a] > INT_MAX)
            fail(DM_ERR_UNSUPPORTED, "local extent ", storage_shape[a], " exceeds what an MPI datatype can describe");
        sizes[a] = static_cast<int>(storage_shape[a]);
        subsizes[a] = static_cast<int>(box.size[a]);
        starts[a] = static_cast<int>(box.start[a]);
    }
    MPI_Datatype type;
    check_mpi(MPI_Type_create_subarray(n, sizes.data(), subsizes.data(), starts.data(), MPI_ORDER_C, element, &type),
              "MPI_Type_create_subarray");
    check_mpi(MPI_Type_commit(&type), "MPI_Type_commit");
    return type;
}

}  // namespace dm::array
