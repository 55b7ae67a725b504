// PSHIFT plans: many CSHIFT/EOSHIFT of arrays of one layout in one concurrent step.
#pragma once

#include <datamotion/shift.h>

#include "array/box.hpp"
#include "array/dist_array.hpp"
#include "shift/transfer.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace dm::shift {

class PShiftPlan {
public:
    // Collective on the prototype's grid: specs are checked and must agree across ranks.
    PShiftPlan(const array::DistArray &prototype, std::vector<dm_shift_spec> specs);
    ~PShiftPlan();
    PShiftPlan(const PShiftPlan &) = delete;
    PShiftPlan &operator=(const PShiftPlan &) = delete;

    // Collective, a hot path (dm::hot_path): dsts, srcs: nshifts() arrays each;
    // boundaries may be null when no shift reads one. Allocates nothing while the same
    // arrays come back.
    void execute(array::DistArray *const *dsts, const array::DistArray *const *srcs, const void *const *boundaries);

    int nshifts() const { return static_cast<int>(shifts_.size()); }
    MPI_Comm comm() const { return grid_->comm(); }
    const dm_shift_spec &spec(int k) const { return shifts_[k].spec; }
    Volume volume() const;
    // Local extents without the shifted axis of shift k: the shape of its array boundary.
    std::vector<std::int64_t> boundary_shape(int k) const;

private:
    struct Shift {
        dm_shift_spec spec;
        std::vector<Message> sends, recvs;
        std::vector<LocalCopy> copies;
        std::vector<array::Box> fills;  // vacated by an end-off shift
    };

    void plan(Shift &shift, int tag_base);
    void check_arrays(array::DistArray *const *dsts, const array::DistArray *const *srcs,
                      const void *const *boundaries) const;
    void fill_lines(std::byte *dst, const array::Box &box, int axis, const std::byte *lines) const;

    // The prototype's layout (the prototype itself may be freed).
    std::shared_ptr<const layout::ProcessGrid> grid_;
    array::DistArray::LayoutKey key_;
    dm_dtype dtype_;
    std::size_t elsize_;
    std::vector<layout::AxisMap> maps_;
    std::vector<int> ghost_;
    std::vector<std::int64_t> local_shape_, storage_shape_;
    std::vector<Shift> shifts_;

    // Persistent requests, bound to the storages of the last execution.
    PersistentRequests requests_;
    std::vector<const std::byte *> sources_;  // this execution's buffers, kept to avoid allocating
    std::vector<std::byte *> targets_;
    std::vector<const void *> buffers_;
    // Copies of sources that are also destinations, kept for the next execution.
    std::vector<std::vector<std::byte>> snapshots_;
};

}  // namespace dm::shift
