#include "redist/overlap.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <climits>

namespace dm::redist {

std::vector<Run> overlaps(const layout::AxisMap &mine, int coord, std::int64_t offset, const layout::AxisMap &other,
                          std::int64_t other_offset, std::int64_t count, std::int64_t split, const PhaseOf &phase_of) {
    std::vector<Run> runs;
    const std::int64_t extent = mine.extent(coord), block = mine.block(), end = offset + count;
    // My local blocks are runs of global indices; the first one that reaches the window.
    std::int64_t first = 0;
    if (offset > 0 && extent > 0) {
        const std::int64_t cycle = block * mine.nprocs();  // global indices per round of blocks
        first = std::min(extent, (offset / cycle) * block);
    }
    for (; first < extent; first += block) {
        const std::int64_t end_local = std::min(extent, first + block);
        std::int64_t g = mine.global_index(coord, first), local = first;
        if (g >= end) break;
        if (g < offset) {  // the window starts inside this block
            local += std::min(offset - g, end_local - first);
            g = offset;
        }
        while (local < end_local && g < end) {
            // Cut where the other side's block, or the schedule's block, ends.
            const std::int64_t s = g - offset, o = other_offset + s;
            std::int64_t stop = s + (o / other.block() + 1) * other.block() - o;
            if (split > 0) stop = std::min(stop, (s / split + 1) * split);
            const std::int64_t length = std::min({stop - s, end_local - local, end - g});
            runs.push_back({s, length, local, other.owner(o), phase_of ? phase_of(s) : 0});
            g += length, local += length;
        }
    }
    return runs;
}

std::int64_t product_count(const std::vector<std::vector<const Run *>> &runs) {
    std::int64_t count = 1;
    for (const auto &axis : runs) {
        std::int64_t n = 0;
        for (const Run *r : axis) n += r->length;
        count *= n;
    }
    return count;
}

namespace {

int checked_int(std::int64_t v, const char *what) {
    if (v > INT_MAX) fail(DM_ERR_UNSUPPORTED, "redist: ", what, " ", v, " exceeds what an MPI datatype can describe");
    return static_cast<int>(v);
}

}  // namespace

MPI_Datatype product_datatype(const std::vector<std::vector<const Run *>> &runs,
                              const std::vector<std::int64_t> &byte_strides, std::int64_t origin,
                              MPI_Datatype element) {
    // Built from the last axis out: the type of axes a+1.. at index 0 of axis a is
    // resized to the stride of axis a, so a run of length L repeats it L times.
    MPI_Datatype inner = element;
    bool owned = false;
    for (int a = static_cast<int>(runs.size()) - 1; a >= 0; --a) {
        MPI_Datatype unit;
        check_mpi(MPI_Type_create_resized(inner, 0, byte_strides[a], &unit), "MPI_Type_create_resized");
        if (owned) MPI_Type_free(&inner);
        const auto &axis = runs[a];
        std::vector<int> lengths(axis.size());
        std::vector<MPI_Aint> displacements(axis.size());
        for (std::size_t i = 0; i < axis.size(); ++i) {
            lengths[i] = checked_int(axis[i]->length, "run length");
            displacements[i] = static_cast<MPI_Aint>(axis[i]->local * byte_strides[a] + (a == 0 ? origin : 0));
        }
        MPI_Datatype outer;
        check_mpi(MPI_Type_create_hindexed(checked_int(static_cast<std::int64_t>(axis.size()), "number of runs"),
                                           lengths.data(), displacements.data(), unit, &outer),
                  "MPI_Type_create_hindexed");
        MPI_Type_free(&unit);
        inner = outer, owned = true;
    }
    check_mpi(MPI_Type_commit(&inner), "MPI_Type_commit");
    return inner;
}

}  // namespace dm::redist
