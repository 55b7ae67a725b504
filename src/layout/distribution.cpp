#include "layout/distribution.hpp"

#include "layout/block_rule.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <climits>
#include <optional>

namespace dm::layout {

std::int64_t numroc(std::int64_t n, std::int64_t block, int coord, int src, int nprocs) {
    std::int64_t mydist = (std::int64_t{nprocs} + coord - src) % nprocs;  // distance from the source coordinate
    std::int64_t nblocks = n / block;
    std::int64_t count = (nblocks / nprocs) * block;
    std::int64_t extra = nblocks % nprocs;
    if (mydist < extra) count += block;
    else if (mydist == extra) count += n % block;
    return count;
}

namespace {

// The sizes of a DM_DIST_SIZES distribution: one per coordinate, none negative,
// summing to n.
void validate_sizes(const dm_dist &dist, std::int64_t n, int nprocs, const std::string &where) {
    if (dist.count != nprocs)
        fail(DM_ERR_ARG, where, ": ", dist.count, " sizes for ", nprocs, " grid coordinates (give one per coordinate)");
    if (!dist.sizes) fail(DM_ERR_ARG, where, ": sizes is NULL");
    std::optional<std::int64_t> sum = 0;
    for (int c = 0; c < nprocs; ++c) {
        if (dist.sizes[c] < 0) fail(DM_ERR_ARG, where, ": size of coordinate ", c, " is negative (", dist.sizes[c], ")");
        if (sum) sum = checked_add(*sum, dist.sizes[c]);
    }
    if (!sum) fail(DM_ERR_ARG, where, ": the sizes sum past 2^63 - 1, not to the axis length ", n);
    if (*sum != n) fail(DM_ERR_ARG, where, ": the sizes sum to ", *sum, ", not to the axis length ", n);
}

}  // namespace

void validate(const dm_dist &dist, std::int64_t n, int nprocs, const std::string &where) {
    if (nprocs < 1) fail(DM_ERR_ARG, where, ": number of grid coordinates must be positive");
    const int kind = enum_value(dist.kind);
    if (kind == DM_DIST_BLOCK || kind == DM_DIST_CYCLIC) return;
    if (kind == DM_DIST_SIZES) return validate_sizes(dist, n, nprocs, where);
    if (kind != DM_DIST_BLOCK_CYCLIC) fail(DM_ERR_ARG, where, ": unknown distribution kind ", kind);
    if (dist.block < 1) fail(DM_ERR_ARG, where, ": block size must be positive, got ", dist.block);
    if (dist.src < 0 || dist.src >= nprocs)
        fail(DM_ERR_ARG, where, ": source coordinate ", dist.src, " out of range [0, ", nprocs, ")");
}

void append_words(const dm_dist &dist, std::vector<std::int64_t> &out) {
    const bool bc = dist.kind == DM_DIST_BLOCK_CYCLIC;
    out.insert(out.end(), {dist.kind, bc ? dist.block : 0, bc ? dist.src : 0});
    if (dist.kind != DM_DIST_SIZES) return;
    out.push_back(dist.count);
    out.insert(out.end(), dist.sizes, dist.sizes + dist.count);
}

dm_dist dist_from_words(const std::vector<std::int64_t> &words, std::size_t &at) {
    const auto left = [&] { return static_cast<std::int64_t>(words.size() - std::min(at, words.size())); };
    if (left() < 3) fail(DM_ERR_ARG, "distribution: ", left(), " words left, 3 needed");
    dm_dist d{static_cast<dm_dist_kind>(words[at]), words[at + 1], static_cast<int>(words[at + 2]), 0, nullptr};
    at += 3;
    if (d.kind != DM_DIST_SIZES) return d;
    if (left() < 1 || words[at] < 0 || words[at] >= left() || words[at] > INT_MAX)
        fail(DM_ERR_ARG, "distribution: sizes cut short");
    d.count = static_cast<int>(words[at]);
    d.sizes = words.data() + at + 1;
    at += 1 + static_cast<std::size_t>(d.count);
    return d;
}

std::string dists_text(const std::vector<std::int64_t> &words) {
    std::string out = "(";
    int axes = 0;
    for (std::size_t at = 0; at + 3 <= words.size(); ++axes) {
        out += axes ? ", " : "";
        const std::int64_t kind = words[at], block = words[at + 1], src = words[at + 2];
        at += 3;
        if (kind == DM_DIST_BLOCK) out += "Block()";
        else if (kind == DM_DIST_CYCLIC) out += "Cyclic()";
        else if (kind == DM_DIST_SIZES && at < words.size()) {
            const std::size_t count = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(words[at], 0)),
                                                            words.size() - at - 1);
            std::string list;
            for (std::size_t i = 0; i < count; ++i) list += (i ? ", " : "") + std::to_string(words[at + 1 + i]);
            out += "Sizes([" + list + "])";
            at += 1 + count;
        } else {
            out += "BlockCyclic(r=" + std::to_string(block) + ", src=" + std::to_string(src) + ")";
        }
    }
    return out + (axes == 1 ? ",)" : ")");
}

