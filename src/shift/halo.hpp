// Halo plans: fill the ghost regions of an array from its neighbours in one
// concurrent step, so stencils read shifted values in place.
#pragma once

#include "array/dist_array.hpp"
#include "shift/transfer.hpp"

#include <memory>
#include <vector>

namespace dm::shift {

class HaloPlan {
public:
    // Collective on the prototype's grid. Faces only, or with `corners` also the
    // edges and corners a box stencil reads.
    HaloPlan(const array::DistArray &prototype, bool corners);
    ~HaloPlan();
    HaloPlan(const HaloPlan &) = delete;
    HaloPlan &operator=(const HaloPlan &) = delete;

    // Collective, a hot path (dm::hot_path). Fills the ghosts of `a` (laid out like
    // the prototype).
    void exchange(array::DistArray &a);
    MPI_Comm comm() const { return grid_->comm(); }
    Volume volume() const;
    bool corners() const { return corners_; }

private:
    std::shared_ptr<const layout::ProcessGrid> grid_;
    array::DistArray::LayoutKey key_;
    std::size_t elsize_;
    std::vector<std::int64_t> storage_shape_;
    bool corners_;
    std::vector<Message> sends_, recvs_;
    std::vector<LocalCopy> copies_;
    PersistentRequests requests_;
    std::vector<const void *> buffers_;
};

}  // namespace dm::shift
