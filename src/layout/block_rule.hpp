// The block distribution of n elements over p ranks, the library's one block rule (the
// CM canonical rule of DM_DIST_BLOCK): every rank holds b = ceil(n / p) consecutive
// elements, rank r those from min(r * b, n), so trailing ranks hold fewer or none.
// A DM_DIST_BLOCK axis takes max_count() as its block size (layout/distribution.cpp),
// so a 1-d DistArray with a DM_DIST_BLOCK axis and a vector of the same length place
// every element on the same rank at the same local position.
//
// owner() replaces the division by b with a multiply and a shift: permutations ask it
// once per element.
#pragma once

#include <algorithm>
#include <cstdint>

namespace dm::layout {

class BlockRule {
public:
    BlockRule() = default;
    BlockRule(std::int64_t n, int nranks)
        : n_(n), p_(nranks), b_(nranks > 0 ? n / nranks + (n % nranks != 0) : 0), by_b_(b_) {}

    std::int64_t length() const { return n_; }
    int nranks() const { return p_; }
    // ceil(n / p): what every rank but the trailing ones holds, and the most any holds.
    std::int64_t max_count() const { return b_; }
    std::int64_t begin(int rank) const { return b_ > 0 && rank <= n_ / b_ ? rank * b_ : n_; }
    std::int64_t count(int rank) const { return std::min(n_, begin(rank) + b_) - begin(rank); }
    // The rank holding global element g (0 <= g < n).
    int owner(std::int64_t g) const { return static_cast<int>(by_b_.divide(g)); }

private:
    // floor(a / d) for a fixed d >= 1 and 0 <= a < 2^31 as (a * m) >> k, with
    // k = 31 + ceil(log2 d) and m = ceil(2^k / d): the error a * (m d - 2^k) / 2^k
    // stays below 1 (Granlund and Montgomery), and a * m < 2^64. Larger a divide.
    class Divisor {
    public:
        Divisor() = default;
        explicit Divisor(std::int64_t d) : d_(std::max<std::int64_t>(d, 1)) {
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
    std::int64_t b_ = 0;
    Divisor by_b_;
};

}  // namespace dm::layout
