#include "redist/overlap.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <climits>

namespace dm::redist {

std::vector<Run> overlaps(const layout::AxisMap &mine, int coord, std::int64_t offset, const layout::AxisMap &other,
                          std::int64_t other_offset, std::int64_t count, std::int64_t split, const PhaseOf &phase_of) {
    std::vector<Run> runs;
    const std::int64_t extent = mine.extent(coord), block = mine.block(), end = offset + count;
    // My local blocks are runs of global indices; the first one that reaches the window.
    std::int64_t first = 0;
    if (offset > 0 && extent > 0) {
        const std::int64_t cycle = block * mine.nprocs();  // global indices per round of blocks
        first = std::min(extent, (offset / cycle) * block);
    }
    for (; first < extent; first += block) {
        const std::int64_t end_local = std::min(extent, first + block);
        std::int64_t g = mine.global_index(coord, first), local = first;
        if (g >= end) break;
        if (g < offset) {  // the window starts inside this block
            local += std::min(offset - g, end_local - first);
            g = offset;
        }
        while (local < end_local && g < end) {
            // Cut where the other side's block, or the schedule's block, ends.
            const std::int64_t s = g - offset, o = other_offset + s;
            std::int64_t stop = s + (o / other.block() + 1) * other.block() - o;
            if (split > 0) stop = std::min(stop, (s / split + 1) * split);
            const std::int64_t length = std::min({stop - s, end_local - local, end - g});
            runs.push_back({s, length, local, other.owner(o), phase_of ? phase_of(s) : 0});
            g += length, local += length;
        }
    }
    return runs;
}

}  // namespace dm::redist
