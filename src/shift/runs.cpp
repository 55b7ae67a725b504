#include "shift/runs.hpp"

#include "core/checked.hpp"

#include <algorithm>

namespace dm::shift {

std::vector<SourceRun> source_runs(const layout::AxisMap &map, std::int64_t start, std::int64_t offset,
                                   std::int64_t count, bool periodic) {
    std::vector<SourceRun> runs;
    const std::int64_t n = map.length();
    if (n == 0 || count <= 0) return runs;
    // Appends the run of positions from `pos` whose sources start at index g in [0, n),
    // up to the end of the distribution block holding g, and returns its length (at
    // most n - g).
    auto owned_run = [&](std::int64_t pos, std::int64_t g) {
        const std::int64_t length = std::min(count - pos, map.block_end(g) - g);
        runs.push_back({pos, length, map.owner(g), map.local_index(g)});
        return length;
    };
    std::int64_t pos = 0;
    if (periodic) {  // reduced first, so that no index leaves [0, n) whatever start and offset are
        std::int64_t g = add_mod(floor_mod(start, n), floor_mod(offset, n), n);
        while (pos < count) {
            const std::int64_t length = owned_run(pos, g);
            pos += length;
            g = length == n - g ? 0 : g + length;
        }
        return runs;
    }
    // Saturated: exact, or so far past an end that every position is past it too.
    const std::int64_t first = saturating_add(start, offset);
    if (first < 0) {  // positions before index 0 (-first is safe: first > -count >= -INT64_MAX)
        pos = first > -count ? -first : count;
        runs.push_back({0, pos, -1, 0});
    }
    for (std::int64_t g = std::max<std::int64_t>(first, 0); pos < count && g < n;) {
        const std::int64_t length = owned_run(pos, g);
        pos += length;
        g += length;
    }
    if (pos < count) runs.push_back({pos, count - pos, -1, 0});  // positions past index n - 1
    return runs;
}

}  // namespace dm::shift

namespace dm::shift {

std::vector<SourceRun> owned_source_runs(const layout::AxisMap &map, int coord, std::int64_t offset, bool periodic) {
    std::vector<SourceRun> runs;
    // Each run of `coord` holds consecutive global indices; a run that continues the
    // previous one on both sides (a cyclic axis shifted by a multiple of the
    // coordinates, say) joins it, so that such a shift moves a few long runs.
    for (const layout::OwnedRun &owned : map.owned_runs(coord)) {
        for (SourceRun r : source_runs(map, owned.global, offset, owned.length, periodic)) {
            r.offset += owned.local;
            SourceRun *last = runs.empty() ? nullptr : &runs.back();
            if (last && last->coord == r.coord && last->offset + last->length == r.offset &&
                (r.coord < 0 || last->local + last->length == r.local)) {
                last->length += r.length;
            } else {
                runs.push_back(r);
            }
        }
    }
    return runs;
}

}  // namespace dm::shift
