// The rank functions' radix sort (src/vector/sort.hpp) against a serial oracle: a
// stable comparison sort of the element indices by (segment, key), with CVL's order on
// keys (NaN above every number, -0.0 equal to 0.0, descending reverses the keys but
// keeps equal keys in index order). Every key type, both directions, lengths around
// the comparison-sort cutoff and long ones, keys that use few bits (skipped digits),
// the whole int range, special doubles, segments with empty ones among them. And the
// merge of sorted runs the sample sort uses with few ranks.
#include "vector/sort.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

using namespace dm::vector;

namespace {

int g_failures = 0;
std::mt19937_64 g_rng(14);

int oracle_compare(int a, int b) { return (a > b) - (a < b); }
int oracle_compare(double a, double b) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return na - nb;
    return (a > b) - (a < b);
}

// The order of indices the rank functions must produce.
template <class K>
std::vector<std::uint32_t> oracle_order(const std::vector<K> &key, const std::vector<std::int64_t> &seg,
                                        bool descending) {
    std::vector<std::uint32_t> order(key.size());
    for (std::size_t i = 0; i < key.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (seg[a] != seg[b]) return seg[a] < seg[b];
        const int c = oracle_compare(key[a], key[b]);
        return descending ? c > 0 : c < 0;
    });
    return order;
}

template <class K, bool Segmented>
void check(const char *what, const std::vector<K> &key, const std::vector<std::int64_t> &seg, bool descending) {
    using Make = RankKey<K, Segmented>;
    using Item = Keyed<typename Make::type>;
    const std::size_t n = key.size();
    std::vector<Item> a(n), tmp(n);
    for (std::size_t i = 0; i < n; ++i)
        a[i] = Item{Make::make(key[i], seg[i], descending), static_cast<std::uint32_t>(i)};
    const Item *sorted = radix_sort(a.data(), tmp.data(), n);
    const std::vector<std::uint32_t> expect = oracle_order(key, seg, descending);
    for (std::size_t t = 0; t < n; ++t)
        if (sorted[t].idx != expect[t]) {
            std::fprintf(stderr, "radix sort: %s, n=%zu, %s: position %zu holds element %u, expected %u\n", what, n,
                         descending ? "descending" : "ascending", t, sorted[t].idx, expect[t]);
            ++g_failures;
            return;
        }
}

int pick_int(int kind) {
    switch (kind) {
    case 0: return 7;  // every key equal: every digit skipped
    case 1: return static_cast<int>(g_rng() % 9) - 4;
    default:
        switch (g_rng() % 8) {
        case 0: return INT_MIN;
        case 1: return INT_MAX;
        case 2: return 0;
        case 3: return -1;
        default: return static_cast<int>(static_cast<std::uint32_t>(g_rng()));
        }
    }
}

