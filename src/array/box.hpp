// Boxes: N-d rectangular parts of a row-major local storage, and the loops and
// fills over them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm::array {

constexpr int kMaxAxes = 7;  // DM_MAX_DIMS

struct Box {
    std::vector<std::int64_t> start;  // per axis, in elements of the storage
    std::vector<std::int64_t> size;   // per axis
    std::int64_t count() const;       // elements in the box
};

// Calls row(offset, index) for every row of `box` (all axes but the last),
// where offset is the storage offset (elements) of the row's first element and
// index the row's multi-index relative to the box start (last entry 0).
// Nothing is called for an empty box. Allocates nothing: plans call it on their
// hot path.
template <class Row>
void for_each_row(const std::vector<std::int64_t> &storage_shape, const Box &box, Row &&row) {
    const int n = static_cast<int>(storage_shape.size());
    if (box.count() == 0) return;
    std::int64_t stride[kMaxAxes], index[kMaxAxes] = {};
    stride[n - 1] = 1;
    for (int a = n - 2; a >= 0; --a) stride[a] = stride[a + 1] * storage_shape[a + 1];
    while (true) {
        std::int64_t offset = 0;
        for (int a = 0; a < n; ++a) offset += (box.start[a] + index[a]) * stride[a];
        row(offset, static_cast<const std::int64_t *>(index));
        int a = n - 2;
        for (; a >= 0; --a) {
            if (++index[a] < box.size[a]) break;
            index[a] = 0;
        }
        if (a < 0) return;
    }
}

// Sets every element of `box` to the `elsize` bytes at `value`.
void fill_box(std::byte *dst, const Box &box, const void *value, const std::vector<std::int64_t> &storage_shape,
              std::size_t elsize);

}  // namespace dm::array
