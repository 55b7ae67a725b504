// Redistribution plans: the messages that move data from one layout to another,
// as datatypes over both storages, grouped into phases.
#pragma once

#include <datamotion/redist.h>

#include "array/dist_array.hpp"
#include "exchange/plan.hpp"
#include "layout/distribution.hpp"
#include "redist/overlap.hpp"
#include "redist/scale.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dm::redist {

// One side of a redistribution: how a window of a global index space is
// distributed over a grid of ranks and where this rank stores its part.
struct Side {
    std::vector<layout::AxisMap> maps;  // per axis
    std::vector<std::int64_t> offset;   // global index of the window's first position, per axis
    std::vector<int> dims;              // grid extents, per axis
    std::vector<int> ranks;             // rank (in the plan's communicator) of every grid cell, row-major
    std::vector<int> coords;            // this rank's cell, empty when it is not on the grid
    std::vector<std::int64_t> byte_strides;  // of this rank's storage, per axis
    std::int64_t origin = 0;            // byte offset of local index (0, ..., 0) in the storage
    MemoryKind kind = MemoryKind::Host; // of the storage (array::Storage::kind)
    bool axes_reversed = false;         // by transposed(): against the storage's own order (every rank knows)

    int rank_of(const std::vector<int> &cell) const;
    static Side of(const array::DistArray &a);
    // The same storage with its axes in reverse order (NumPy's a.T): a plan from
    // a side's transpose to another side moves the transpose of the data.
    Side transposed() const;
};

// Collective on comm: the description that the ranks holding one side pass
// (`mine`, empty on the others) on every rank. Fails everywhere with
// DM_ERR_MISMATCH when holders disagree, DM_ERR_ARG when no rank holds `which`.
std::vector<std::int64_t> share_description(MPI_Comm comm, const std::vector<std::int64_t> &mine, const char *which);

class RedistPlan {
public:
    // Collective over the arrays' ranks; every check agrees across them. `method`
    // is a dm_redist_method value, taken as an integer so that any value is checked;
    // DM_REDIST_AUTO is priced by the exchange layer's cost model (exchange/cost.hpp).
    // `executor`: how the messages travel (DM_REDIST_ALLTOALLW aside).
    // `transpose`: dst receives src with its axes reversed (NumPy's src.T; dst's
    // shape is src's reversed), planned so that no pass is added.
    RedistPlan(const array::DistArray &src, const array::DistArray &dst, int method,
               exchange::Executor executor = exchange::Executor::Auto, bool transpose = false);
    // Collective on comm: between arrays on grids over any groups of comm's ranks.
    // A rank passes null for an array it does not hold (it is not on that grid).
    RedistPlan(MPI_Comm comm, const array::DistArray *src, const array::DistArray *dst, int method,
               exchange::Executor executor = exchange::Executor::Auto);
    // Collective on comm, for callers that checked the sides themselves (same
    // window counts on every axis; every rank of comm calls).
    RedistPlan(MPI_Comm comm, const Side &src, const Side &dst, std::vector<std::int64_t> counts, dm_dtype dtype,
               dm_redist_method method, exchange::Executor executor = exchange::Executor::Auto);
    ~RedistPlan();
    RedistPlan(const RedistPlan &) = delete;
    RedistPlan &operator=(const RedistPlan &) = delete;

    // Collective, a hot path (dm::hot_path). src and dst must have the planned layouts
    // and be distinct; for a plan between groups, null where this rank holds no such array.
    // begin() starts the first round of messages and copies what stays on this rank;
    // end() completes every round. In between the caller must not write src nor touch dst.
    void execute(const array::DistArray *src, array::DistArray *dst) const {
        begin(src, dst);
        end();
    }
    void begin(const array::DistArray *src, array::DistArray *dst) const;
    // Collective, a hot path: execute() with the values transformed on the way
    // (the storage form below), for single-stage plans.
    void execute(const array::DistArray *src, array::DistArray *dst, const Scale &scale) const;
    void end() const;
    bool test() const;  // local: advances the execution (exchange::Plan::test)
    bool in_flight() const;
    // Collective. Moves from the storage `from` to the storage `to` (the sides' buffers).
    void execute(const void *from, void *to) const;
    // Collective. The same with the values transformed on the way (scale.hpp):
    // to = alpha op(from) + beta to over the destination's window. With beta 0
    // the values land in `to` and are scaled there; otherwise they land in a
    // scratch copy of the destination's storage (allocated at the first such call)
    // and are combined into `to` in one pass.
    void execute(const void *from, void *to, const Scale &scale) const;
    // Local: the executors of this rank's messages, and why.
    std::string describe() const;
    // Local: this rank's messages and local copies, stage after stage (rounds
    // numbered on across stages), for a model to price.
    std::vector<exchange::MessageShape> messages() const;

    dm_redist_method method() const { return method_; }
    MPI_Comm comm() const { return comm_; }
    std::int64_t messages_sent() const;
    std::int64_t messages_received() const;
    std::int64_t elements_sent() const;
    int phases() const;

private:
    void plan(const Side &src, const Side &dst, const std::vector<std::int64_t> &counts, dm_dtype dtype,
              int method_code, exchange::Executor executor);
    // `sizes`, when given, gets this rank's messages to send [0] and receive [1]
    // as the exchange model prices them.
    void build(const Side &src, const Side &dst, const std::vector<std::int64_t> &counts, dm_dtype dtype,
               bool by_phase, std::vector<exchange::MessageSize> *sizes = nullptr);
    // The part of the data that stays on this rank, copied directly: per axis the
    // segments (source local index, destination local index, length).
    struct Segment {
        std::int64_t from, to, length;
    };
    void plan_self(const Side &src, const Side &dst, const std::vector<std::vector<OverlapRun>> &out_runs,
                   const std::vector<std::vector<OverlapRun>> &in_runs, std::int64_t elsize);
    void plan_per_axis(const array::DistArray &src, const array::DistArray &dst, exchange::Executor executor);
    void check_arrays(const array::DistArray *src, const array::DistArray *dst) const;  // begin's checks

    MPI_Comm comm_ = MPI_COMM_NULL;  // not owned: the source grid's, or the caller's
    std::shared_ptr<const layout::ProcessGrid> src_grid_, dst_grid_;  // keep a grid's comm_ alive
    array::DistArray::LayoutKey src_key_, dst_key_;
    bool holds_src_ = true, holds_dst_ = true;  // this rank is on the grid of src, of dst
    dm_redist_method method_ = DM_REDIST_AUTO;
    std::unique_ptr<exchange::Plan> exchange_;
    std::size_t elsize_ = 8;
    Window window_;                                 // the destination window on this rank (scale.hpp)
    mutable std::vector<unsigned char> scratch_;    // execute(..., scale) with beta != 0
    mutable const array::DistArray *active_[2] = {nullptr, nullptr};  // the arrays of the execution in flight
    exchange::Executor executor_ = exchange::Executor::Auto;  // slots: 0 the source storage, 1 the destination's
    // Schedules: the axis whose block size changes by an integer factor (or -1),
    // with the phase of every block position of a superblock along it.
    int axis_ = -1;
    std::int64_t small_block_ = 0;
    std::vector<int> phase_of_position_;
    std::int64_t band_ = 0;  // rows of the axis before the last per band of boxes (0: none)
    // DM_REDIST_PER_AXIS: one plan per changed axis, through intermediate arrays.
    std::vector<std::unique_ptr<RedistPlan>> stages_;
    std::vector<std::unique_ptr<array::DistArray>> between_;
};

}  // namespace dm::redist
