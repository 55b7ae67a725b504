// Stable LSD radix sort of (key, index) items for the rank functions (library.cpp).
//
// Keys are unsigned images whose unsigned order is the rank order: ints with the sign
// bit flipped, doubles through the usual sign-magnitude transform (every NaN one
// value above +inf, -0.0 the same as 0.0, as CVL's ranks order them), complemented for
// a descending rank, and the segment number above the key for segmented ranks. Items
// enter in index order, so sorting by key alone keeps equal keys in index order.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

namespace dm::vector {

// The order-preserving image of an int key.
inline std::uint32_t ordered_bits(int key, bool descending) {
    const std::uint32_t u = static_cast<std::uint32_t>(key) ^ 0x80000000u;
    return descending ? ~u : u;
}

// The order-preserving image of a double key: NaN above every number (all NaNs equal),
// -0.0 equal to 0.0.
inline std::uint64_t ordered_bits(double key, bool descending) {
    std::uint64_t u;
    if (std::isnan(key)) {
        u = 0xFFF8000000000000ull;  // the image of a positive quiet NaN: above +inf's
    } else {
        if (key == 0.0) key = 0.0;  // -0.0 ties with 0.0
        std::memcpy(&u, &key, sizeof u);
        u = (u >> 63) ? ~u : u | 0x8000000000000000ull;
    }
    return descending ? ~u : u;
}

// A segment number above a 64-bit key image (segmented double ranks).
struct WideKey {
    std::uint64_t lo;  // key image
    std::uint64_t hi;  // segment number
};
inline bool operator<(const WideKey &a, const WideKey &b) { return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo; }
inline bool operator==(const WideKey &a, const WideKey &b) { return a.hi == b.hi && a.lo == b.lo; }

// Significant bits of each key type (segment numbers are below 2^31).
constexpr int key_width(std::uint32_t) { return 32; }
constexpr int key_width(std::uint64_t) { return 64; }
constexpr int key_width(const WideKey &) { return 96; }

constexpr int kDigitBits = 11;
constexpr unsigned kDigitMask = (1u << kDigitBits) - 1;

inline unsigned digit(std::uint32_t k, int shift) { return (k >> shift) & kDigitMask; }
inline unsigned digit(std::uint64_t k, int shift) { return static_cast<unsigned>(k >> shift) & kDigitMask; }
inline unsigned digit(const WideKey &k, int shift) {
    if (shift >= 64) return static_cast<unsigned>(k.hi >> (shift - 64)) & kDigitMask;
    std::uint64_t v = k.lo >> shift;
    if (shift > 64 - kDigitBits) v |= k.hi << (64 - shift);
    return static_cast<unsigned>(v) & kDigitMask;
}

// A key and the index of its element (global in the vector, or the arrival slot).
template <class Key>
struct Keyed {
    Key key;
    std::uint32_t idx;
};

template <class Key>
inline bool keyed_less(const Keyed<Key> &a, const Keyed<Key> &b) {
    if (a.key < b.key) return true;
    if (b.key < a.key) return false;
    return a.idx < b.idx;
}

// The radix key of an element: its key's order-preserving image, below the segment
// number for segmented ranks (so sorting keeps every segment in its place).
template <class K, bool Segmented>
struct RankKey;
template <>
struct RankKey<int, false> {
    using type = std::uint32_t;
    static type make(int key, std::int64_t, bool descending) { return ordered_bits(key, descending); }
};
template <>
struct RankKey<int, true> {
    using type = std::uint64_t;
    static type make(int key, std::int64_t seg, bool descending) {
        return (static_cast<std::uint64_t>(seg) << 32) | ordered_bits(key, descending);
    }
};
template <>
struct RankKey<double, false> {
    using type = std::uint64_t;
    static type make(double key, std::int64_t, bool descending) { return ordered_bits(key, descending); }
};
template <>
struct RankKey<double, true> {
    using type = WideKey;
    static type make(double key, std::int64_t seg, bool descending) {
        return WideKey{ordered_bits(key, descending), static_cast<std::uint64_t>(seg)};
    }
};

// Below this many items a comparison sort beats clearing and scanning the histograms.
constexpr std::size_t kRadixMin = 512;

// Sorts the n items of a by (key, idx), given that a is in idx order, using tmp (n
// items) as the second buffer. Returns the buffer holding the result (a or tmp).
// One pass builds every digit's histogram; digits on which all keys agree are skipped,
// so keys that use few bits (small ints, few segments) cost few passes.
template <class Key>
Keyed<Key> *radix_sort(Keyed<Key> *a, Keyed<Key> *tmp, std::size_t n) {
    using Item = Keyed<Key>;
    if (n < kRadixMin) {
        std::sort(a, a + n, keyed_less<Key>);
        return a;
    }
    constexpr int kDigits = (key_width(Key{}) + kDigitBits - 1) / kDigitBits;
    constexpr std::size_t kBuckets = std::size_t(1) << kDigitBits;
    std::vector<std::uint32_t> hist(kDigits * kBuckets, 0);
    for (std::size_t i = 0; i < n; ++i)
        for (int d = 0; d < kDigits; ++d) ++hist[d * kBuckets + digit(a[i].key, d * kDigitBits)];
    Item *src = a, *dst = tmp;
    for (int d = 0; d < kDigits; ++d) {
        std::uint32_t *h = hist.data() + d * kBuckets;
        if (h[digit(src[0].key, d * kDigitBits)] == n) continue;  // every key has this digit
        std::uint32_t sum = 0;
        for (std::size_t b = 0; b < kBuckets; ++b) {
            const std::uint32_t count = h[b];
            h[b] = sum;
            sum += count;
        }
        const int shift = d * kDigitBits;
        for (std::size_t i = 0; i < n; ++i) dst[h[digit(src[i].key, shift)]++] = src[i];
        std::swap(src, dst);
    }
    return src;
}

// Runs [start[r], start[r + 1]) of keys, r < runs, each sorted, a lower run's keys
// ranking before a higher run's equal keys: writes at each key's slot base + its
// position in the merged order. One pass comparing the runs' heads: for few runs,
// cheaper than sorting the keys again.
template <class Key>
void merge_positions(const Key *keys, const std::int64_t *start, int runs, std::uint32_t base, std::uint32_t *pos) {
    std::vector<std::int64_t> at(start, start + runs);
    const std::int64_t n = start[runs] - start[0];
    for (std::int64_t t = 0; t < n; ++t) {
        int best = -1;
        for (int r = 0; r < runs; ++r)
            if (at[r] < start[r + 1] && (best < 0 || keys[at[r]] < keys[at[best]])) best = r;
        pos[at[best]++] = base + static_cast<std::uint32_t>(t);
    }
}

}  // namespace dm::vector
