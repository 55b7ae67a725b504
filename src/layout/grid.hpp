// Process grids: ranks of a communicator arranged on a Cartesian grid.
#pragma once

#include <datamotion/layout.h>

#include <vector>

namespace dm::layout {

class ProcessGrid {
public:
    // Collective on comm. dims entries of 0 are chosen as by MPI_Dims_create;
    // an empty periods vector means no axis is periodic. `order` is a dm_grid_order
    // value, taken as an integer so that any value a caller passes is checked.
    ProcessGrid(MPI_Comm comm, std::vector<int> dims, std::vector<int> periods, int order);
    ~ProcessGrid();
    ProcessGrid(const ProcessGrid &) = delete;
    ProcessGrid &operator=(const ProcessGrid &) = delete;

    MPI_Comm comm() const { return comm_; }
    int rank() const { return rank_; }
    int size() const { return size_; }
    int ndims() const { return static_cast<int>(dims_.size()); }
    const std::vector<int> &dims() const { return dims_; }
    const std::vector<int> &periods() const { return periods_; }
    const std::vector<int> &coords() const { return coords_; }
    dm_grid_order order() const { return order_; }

    // Coordinates wrap on periodic axes; out of range on others throws DM_ERR_ARG.
    int rank_of(const int *coords) const;
    void coords_of(int rank, int *coords) const;
    // Ranks sharing every coordinate but `axis`, ranked along it.
    MPI_Comm axis_comm(int axis) const;

private:
    MPI_Comm comm_ = MPI_COMM_NULL;
    std::vector<MPI_Comm> axis_comms_;
    std::vector<int> dims_, periods_, coords_;
    std::vector<int> rank_of_cell_;  // row-major cell index -> rank
    std::vector<int> cell_of_rank_;  // rank -> row-major cell index
    dm_grid_order order_ = DM_ORDER_SEND;
    int rank_ = 0, size_ = 1;
};

// The rank assignment of an order on a grid (exposed for tests): entry i is the
// rank of the cell with row-major index i.
std::vector<int> rank_assignment(const std::vector<int> &dims, dm_grid_order order);

}  // namespace dm::layout
