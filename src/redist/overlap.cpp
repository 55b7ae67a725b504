#include "redist/overlap.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <climits>

namespace dm::redist {

std::vector<OverlapRun> overlaps(const layout::AxisMap &mine, int coord, std::int64_t offset, const layout::AxisMap &other,
                          std::int64_t other_offset, std::int64_t count, std::int64_t split, const PhaseOf &phase_of) {
    std::vector<OverlapRun> runs;
    const std::int64_t end = offset + count;
    for (const layout::OwnedRun &r : mine.owned_runs(coord, offset, end)) {
        // Cut where the other side's block, or the schedule's block, ends.
        for (std::int64_t done = 0; done < r.length;) {
            const std::int64_t s = r.global + done - offset, o = other_offset + s;
            std::int64_t stop = s + (other.block_end(o) - o);
            if (split > 0) stop = std::min(stop, (s / split + 1) * split);
            const std::int64_t length = std::min(stop - s, r.length - done);
            runs.push_back({s, length, r.local + done, other.owner(o), phase_of ? phase_of(s) : 0});
            done += length;
        }
    }
    return runs;
}

}  // namespace dm::redist
