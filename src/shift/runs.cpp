#include "shift/runs.hpp"

#include <algorithm>

namespace dm::shift {

std::vector<SourceRun> source_runs(const layout::AxisMap &map, std::int64_t first, std::int64_t count, bool periodic) {
    std::vector<SourceRun> runs;
    const std::int64_t n = map.length();
    if (n == 0) return runs;
    for (std::int64_t pos = 0; pos < count;) {
        std::int64_t g = first + pos;
        if (periodic) g = ((g % n) + n) % n;
        if (g < 0 || g >= n) {  // past an end of a non-periodic axis
            const std::int64_t length = g < 0 ? std::min(count - pos, -g) : count - pos;
            runs.push_back({pos, length, -1, 0});
            pos += length;
            continue;
        }
        const int q = map.owner(g);
        const std::int64_t block_end = map.global_index(q, map.extent(q) - 1) + 1;  // end of q's block
        const std::int64_t length = std::min(count - pos, block_end - g);
        runs.push_back({pos, length, q, map.local_index(g)});
        pos += length;
    }
    return runs;
}

}  // namespace dm::shift
