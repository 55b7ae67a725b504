// Halo plans: fill the ghost regions of an array from its neighbours in one
// concurrent step, so stencils read shifted values in place.
#pragma once

#include "array/dist_array.hpp"
#include "exchange/plan.hpp"
#include "shift/volume.hpp"

#include <memory>
#include <string>
#include <vector>

namespace dm::shift {

class HaloPlan {
public:
    // Collective on the prototype's grid. Faces only, or with `corners` also the
    // edges and corners a box stencil reads. Pieces bound for one neighbour rank
    // travel in one message.
    HaloPlan(const array::DistArray &prototype, bool corners,
             exchange::Executor executor = exchange::Executor::Auto);
    HaloPlan(const HaloPlan &) = delete;
    HaloPlan &operator=(const HaloPlan &) = delete;

    // Collective, a hot path (dm::hot_path). Fills the ghosts of `a` (laid out like
    // the prototype): begin() starts the messages and fills what stays local,
    // end() completes them. Between the two the caller may read and write a's
    // interior but not its ghosts, nor free or resize it.
    void exchange(array::DistArray &a) {
        begin(a);
        end();
    }
    void begin(array::DistArray &a);
    void end();
    bool test();  // local: advances the exchange (exchange::Plan::test)
    bool in_flight() const { return plan_.in_flight(); }
    MPI_Comm comm() const { return grid_->comm(); }
    Volume volume() const { return Volume::of(plan_.volume(), elsize_); }
    std::string describe() const { return plan_.describe(); }
    std::vector<exchange::MessageShape> messages() const { return plan_.messages(); }  // local
    bool corners() const { return corners_; }

private:
    std::shared_ptr<const layout::ProcessGrid> grid_;
    array::DistArray::LayoutKey key_;
    std::size_t elsize_;
    bool corners_;
    exchange::Plan plan_;
    array::DistArray *active_ = nullptr;  // the array of the exchange in flight
};

}  // namespace dm::shift
