// Boxes: N-d rectangular parts of a row-major local storage, and the loops and
// fills over them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace dm::array {

constexpr int kMaxAxes = 7;  // DM_MAX_DIMS

struct Box {
    std::vector<std::int64_t> start;  // per axis, in elements of the storage
    std::vector<std::int64_t> size;   // per axis
    std::int64_t count() const;       // elements in the box
};

// The strided N-d loop, the library's one: calls visit(index, at) for every
// multi-index `index` of count[0] x ... x count[n-1] in row-major order (the last
// axis fastest), where at[j] = origin[j] + index[0] * strides[j][0] + ... for each
// of the K sets of strides (positions in K buffers at once). n = 0 is one call, at
// the origins; a count below 1 makes none. Offsets advance by additions, and
// nothing is allocated: the pack, unpack and copy kernels run it.
constexpr int kMaxLoopAxes = 8;  // n <= 8: an N-d box plus one level of stacked boxes

template <std::size_t K, class Visit>
void for_each_index(int n, const std::int64_t *count, const std::int64_t *const (&strides)[K],
                    std::array<std::int64_t, K> origin, Visit &&visit) {
    std::int64_t index[kMaxLoopAxes] = {};
    const std::int64_t *const position = index;
    if (n == 0) {
        visit(position, std::as_const(origin));
        return;
    }
    for (int a = 0; a < n; ++a)
        if (count[a] < 1) return;
    // The innermost level in locals: what `visit` writes may alias count and strides.
    const int inner = n - 1;
    const std::int64_t length = count[inner];
    std::array<std::int64_t, K> step;
    for (std::size_t j = 0; j < K; ++j) step[j] = strides[j][inner];
    while (true) {
        std::array<std::int64_t, K> at = origin;
        for (std::int64_t i = 0; i < length; ++i) {
            index[inner] = i;
            visit(position, std::as_const(at));
            for (std::size_t j = 0; j < K; ++j) at[j] += step[j];
        }
        index[inner] = 0;
        int a = inner - 1;
        for (; a >= 0; --a) {
            for (std::size_t j = 0; j < K; ++j) origin[j] += strides[j][a];
            if (++index[a] < count[a]) break;
            for (std::size_t j = 0; j < K; ++j) origin[j] -= strides[j][a] * count[a];
            index[a] = 0;
        }
        if (a < 0) return;
    }
}

// Calls row(offset, index) for every row of `box` (all axes but the last),
// where offset is the storage offset (elements) of the row's first element and
// index the row's multi-index relative to the box start (last entry 0).
// Nothing is called for an empty box. Allocates nothing: plans call it on their
// hot path.
template <class Row>
void for_each_row(const std::vector<std::int64_t> &storage_shape, const Box &box, Row &&row) {
    const int n = static_cast<int>(storage_shape.size());
    if (box.count() == 0) return;
    std::int64_t stride[kMaxAxes], rows[kMaxAxes];
    stride[n - 1] = 1;
    for (int a = n - 2; a >= 0; --a) stride[a] = stride[a + 1] * storage_shape[a + 1];
    std::int64_t first = 0;
    for (int a = 0; a < n; ++a) first += box.start[a] * stride[a], rows[a] = box.size[a];
    rows[n - 1] = 1;  // one step along the last axis: each row once, its index 0 there
    const std::int64_t *const strides[1] = {stride};
    for_each_index(n, rows, strides, std::array<std::int64_t, 1>{first},
                   [&](const std::int64_t *index, const std::array<std::int64_t, 1> &at) { row(at[0], index); });
}

// Sets every element of `box` to the `elsize` bytes at `value`.
void fill_box(std::byte *dst, const Box &box, const void *value, const std::vector<std::int64_t> &storage_shape,
              std::size_t elsize);

}  // namespace dm::array
