// Block distribution of a vector over the ranks of the library's communicator.
// Rank r holds the count(r) consecutive elements starting at begin(r); the first
// n % p ranks hold one element more than the others. Placement depends only on n.
#pragma once

#include <algorithm>
#include <cstdint>

namespace dm::vector {

class Block {
public:
    Block() = default;
    Block(std::int64_t n, int nranks)
        : n_(n), p_(nranks), q_(n / nranks), r_(n % nranks), inv_long_(1.0 / static_cast<double>(q_ + 1)),
          inv_short_(q_ > 0 ? 1.0 / static_cast<double>(q_) : 0.0) {}

    std::int64_t length() const { return n_; }
    std::int64_t begin(int rank) const { return rank * q_ + std::min<std::int64_t>(rank, r_); }
    std::int64_t count(int rank) const { return q_ + (rank < r_ ? 1 : 0); }
    // The most elements any rank holds (what vector memory is sized for).
    std::int64_t max_count() const { return q_ + (r_ ? 1 : 0); }
    // Rank holding global element g (0 <= g < n).
    // Permutations call this once per element: a multiply by a precomputed
    // reciprocal, corrected by one step, replaces a 64-bit division.
    int owner(std::int64_t g) const {
        const std::int64_t cut = r_ * (q_ + 1);
        return static_cast<int>(g < cut ? quotient(g, q_ + 1, inv_long_) : r_ + quotient(g - cut, q_, inv_short_));
    }

private:
    // floor(a / b) for 0 <= a < 2^52 and b >= 1, given inv = 1.0 / b: the double
    // estimate is off by at most one.
    static std::int64_t quotient(std::int64_t a, std::int64_t b, double inv) {
        std::int64_t q = static_cast<std::int64_t>(static_cast<double>(a) * inv);
        if (q * b > a)
            --q;
        else if ((q + 1) * b <= a)
            ++q;
        return q;
    }

    std::int64_t n_ = 0;
    int p_ = 1;
    std::int64_t q_ = 0, r_ = 0;
    double inv_long_ = 1.0, inv_short_ = 0.0;  // 1 / (q + 1) and 1 / q (0 when q == 0)
};

}  // namespace dm::vector
