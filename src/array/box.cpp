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

void fill_box(std::byte *dst, const Box &box, const void *value, const std::vector<std::int64_t> &storage_shape,
              std::size_t elsize) {
    const std::int64_t length = box.size.back();
    for_each_row(storage_shape, box, [&](std::int64_t offset, const std::int64_t *) {
        std::byte *p = dst + offset * elsize;
        for (std::int64_t i = 0; i < length; ++i) std::memcpy(p + i * elsize, value, elsize);
    });
}

}  // namespace dm::array
