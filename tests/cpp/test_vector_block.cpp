// CVL's block distribution (src/vector/dist.hpp): the owner of every position, found
// by a multiply and a shift, agrees with plain division and with begin/count, for
// lengths up to INT_MAX and rank counts that do and do not divide them.
#include "harness.hpp"

#include "vector/dist.hpp"

#include <cstdint>
#include <random>

DM_TEST(vector_block_owner_matches_division) {
    std::mt19937_64 rng(5);
    const std::int64_t lengths[] = {0, 1, 2, 3, 7, 64, 65536, 65537, 999999, 1000000, (std::int64_t(1) << 31) - 1};
    const int ranks[] = {1, 2, 3, 4, 5, 7, 8, 64, 1000};
    bool right = true;
    for (std::int64_t n : lengths)
        for (int p : ranks) {
            const dm::vector::Block b(n, p);
            const std::int64_t q = n / p, r = n % p;
            auto expect = [&](std::int64_t g) {
                return static_cast<int>(g < r * (q + 1) ? g / (q + 1) : r + (g - r * (q + 1)) / q);
            };
            auto check = [&](std::int64_t g) {
                const int o = b.owner(g);
                right = right && o == expect(g) && b.begin(o) <= g && g < b.begin(o) + b.count(o);
            };
            if (n == 0) continue;
            // Every rank's first and last position, and random ones.
            for (int k = 0; k < p; ++k)
                if (b.count(k) > 0) {
                    check(b.begin(k));
                    check(b.begin(k) + b.count(k) - 1);
                }
            for (int t = 0; t < 2000; ++t) check(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(n)));
        }
    CHECK(right);
}
