#include "layout/grid.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>

namespace dm::layout {
namespace {

int bit_width(int extent) {  // bits needed for coordinates 0 .. extent-1
    int bits = 0;
    while ((1 << bits) < extent) ++bits;
    return bits;
}

std::uint64_t gray(std::uint64_t x) { return x ^ (x >> 1); }

// Key of a cell whose ranks are assigned in increasing key order.
std::uint64_t order_key(const std::vector<int> &coords, const std::vector<int> &dims,
                        dm_grid_order order, std::uint64_t row_major) {
    const int n = static_cast<int>(dims.size());
    std::uint64_t key = 0;
    switch (order) {
        case DM_ORDER_SEND: return row_major;
        case DM_ORDER_NEWS:  // Gray code of each coordinate in its own bit field, axis 0 highest
            for (int a = 0; a < n; ++a)
                key = (key << bit_width(dims[a])) | gray(static_cast<std::uint64_t>(coords[a]));
            return key;
        case DM_ORDER_SHUFFLE: {  // interleave coordinate bits, last axis least significant
            int maxbits = 0;
            for (int d : dims) maxbits = std::max(maxbits, bit_width(d));
            int pos = 0;
            for (int b = 0; b < maxbits; ++b)
                for (int a = n - 1; a >= 0; --a)
                    if (b < bit_width(dims[a]))
                        key |= static_cast<std::uint64_t>((coords[a] >> b) & 1) << pos++;
            return key;
        }
    }
    fail(DM_ERR_ARG, "unknown grid order ", static_cast<int>(order));
}

}  // namespace

std::vector<int> rank_assignment(const std::vector<int> &dims, dm_grid_order order) {
    int cells = 1;
    for (int d : dims) cells *= d;
    std::vector<std::uint64_t> keys(static_cast<size_t>(cells));
    std::vector<int> coords(dims.size());
    for (int cell = 0; cell < cells; ++cell) {
        for (int a = static_cast<int>(dims.size()) - 1, rest = cell; a >= 0; --a) {
            coords[a] = rest % dims[a];
            rest /= dims[a];
        }
        keys[cell] = order_key(coords, dims, order, static_cast<std::uint64_t>(cell));
    }
    std::vector<int> by_key(static_cast<size_t>(cells));
    std::iota(by_key.begin(), by_key.end(), 0);
    std::sort(by_key.begin(), by_key.end(), [&](int x, int y) { return keys[x] < keys[y]; });
    std::vector<int> rank_of_cell(static_cast<size_t>(cells));
    for (int r = 0; r < cells; ++r) rank_of_cell[by_key[r]] = r;
    return rank_of_cell;
}

ProcessGrid::ProcessGrid(MPI_Comm comm, std::vector<int> dims, std::vector<int> periods, int order)
    : dims_(std::move(dims)), periods_(std::move(periods)) {
    require_mpi_initialized();
    if (comm == MPI_COMM_NULL) fail(DM_ERR_ARG, "process grid: communicator is MPI_COMM_NULL");
    // The first collective is the agreement on the arguments, on the caller's
    // communicator: a rank that is alone in this call, or in another datamotion call,
    // learns it there (with its deadline) instead of waiting in MPI_Comm_dup.
    check_mpi(MPI_Comm_rank(comm, &rank_), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size_), "MPI_Comm_size");
    collective(comm, [&] {
        const int n = static_cast<int>(dims_.size());
        if (n < 1 || n > DM_MAX_DIMS)
            fail(DM_ERR_ARG, "process grid: number of axes must be in [1, ", DM_MAX_DIMS, "], got ", n);
        if (!periods_.empty() && static_cast<int>(periods_.size()) != n)
            fail(DM_ERR_ARG, "process grid: ", periods_.size(), " periodic flags for ", n, " axes");
        for (int a = 0; a < n; ++a)
            if (dims_[a] < 0) fail(DM_ERR_ARG, "process grid: extent of axis ", a, " is negative (", dims_[a], ")");
        if (order != DM_ORDER_SEND && order != DM_ORDER_NEWS && order != DM_ORDER_SHUFFLE)
            fail(DM_ERR_ARG, "process grid: unknown order ", order);
    });
    check_mpi(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    try {
        check_mpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
        order_ = static_cast<dm_grid_order>(order);
        std::vector<std::int64_t> args(dims_.begin(), dims_.end());
        args.push_back(order_);
        for (int p : periods_) args.push_back(p != 0);
        require_same(comm_, args, "process grid arguments (dims, order, periods)");

        collective(comm_, [&] {
            // Products of up to seven int extents, stopped at INT_MAX (no communicator is larger).
            auto product = [&](int zero_as) {
                std::optional<std::int64_t> p = 1;
                for (int d : dims_)
                    if (p) p = checked_mul(*p, d > 0 ? d : zero_as, INT_MAX);
                return p;
            };
            const auto fixed = product(1);
            if (!fixed || size_ % *fixed != 0)
                fail(DM_ERR_ARG, "process grid: dims product ", fixed ? std::to_string(*fixed) : "beyond INT_MAX",
                     " does not divide the ", size_, " ranks of the communicator");
            // Only with extents left to choose: some MPIs reject fully given dims
            // whose product is wrong, which the check below reports more clearly.
            if (std::find(dims_.begin(), dims_.end(), 0) != dims_.end())
                check_mpi(MPI_Dims_create(size_, ndims(), dims_.data()), "MPI_Dims_create");
            const auto all = product(0);
            if (all != size_)
                fail(DM_ERR_ARG, "process grid: dims product ", all ? std::to_string(*all) : "beyond INT_MAX",
                     " differs from the ", size_, " ranks of the communicator");
        });
        periods_.resize(dims_.size(), 0);
        for (int &p : periods_) p = p != 0;

        rank_of_cell_ = rank_assignment(dims_, order_);
        cell_of_rank_.assign(static_cast<size_t>(size_), 0);
        for (int cell = 0; cell < size_; ++cell) cell_of_rank_[rank_of_cell_[cell]] = cell;
        coords_.resize(dims_.size());
        coords_of(rank_, coords_.data());

        axis_comms_.assign(dims_.size(), MPI_COMM_NULL);
        for (int a = 0; a < ndims(); ++a) {
            int color = 0;  // row-major index of the other coordinates
            for (int b = 0; b < ndims(); ++b)
                if (b != a) color = color * dims_[b] + coords_[b];
            check_mpi(MPI_Comm_split(comm_, color, coords_[a], &axis_comms_[a]), "MPI_Comm_split");
        }
    } catch (...) {
        for (MPI_Comm &c : axis_comms_)
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        MPI_Comm_free(&comm_);
        throw;
    }
}

ProcessGrid::~ProcessGrid() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;  // too late to free anything
    for (MPI_Comm &c : axis_comms_)
        if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
    if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

int ProcessGrid::rank_of(const int *coords) const {
    int cell = 0;
    for (int a = 0; a < ndims(); ++a) {
        int c = coords[a];
        if (periods_[a]) c = ((c % dims_[a]) + dims_[a]) % dims_[a];
        else if (c < 0 || c >= dims_[a])
            fail(DM_ERR_ARG, "grid coordinate ", coords[a], " out of range [0, ", dims_[a], ") on axis ", a);
        cell = cell * dims_[a] + c;
    }
    return rank_of_cell_[cell];
}

void ProcessGrid::coords_of(int rank, int *coords) const {
    if (rank < 0 || rank >= size_) fail(DM_ERR_ARG, "rank ", rank, " out of range [0, ", size_, ")");
    for (int a = ndims() - 1, rest = cell_of_rank_[rank]; a >= 0; --a) {
        coords[a] = rest % dims_[a];
        rest /= dims_[a];
    }
}

MPI_Comm ProcessGrid::axis_comm(int axis) const {
    if (axis < 0 || axis >= ndims()) fail(DM_ERR_ARG, "axis ", axis, " out of range [0, ", ndims(), ")");
    return axis_comms_[axis];
}

}  // namespace dm::layout