AxisMap::AxisMap(const dm_dist &dist, std::int64_t n, int nprocs) : n_(n), nprocs_(nprocs) {
    validate(dist, n, nprocs, "distribution");
    if (n < 0) fail(DM_ERR_ARG, "axis length must be non-negative, got ", n);
    kind_ = dist.kind;  // valid from here on
    switch (kind_) {
        case DM_DIST_BLOCK:  // CM canonical: the block rule's ceil(n / nprocs) per coordinate
            block_ = n > 0 ? BlockRule(n, nprocs).max_count() : 1;
            break;
        case DM_DIST_CYCLIC: block_ = 1; break;
        case DM_DIST_BLOCK_CYCLIC:
            block_ = dist.block;
            src_ = dist.src;
            break;
        case DM_DIST_SIZES: {
            block_ = 0;  // none: block_cyclic() is false
            auto sizes = std::make_shared<Sizes>();
            sizes->sizes.assign(dist.sizes, dist.sizes + nprocs);
            sizes->first.assign(1, 0);
            for (std::int64_t size : sizes->sizes) sizes->first.push_back(sizes->first.back() + size);
            sizes_ = std::move(sizes);
            break;
        }
    }
}

dm_dist AxisMap::resolved() const {
    if (sizes_) return dm_dist{kind_, 0, 0, nprocs_, sizes_->sizes.data()};
    return dm_dist{kind_, block_, src_, 0, nullptr};
}

bool AxisMap::same_owners(const AxisMap &other) const {
    if (nprocs_ != other.nprocs_ || block_cyclic() != other.block_cyclic()) return false;
    if (block_cyclic()) return block_ == other.block_ && src_ == other.src_;
    return sizes_->first == other.sizes_->first;
}

int AxisMap::sizes_owner(std::int64_t g) const {
    // The last coordinate whose first index is <= g: coordinates that own nothing
    // share their first index with the next one, which is never past g.
    const auto &first = sizes_->first;
    return static_cast<int>(std::upper_bound(first.begin(), first.end(), g) - first.begin()) - 1;
}

std::int64_t AxisMap::block_end(std::int64_t g) const {
    if (sizes_) return sizes_->first[static_cast<std::size_t>(owner(g)) + 1];
    const std::int64_t start = g - g % block_;
    return start + std::min(block_, n_ - start);  // start + block_ may not be formed
}

std::vector<OwnedRun> AxisMap::owned_runs(int coord, std::int64_t begin, std::int64_t end) const {
    std::vector<OwnedRun> runs;
    const std::int64_t extent = this->extent(coord);
    if (extent == 0) return runs;
    if (sizes_) {  // one run: the coordinate's indices, cut to the window
        const std::int64_t first = global_index(coord, 0);
        const std::int64_t lo = std::max(first, begin), hi = std::min(first + extent, end);
        if (lo < hi) runs.push_back({lo - first, lo, hi - lo});
        return runs;
    }
    // The local blocks before `first` end before index `begin`: every round of
    // blocks covers block * nprocs global indices.
    std::int64_t first = begin > 0 ? std::min(extent, (begin / (block_ * nprocs_)) * block_) : 0;
    for (; first < extent; first += block_) {
        const std::int64_t size = std::min(block_, extent - first);
        std::int64_t global = global_index(coord, first), local = first;
        if (global >= end) break;
        if (global < begin) {  // the window starts inside this block
            local += std::min(begin - global, size);
            global = begin;
        }
        const std::int64_t length = std::min(first + size - local, end - global);
        if (length > 0) runs.push_back({local, global, length});
        if (size == extent - first) break;  // the last block: first + block may not be formed
    }
    return runs;
}

}  // namespace dm::layout
