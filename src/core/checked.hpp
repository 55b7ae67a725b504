// Arithmetic on sizes, counts and indices that cannot overflow, and reading of
// enum arguments that may hold any integer. Lengths are int64 inside datamotion;
// a product or sum that does not fit is reported, never wrapped.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

namespace dm {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

// a * b for a, b >= 0, or nothing when it exceeds `limit` (INT64_MAX by default).
constexpr std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b, std::int64_t limit = kInt64Max) {
    if (a != 0 && b > limit / a) return std::nullopt;
    return a * b;
}

// a + b for a, b >= 0, or nothing when it exceeds `limit`.
constexpr std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b, std::int64_t limit = kInt64Max) {
    if (a > limit - b) return std::nullopt;
    return a + b;
}

// The product of non-negative extents, or nothing when it exceeds `limit`.
inline std::optional<std::int64_t> checked_product(const std::vector<std::int64_t> &extents,
                                                   std::int64_t limit = kInt64Max) {
    std::optional<std::int64_t> p = 1;
    for (std::int64_t e : extents)
        if (!(p = checked_mul(*p, e, limit))) return std::nullopt;
    return p;
}

// a + b clamped to [INT64_MIN, INT64_MAX]: a position that far out is past any end anyway.
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
    if (b > 0 && a > kInt64Max - b) return kInt64Max;
    if (b < 0 && a < kInt64Min - b) return kInt64Min;
    return a + b;
}

// x mod n in [0, n) for n > 0 and any x (INT64_MIN included).
constexpr std::int64_t floor_mod(std::int64_t x, std::int64_t n) {
    const std::int64_t r = x % n;
    return r < 0 ? r + n : r;
}

// (a + b) mod n for a, b in [0, n), without forming a + b.
constexpr std::int64_t add_mod(std::int64_t a, std::int64_t b, std::int64_t n) {
    return a >= n - b ? a - (n - b) : a + b;
}

// The integer a C caller passed for an enum argument, read as bytes: C allows any
// int there, while a C++ load of a value outside the enumerators' range is undefined
// (UBSan's enum check). Validate this integer before the enum is used as such.
template <class Enum>
int enum_value(const Enum &e) {
    static_assert(std::is_enum_v<Enum> && sizeof(Enum) == sizeof(int), "a C enum of int size");
    int value;
    std::memcpy(&value, &e, sizeof value);
    return value;
}

}  // namespace dm
