// Host memory for large blocks that come and go at the pace of a program's calls (a
// result vector per operation): a block of kLargeBytes or more is mapped whole, asks
// for transparent huge pages (so its pages do not miss the TLB on every 4 KiB), and
// when freed is kept for the next block of about its size, so that a program that
// frees one result and makes the next pays the page faults of the first only. A few
// blocks are kept, at most kKeptBytes together; smaller blocks come from the heap.
// Thread safe.
#pragma once

#include <cstddef>

namespace dm::host {

// Blocks from this size on are mapped, huge-paged where the system allows, and kept.
constexpr std::size_t kLargeBytes = std::size_t{1} << 20;
// What the kept blocks may hold together.
constexpr std::size_t kKeptBytes = std::size_t{1} << 30;

// Local. `bytes` bytes (at least 1), 64-byte aligned, not zeroed; nullptr when the
// system has none. Freed by release(p, bytes) with the same size.
void *allocate(std::size_t bytes);

// Local. Gives back a block from allocate(bytes); nullptr is ignored.
void release(void *p, std::size_t bytes) noexcept;

// Local. How many freed blocks are kept, and their bytes together (for tests).
struct Kept {
    std::size_t blocks = 0, bytes = 0;
};
Kept kept();

}  // namespace dm::host
