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
    Block(std::int64_t n, int nranks) : n_(n), p_(nranks), q_(n / nranks), r_(n % nranks) {}

    std::int64_t length() const { return n_; }
    std::int64_t begin(int rank) const { return rank * q_ + std::min<std::int64_t>(rank, r_); }
    std::int64_t count(int rank) const { return q_ + (rank < r_ ? 1 : 0); }
    // The most elements any rank holds (what vector memory is sized for).
    std::int64_t max_count() const { return q_ + (r_ ? 1 : 0); }
    // Rank holding global element g (0 <= g < n).
    int owner(std::int64_t g) const {
        const std::int64_t cut = r_ * (q_ + 1);
        return static_cast<int>(g < cut ? g / (q_ + 1) : r_ + (g - cut) / q_);
    }

private:
    std::int64_t n_ = 0;
    int p_ = 1;
    std::int64_t q_ = 0, r_ = 0;
};

}  // namespace dm::vector
