// Blocks: regular patterns of bytes in one buffer, the unit every exchange plan is
// made of, and the kernels that pack, unpack and copy them.
#pragma once

#include "array/box.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace dm::exchange {

constexpr int kMaxLevels = 8;  // an N-d box (N <= 7) plus one level of stacked boxes
static_assert(kMaxLevels <= array::kMaxLoopAxes, "a block's levels are looped by array::for_each_index");
constexpr std::int64_t kCacheLine = 64;  // bytes: what Block::lines counts in

// count[0] x ... x count[levels-1] contiguous runs of `run` bytes in buffer `slot`:
// the first starts at byte `offset`, level i steps stride[i] bytes (outermost first).
// Its bytes are read and written in row-major order over the levels, so two blocks
// (or two lists of blocks) of equal size describe the same byte sequence whatever
// their shapes: that sequence is what a message carries.
struct Block {
    int slot = 0;
    int levels = 0;
    std::int64_t offset = 0, run = 0;
    std::int64_t count[kMaxLevels] = {}, stride[kMaxLevels] = {};

    std::int64_t runs() const;  // contiguous runs: the product of the counts
    // About how many 64-byte cache lines a reader of the block fetches: runs less
    // than a line apart share lines, others take their own.
    std::int64_t lines() const;
    std::int64_t bytes() const { return runs() * run; }
    bool same_shape(const Block &other) const;  // equal run, counts and strides
};

// Whether a block's two innermost levels run across each other (a transposed
// side: the inner level strides far, the outer one steps one short run): the pack,
// unpack and copy kernels walk such blocks in tiles.
bool crosses_levels(const Block &b);

// About how many cache lines a reader of a list of blocks (in message order)
// fetches: single runs that follow one another less than a line apart share lines.
std::int64_t lines(const Block *blocks, std::size_t n);

// The block of a box of an N-d storage: per axis `size` positions from `start`, where
// axis a steps strides[a] bytes and position (0, ..., 0) is byte `origin` of the slot.
// Axes of one position vanish and axes contiguous in memory join the run. An empty
// box gives a block of 0 bytes.
Block box_block(int slot, int n, const std::int64_t *start, const std::int64_t *size, const std::int64_t *strides,
                std::int64_t origin, std::int64_t elsize);

// A local copy of one box shape between two storages: both blocks have the same
// run and counts (axes are folded only where they fold in both storages).
struct Copy {
    Block from, to;
};
Copy box_copy(int n, const std::int64_t *size, int from_slot, const std::int64_t *from_start,
              const std::int64_t *from_strides, std::int64_t from_origin, int to_slot, const std::int64_t *to_start,
              const std::int64_t *to_strides, std::int64_t to_origin, std::int64_t elsize);

// Whether `next`, following `last` in a list, can join it into one block (`joined`):
// a contiguous continuation, or one more copy of a repeated shape at a fixed step.
bool join(const Block &last, const Block &next, Block &joined);

// Appends `c` to a list of copies, joined to the last one where both sides continue
// it alike: each side by join() into blocks of one shape, or both as one more copy
// of the last's shape at steps of their own (a contiguous side with a strided one).
// Plans and on-node receivers keep their copies this way: the one joining rule.
void append_copy(std::vector<Copy> &copies, const Copy &c);

// Calls run(offset) with the byte offset of every run of `b`, in order.
template <class Visit>
void for_each_run(const Block &b, Visit &&run) {
    const std::int64_t *const strides[1] = {b.stride};
    array::for_each_index(b.levels, b.count, strides, std::array<std::int64_t, 1>{b.offset},
                          [&](const std::int64_t *, const std::array<std::int64_t, 1> &at) { run(at[0]); });
}

// The kernels: copy the bytes of a block out of `base` into `out` (pack), from `in`
// into `base` (unpack), and between the two blocks of a Copy. Runs of 1 to 4
// elements of every element size are copied as fixed-size moves, other short runs
// as 8-byte words, long ones by memcpy. pack and unpack return the position after
// the bytes they moved.
std::byte *pack(std::byte *out, const std::byte *base, const Block &b);
const std::byte *unpack(std::byte *base, const Block &b, const std::byte *in);
void copy(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from);

}  // namespace dm::exchange