double pick_double(int kind) {
    static const double specials[] = {std::numeric_limits<double>::quiet_NaN(),
                                      -std::numeric_limits<double>::quiet_NaN(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      0.0,
                                      -0.0,
                                      std::numeric_limits<double>::denorm_min(),
                                      -std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::max(),
                                      -std::numeric_limits<double>::max(),
                                      1.0,
                                      -1.0};
    switch (kind) {
    case 0: return 2.5;
    case 1: return static_cast<double>(static_cast<int>(g_rng() % 7) - 3) / 2.0;
    default:
        if (g_rng() % 4 == 0) return specials[g_rng() % (sizeof specials / sizeof specials[0])];
        return std::ldexp(static_cast<double>(g_rng() >> 11) / 9007199254740992.0 - 0.5,
                          static_cast<int>(g_rng() % 200) - 100);
    }
}

// Segment numbers of n elements in nondecreasing order, with empty segments (skipped
// numbers) among them; all 0 when unsegmented.
std::vector<std::int64_t> segments(std::size_t n, bool segmented) {
    std::vector<std::int64_t> seg(n, 0);
    if (!segmented) return seg;
    std::int64_t j = 0;
    for (std::size_t i = 0; i < n; ++i) {
        while (g_rng() % 40 == 0) j += 1 + static_cast<std::int64_t>(g_rng() % 3);
        seg[i] = j;
    }
    return seg;
}

// merge_positions against a stable sort of the concatenated runs (run order is slot
// order, so the stable sort breaks ties as the merge must).
template <class K, bool Segmented>
void check_merge(int runs, std::size_t per_run, int kind) {
    using Key = typename RankKey<K, Segmented>::type;
    std::vector<Key> keys;
    std::vector<std::int64_t> start{0};
    for (int r = 0; r < runs; ++r) {
        const std::size_t len = per_run ? static_cast<std::size_t>(g_rng() % (2 * per_run + 1)) : 0;
        std::vector<Key> run;
        for (std::size_t i = 0; i < len; ++i) {
            K k;
            if constexpr (std::is_same_v<K, int>) k = pick_int(kind);
            else k = pick_double(kind);
            run.push_back(RankKey<K, Segmented>::make(k, static_cast<std::int64_t>(g_rng() % 3), false));
        }
        std::stable_sort(run.begin(), run.end());
        keys.insert(keys.end(), run.begin(), run.end());
        start.push_back(static_cast<std::int64_t>(keys.size()));
    }
    std::vector<std::uint32_t> order(keys.size()), pos(keys.size()), expect(keys.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    const std::uint32_t base = 1000;
    for (std::size_t t = 0; t < order.size(); ++t) expect[order[t]] = base + static_cast<std::uint32_t>(t);
    merge_positions(keys.data(), start.data(), runs, base, pos.data());
    if (pos != expect) {
        std::fprintf(stderr, "merge_positions: %d runs of about %zu keys (kind %d) differ from the oracle\n", runs,
                     per_run, kind);
        ++g_failures;
    }
}

}  // namespace

int main() {
    for (int runs = 1; runs <= 5; ++runs)
        for (std::size_t per_run : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(3000)})
            for (int kind = 0; kind < 3; ++kind) {
                check_merge<int, false>(runs, per_run, kind);
                check_merge<int, true>(runs, per_run, kind);
                check_merge<double, false>(runs, per_run, kind);
                check_merge<double, true>(runs, per_run, kind);
            }
    const std::size_t lengths[] = {0, 1, 2, 100, kRadixMin - 1, kRadixMin, kRadixMin + 1, 5000, 70000};
    for (std::size_t n : lengths)
        for (int kind = 0; kind < 3; ++kind)
            for (int descending = 0; descending < 2; ++descending) {
                std::vector<int> ik(n);
                std::vector<double> dk(n);
                for (std::size_t i = 0; i < n; ++i) {
                    ik[i] = pick_int(kind);
                    dk[i] = pick_double(kind);
                }
                const std::vector<std::int64_t> none = segments(n, false), seg = segments(n, true);
                check<int, false>("int keys", ik, none, descending);
                check<int, true>("int keys in segments", ik, seg, descending);
                check<double, false>("double keys", dk, none, descending);
                check<double, true>("double keys in segments", dk, seg, descending);
            }
    // Segment numbers that need more than one digit.
    {
        std::vector<double> dk(20000);
        std::vector<int> ik(20000);
        std::vector<std::int64_t> seg(20000);
        for (std::size_t i = 0; i < dk.size(); ++i) {
            dk[i] = pick_double(2);
            ik[i] = pick_int(2);
            seg[i] = static_cast<std::int64_t>(i / 3) * 4099;
        }
        check<int, true>("int keys in many segments", ik, seg, false);
        check<double, true>("double keys in many segments", dk, seg, true);
    }
    std::printf("cvl radix sort: %s\n", g_failures ? "FAILED" : "all passed");
    return g_failures ? 1 : 0;
}
