// The library's block rule (src/layout/block_rule.hpp): the owner of every position, found
// by a multiply and a shift, agrees with plain division and with begin/count, and with
// the DM_DIST_BLOCK axis map of a DistArray, for lengths up to INT_MAX and beyond and
// rank counts that do and do not divide them.
#include "harness.hpp"

#include "layout/block_rule.hpp"
#include "layout/distribution.hpp"

#include <cstdint>
#include <random>

DM_TEST(layout_block_owner_matches_division_and_axis_map) {
    std::mt19937_64 rng(5);
    const std::int64_t lengths[] = {0,      1,       2,       3,      7, 64, 65536, 65537, 999999, 1000000,
                                    (std::int64_t(1) << 31) - 1, (std::int64_t(1) << 33) + 5};
    const int ranks[] = {1, 2, 3, 4, 5, 7, 8, 64, 1000};
    bool right = true;
    for (std::int64_t n : lengths)
        for (int p : ranks) {
            const dm::layout::BlockRule b(n, p);
            const dm::layout::AxisMap axis(dm_dist{DM_DIST_BLOCK, 0, 0}, n, p);
            const std::int64_t q = n / p + (n % p != 0);
            right = right && b.max_count() == q;
            std::int64_t total = 0;
            for (int r = 0; r < p; ++r) {
                right = right && b.count(r) == axis.extent(r) && b.count(r) >= 0 && b.count(r) <= q;
                right = right && b.begin(r) == total;
                total += b.count(r);
            }
            right = right && total == n;
            auto check = [&](std::int64_t g) {
                const int o = b.owner(g);
                right = right && o == g / q && o == axis.owner(g) && b.begin(o) <= g && g < b.begin(o) + b.count(o) &&
                        g - b.begin(o) == axis.local_index(g);
            };
            if (n == 0) continue;
            for (int k = 0; k < p; ++k)
                if (b.count(k) > 0) {
                    check(b.begin(k));
                    check(b.begin(k) + b.count(k) - 1);
                }
            for (int t = 0; t < 2000; ++t) check(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)));
        }
    CHECK(right);
}
