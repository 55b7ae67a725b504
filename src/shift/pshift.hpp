// PSHIFT plans: many CSHIFT/EOSHIFT of arrays of one layout in one concurrent step.
#pragma once

#include <datamotion/shift.h>

#include "array/box.hpp"
#include "array/dist_array.hpp"
#include "exchange/plan.hpp"
#include "shift/volume.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dm::shift {

class PShiftPlan {
public:
    // Collective on the prototype's grid: specs are checked and must agree across ranks.
    // Every shift's pieces bound for one rank travel in one message.
    PShiftPlan(const array::DistArray &prototype, std::vector<dm_shift_spec> specs,
               exchange::Executor executor = exchange::Executor::Auto);
    PShiftPlan(const PShiftPlan &) = delete;
    PShiftPlan &operator=(const PShiftPlan &) = delete;

    // Collective, a hot path (dm::hot_path): dsts, srcs: nshifts() arrays each;
    // boundaries may be null when no shift reads one. Allocates nothing while the same
    // arrays come back. begin() starts the messages and does the local copies and
    // boundary fills; end() completes them. In between the caller must not write a
    // source nor touch a destination.
    void execute(array::DistArray *const *dsts, const array::DistArray *const *srcs, const void *const *boundaries) {
        begin(dsts, srcs, boundaries);
        end();
    }
    void begin(array::DistArray *const *dsts, const array::DistArray *const *srcs, const void *const *boundaries);
    void end();
    bool test();  // local: advances the execution (exchange::Plan::test)
    bool in_flight() const { return plan_.in_flight(); }
    std::string describe() const { return plan_.describe(); }
    std::vector<exchange::MessageShape> messages() const { return plan_.messages(); }  // local

    int nshifts() const { return static_cast<int>(shifts_.size()); }
    MPI_Comm comm() const { return grid_->comm(); }
    const dm_shift_spec &spec(int k) const { return shifts_[k].spec; }
    Volume volume() const { return Volume::of(plan_.volume(), elsize_); }
    // Local extents without the shifted axis of shift k: the shape of its array boundary.
    std::vector<std::int64_t> boundary_shape(int k) const;

private:
    struct Shift {
        dm_shift_spec spec;
        std::vector<array::Box> fills;  // vacated by an end-off shift
    };

    // Adds shift k's messages and copies to the exchange plan.
    void plan(int k);
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

    // Slots 0..k-1: the sources, k..2k-1: the destinations (bound at begin).
    exchange::Plan plan_;
    std::vector<const void *> slots_;
    std::vector<const array::DistArray *> active_;  // the arrays of the execution in flight
};

}  // namespace dm::shift
