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
        : n_(n), p_(nranks), q_(n / nranks), r_(n % nranks), cut_(r_ * (q_ + 1)), long_(q_ + 1), short_(q_) {}

    std::int64_t length() const { return n_; }
    std::int64_t begin(int rank) const { return rank * q_ + std::min<std::int64_t>(rank, r_); }
    std::int64_t count(int rank) const { return q_ + (rank < r_ ? 1 : 0); }
    // The most elements any rank holds (what vector memory is sized for).
    std::int64_t max_count() const { return q_ + (r_ ? 1 : 0); }
    // Rank holding global element g (0 <= g < n). Permutations call this once or
    // twice per element: a multiply and a shift replace a 64-bit division.
    int owner(std::int64_t g) const {
        return static_cast<int>(g < cut_ ? long_.divide(g) : r_ + short_.divide(g - cut_));
    }

private:
    // floor(a / d) for a fixed d >= 1 and 0 <= a < 2^31 (every CVL length is an int)
    // as (a * m) >> k with k = 31 + ceil(log2 d) and m = ceil(2^k / d): the error
    // a * (m d - 2^k) / 2^k stays below 1 (Granlund and Montgomery), and a * m < 2^64.
    // Longer vectors, which CVL's int lengths never make, divide.
    class Divisor {
    public:
        Divisor() = default;
        explicit Divisor(std::int64_t d) : d_(d) {
            if (d < 1 || d > (std::int64_t(1) << 31)) return;
            int log = 0;
            while ((std::int64_t(1) << log) < d) ++log;
            k_ = 31 + log;
            m_ = ((std::uint64_t(1) << k_) + static_cast<std::uint64_t>(d) - 1) / static_cast<std::uint64_t>(d);
        }
        std::int64_t divide(std::int64_t a) const {
            if (m_ != 0 && a < (std::int64_t(1) << 31))
                return static_cast<std::int64_t>((static_cast<std::uint64_t>(a) * m_) >> k_);
            return a / d_;
        }

    private:
        std::int64_t d_ = 1;
        std::uint64_t m_ = 0;  // 0: divide
        int k_ = 0;
    };

    std::int64_t n_ = 0;
    int p_ = 1;
    std::int64_t q_ = 0, r_ = 0, cut_ = 0;
    Divisor long_, short_;  // q + 1 and q (q may be 0: then every g < cut_)
};

}  // namespace dm::vector
