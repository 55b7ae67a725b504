#include "redist/plan.hpp"

#include "array/box.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "core/text.hpp"
#include "redist/overlap.hpp"
#include "redist/schedule.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <cstdint>
#include <map>
#include <utility>

namespace dm::redist {
namespace {

[[noreturn]] void shapes_differ(const std::vector<std::int64_t> &src, const std::vector<std::int64_t> &dst) {
    fail(DM_ERR_ARG, "redist: source and destination shapes differ: source ", tuple_text(src), ", destination ",
         tuple_text(dst));
}

constexpr std::uint64_t kRandomSeed = 0x5eed1996;      // DM_REDIST_RANDOM: the same order on every rank
// A factor K beyond this is scheduled like any other change of distribution.
constexpr std::int64_t kMaxBlockFactor = 1 << 16;
constexpr double kMaxInflightBytes = 64.0 * (1 << 20); // beyond this AUTO keeps one message in flight
// Messages and local copies walk the axis before the last in bands of about this
// many bytes of global rows (see band_of).
constexpr std::int64_t kBandBytes = 256 * 1024;

// The axis whose block size changes by an integer factor K >= 2, both on the
// same coordinates from 0 with every other axis unchanged, or -1 (then the
// general schedule: also for axes that are not block-cyclic).
int factor_axis(const Side &src, const Side &dst) {
    int axis = -1;
    for (std::size_t a = 0; a < src.maps.size(); ++a) {
        const auto &s = src.maps[a], &d = dst.maps[a];
        if (src.offset[a] != 0 || dst.offset[a] != 0) return -1;
        if (s.same_owners(d)) continue;
        if (axis >= 0 || !s.block_cyclic() || !d.block_cyclic()) return -1;
        const std::int64_t small = std::min(s.block(), d.block()), large = std::max(s.block(), d.block());
        if (s.nprocs() != d.nprocs() || s.src() != 0 || d.src() != 0 || large % small != 0) return -1;
        if (large / small > kMaxBlockFactor) return -1;  // the schedule's P x K table would not pay
        axis = static_cast<int>(a);
    }
    return axis;
}

// The band of the axis before the last: boxes are cut every `band` window
// positions along it, so that the box product, row-major, walks both storages a
// few rows at a time (each strip of columns of a band while the band is in
// cache) rather than one column strip of the whole array after another. Both
// sides compute it from the window's shape, so they cut at the same positions.
// 0: no cut (one axis, or rows too long to band).
std::int64_t band_of(const std::vector<std::int64_t> &counts, std::int64_t elsize) {
    const std::size_t n = counts.size();
    if (n < 2 || counts[n - 1] <= 0) return 0;
    const std::int64_t band = std::max<std::int64_t>(1, kBandBytes / (elsize * counts[n - 1]));
    return band < counts[n - 2] ? band : 0;
}

// Runs cut at the multiples of `band` (window positions).
void cut_bands(std::vector<OverlapRun> &runs, std::int64_t band) {
    std::vector<OverlapRun> out;
    for (const OverlapRun &r : runs)
        for (std::int64_t at = r.global; at < r.global + r.length;) {
            const std::int64_t end = std::min(r.global + r.length, (at / band + 1) * band);
            out.push_back({at, end - at, r.local + (at - r.global), r.peer, r.phase});
            at = end;
        }
    runs.swap(out);
}

const char *method_name(dm_redist_method m) {
    switch (m) {
        case DM_REDIST_AUTO: return "auto";
        case DM_REDIST_ALLTOALLW: return "alltoallw";
        case DM_REDIST_NONBLOCKING: return "nonblocking";
        case DM_REDIST_SENDRECV: return "sendrecv";
        case DM_REDIST_SIMPLE: return "simple";
        case DM_REDIST_RANDOM: return "random";
        case DM_REDIST_PER_AXIS: return "per-axis";
    }
    return "?";
}

// Runs of every axis grouped by (peer coordinate, phase), in global order.
using Groups = std::vector<std::map<std::pair<int, int>, std::vector<const OverlapRun *>>>;

Groups group(const std::vector<std::vector<OverlapRun>> &runs) {
    Groups groups(runs.size());
    for (std::size_t a = 0; a < runs.size(); ++a)
        for (const OverlapRun &r : runs[a]) groups[a][{r.peer, r.phase}].push_back(&r);
    return groups;
}

// Calls visit(peer coords, phase, runs per axis) for every combination of one
// group per axis; at most one axis carries phases, the others have phase 0.
template <class Visit>
void for_each_product(const Groups &groups, Visit &&visit) {
    const std::size_t n = groups.size();
    for (const auto &g : groups)
        if (g.empty()) return;
    std::vector<std::map<std::pair<int, int>, std::vector<const OverlapRun *>>::const_iterator> at(n);
    for (std::size_t a = 0; a < n; ++a) at[a] = groups[a].begin();
    std::vector<int> coords(n);
    std::vector<std::vector<const OverlapRun *>> runs(n);
    while (true) {
        int phase = 0;
        for (std::size_t a = 0; a < n; ++a) {
            coords[a] = at[a]->first.first;
            phase = std::max(phase, at[a]->first.second);
            runs[a] = at[a]->second;
        }
        visit(coords, phase, runs);
        std::size_t a = n;
        while (a > 0) {
            --a;
            if (++at[a] != groups[a].end()) break;
            at[a] = groups[a].begin();
            if (a == 0) return;
        }
    }
}

}  // namespace

std::vector<std::int64_t> share_description(MPI_Comm comm, const std::vector<std::int64_t> &mine, const char *which) {
    std::int64_t length = static_cast<std::int64_t>(mine.size()), longest = 0;
    check_mpi(MPI_Allreduce(&length, &longest, 1, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    // Holders put their values in both vectors, the others neutral ones, so one
    // MAX and one MIN give the description and tell whether holders agree.
    std::vector<std::int64_t> high(static_cast<std::size_t>(longest), INT64_MIN), low(high.size(), INT64_MAX);
    if (!mine.empty() && length == longest) std::copy(mine.begin(), mine.end(), high.begin()), low = high;
    if (!mine.empty() && length != longest) low.assign(low.size(), INT64_MIN);  // a shorter one: disagree
    std::vector<std::int64_t> most(high.size()), least(low.size());
    check_mpi(MPI_Allreduce(high.data(), most.data(), static_cast<int>(high.size()), MPI_INT64_T, MPI_MAX, comm),
              "MPI_Allreduce");
    check_mpi(MPI_Allreduce(low.data(), least.data(), static_cast<int>(low.size()), MPI_INT64_T, MPI_MIN, comm),
              "MPI_Allreduce");
    if (longest == 0) fail(DM_ERR_ARG, "redist: no rank holds ", which);
    if (most != least) fail(DM_ERR_MISMATCH, "redist: the description of ", which, " differs across the ranks holding it");
    return most;
}

namespace {

// What every rank of a plan between groups must know of an array: its type,
// memory kind (both ends of a message choose its transport from the kinds),
// shape, resolved distributions (the sizes of DM_DIST_SIZES axes included), grid
// extents and the ranks (in comm) of its cells.
std::vector<std::int64_t> description(const array::DistArray *a, MPI_Comm comm) {
    if (!a) return {};
    const Side side = Side::of(*a);
    std::vector<std::int64_t> d = {a->dtype(), a->ndims(), static_cast<std::int64_t>(a->memory_kind())};
    for (int axis = 0; axis < a->ndims(); ++axis) {
        const auto &map = a->axis_map(axis);
        d.insert(d.end(), {map.length(), map.nprocs()});
        map.append_words(d);
    }
    MPI_Group from, to;
    check_mpi(MPI_Comm_group(a->grid().comm(), &from), "MPI_Comm_group");
    check_mpi(MPI_Comm_group(comm, &to), "MPI_Comm_group");
    std::vector<int> translated(side.ranks.size());
    const int rc = MPI_Group_translate_ranks(from, static_cast<int>(side.ranks.size()), side.ranks.data(), to,
                                             translated.data());
    MPI_Group_free(&from);
    MPI_Group_free(&to);
    check_mpi(rc, "MPI_Group_translate_ranks");
    for (int r : translated) {
        if (r == MPI_UNDEFINED) fail(DM_ERR_ARG, "redist: an array's grid has ranks outside the plan's communicator");
        d.push_back(r);
    }
    return d;
}

// The side of an array from its shared description; this rank's place and
// storage come from the array itself when it holds one.
Side side_from(const std::vector<std::int64_t> &d, const array::DistArray *a) {
    Side s;
    const int n = static_cast<int>(d[1]);
    s.kind = static_cast<MemoryKind>(d[2]);
    std::size_t at = 3;
    for (int axis = 0; axis < n; ++axis) {
        const std::int64_t length = d[at];
        const int nprocs = static_cast<int>(d[at + 1]);
        at += 2;
        s.maps.emplace_back(layout::dist_from_words(d, at), length, nprocs);
        s.dims.push_back(nprocs);
    }
    s.offset.assign(static_cast<std::size_t>(n), 0);
    for (; at < d.size(); ++at) s.ranks.push_back(static_cast<int>(d[at]));
    if (a) {
        s.coords = a->grid().coords();
        s.byte_strides = a->byte_strides();
        s.origin = a->local_data() - a->storage();
    }
    return s;
}

}  // namespace

RedistPlan::RedistPlan(MPI_Comm comm, const array::DistArray *src, const array::DistArray *dst, int method,
                       exchange::Executor executor)
    : comm_(comm), holds_src_(src != nullptr), holds_dst_(dst != nullptr) {
    if (src) src_grid_ = src->grid_ptr(), src_key_ = src->layout_key();
    if (dst) dst_grid_ = dst->grid_ptr(), dst_key_ = dst->layout_key();
    std::vector<std::int64_t> mine_src, mine_dst;
    collective(comm_, [&] {
        mine_src = description(src, comm_);
        mine_dst = description(dst, comm_);
    });
    const auto ds = share_description(comm_, mine_src, "the source array");
    const auto dd = share_description(comm_, mine_dst, "the destination array");
    const Side src_side = side_from(ds, src), dst_side = side_from(dd, dst);
    auto shape_of = [](const Side &side) {
        std::vector<std::int64_t> extents;
        for (const auto &map : side.maps) extents.push_back(map.length());
        return extents;
    };
    const std::vector<std::int64_t> shape = shape_of(src_side);
    collective(comm_, [&] {
        if (ds[0] != dd[0])
            fail(DM_ERR_TYPE, "redist: source is ", dtype_name(static_cast<dm_dtype>(ds[0])), " but destination is ",
                 dtype_name(static_cast<dm_dtype>(dd[0])));
        if (shape != shape_of(dst_side)) shapes_differ(shape, shape_of(dst_side));
    });
    plan(src_side, dst_side, shape, static_cast<dm_dtype>(ds[0]), method, executor);
}

int Side::rank_of(const std::vector<int> &cell) const {
    std::size_t index = 0;
    for (std::size_t a = 0; a < dims.size(); ++a) index = index * static_cast<std::size_t>(dims[a]) + cell[a];
    return ranks[index];
}

Side Side::transposed() const {
    Side t = *this;
    t.axes_reversed = !axes_reversed;
    std::reverse(t.maps.begin(), t.maps.end());
    std::reverse(t.offset.begin(), t.offset.end());
    std::reverse(t.dims.begin(), t.dims.end());
    std::reverse(t.coords.begin(), t.coords.end());
    std::reverse(t.byte_strides.begin(), t.byte_strides.end());
    // Cells stay row-major over the reversed axes: the cell (c_n-1, ..., c_0) of
    // the transpose is the cell (c_0, ..., c_n-1) of this side.
    std::vector<int> cell(dims.size());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
        std::size_t rest = i;
        for (std::size_t a = t.dims.size(); a-- > 0;) {
            cell[t.dims.size() - 1 - a] = static_cast<int>(rest % static_cast<std::size_t>(t.dims[a]));
            rest /= static_cast<std::size_t>(t.dims[a]);
        }
        t.ranks[i] = rank_of(cell);
    }
    return t;
}

Side Side::of(const array::DistArray &a) {
    Side s;
    const auto &grid = a.grid();
    for (int axis = 0; axis < a.ndims(); ++axis) s.maps.push_back(a.axis_map(axis));
    s.offset.assign(static_cast<std::size_t>(a.ndims()), 0);
    s.dims = grid.dims();
    std::int64_t cells = 1;
    for (int d : s.dims) cells *= d;
    std::vector<int> cell(s.dims.size());
    for (std::int64_t i = 0; i < cells; ++i) {
        std::int64_t rest = i;
        for (std::size_t axis = s.dims.size(); axis-- > 0;) {
            cell[axis] = static_cast<int>(rest % s.dims[axis]);
            rest /= s.dims[axis];
        }
        s.ranks.push_back(grid.rank_of(cell.data()));
    }
    s.coords = grid.coords();
    s.byte_strides = a.byte_strides();
    s.origin = a.local_data() - a.storage();
    s.kind = a.memory_kind();
    return s;
}

RedistPlan::RedistPlan(const array::DistArray &src, const array::DistArray &dst, int method,
                       exchange::Executor executor, bool transpose)
    : comm_(src.grid().comm()), src_grid_(src.grid_ptr()), dst_grid_(dst.grid_ptr()), src_key_(src.layout_key()),
      dst_key_(dst.layout_key()) {
    const Side src_side = transpose ? Side::of(src).transposed() : Side::of(src), dst_side = Side::of(dst);
    std::vector<std::int64_t> shape = src.shape();
    if (transpose) std::reverse(shape.begin(), shape.end());
    collective(comm_, [&] {
        int relation = MPI_UNEQUAL;
        check_mpi(MPI_Comm_compare(src.grid().comm(), dst.grid().comm(), &relation), "MPI_Comm_compare");
        if (relation != MPI_IDENT && relation != MPI_CONGRUENT)
            fail(DM_ERR_ARG, "redist: the source and destination grids must span the same ranks in the same order");
        if (src.dtype() != dst.dtype())
            fail(DM_ERR_TYPE, "redist: source is ", dtype_name(src.dtype()), " but destination is ",
                 dtype_name(dst.dtype()));
        if (shape != dst.shape()) shapes_differ(shape, dst.shape());
        if (method == DM_REDIST_PER_AXIS && transpose)
            fail(DM_ERR_ARG, "redist: method 'per-axis' does not transpose (take 'auto' or another)");
        if (method == DM_REDIST_PER_AXIS && (src.grid().dims() != dst.grid().dims() || src_side.ranks != dst_side.ranks))
            fail(DM_ERR_ARG, "redist: method 'per-axis' needs both arrays on grids of the same shape and rank order");
    });
    if (method == DM_REDIST_PER_AXIS) {
        require_same(comm_, {static_cast<std::int64_t>(method)}, "redist method");
        plan_per_axis(src, dst, executor);
        return;
    }
    plan(src_side, dst_side, shape, src.dtype(), method, executor);
}

void RedistPlan::plan_per_axis(const array::DistArray &src, const array::DistArray &dst, exchange::Executor executor) {
    method_ = DM_REDIST_PER_AXIS;
    std::vector<int> changed;
    for (int a = 0; a < src.ndims(); ++a)
        if (!src.axis_map(a).same_owners(dst.axis_map(a))) changed.push_back(a);
    if (changed.empty()) changed.push_back(0);  // one stage still copies the data
    const array::DistArray *from = &src;
    std::vector<dm_dist> dists(static_cast<std::size_t>(src.ndims()));
    for (int a = 0; a < src.ndims(); ++a) dists[a] = src.axis_map(a).resolved();
    for (std::size_t i = 0; i < changed.size(); ++i) {
        const array::DistArray *to = &dst;
        if (i + 1 < changed.size()) {  // an intermediate layout: this axis changed, the later ones not yet
            dists[changed[i]] = dst.axis_map(changed[i]).resolved();
            between_.push_back(std::make_unique<array::DistArray>(dst.grid_ptr(), dst.dtype(), dst.shape(), dists,
                                                                  std::vector<int>{}));
            to = between_.back().get();
        }
        stages_.push_back(std::make_unique<RedistPlan>(*from, *to, DM_REDIST_SENDRECV, executor));
        from = to;
    }
}

RedistPlan::RedistPlan(MPI_Comm comm, const Side &src, const Side &dst, std::vector<std::int64_t> counts,
                       dm_dtype dtype, dm_redist_method method, exchange::Executor executor)
    : comm_(comm) {
    plan(src, dst, counts, dtype, method, executor);
}

void RedistPlan::plan(const Side &src, const Side &dst, const std::vector<std::int64_t> &counts, dm_dtype dtype,
                      int method_code, exchange::Executor executor) {
    window_ = window_of(dst.maps, dst.coords, dst.offset, counts, dst.byte_strides, dst.origin, dtype);
    axis_ = factor_axis(src, dst);
    executor_ = executor;
    collective(comm_, [&] {
        if (method_code < DM_REDIST_AUTO || method_code > DM_REDIST_PER_AXIS)
            fail(DM_ERR_ARG, "redist: unknown method ", method_code);
        if (method_code == DM_REDIST_PER_AXIS)
            fail(DM_ERR_ARG, "redist: method 'per-axis' is for arrays on grids of the same ranks, not windows or groups");
        if ((method_code == DM_REDIST_SIMPLE || method_code == DM_REDIST_RANDOM) && axis_ < 0)
            fail(DM_ERR_ARG, "redist: method '", method_name(static_cast<dm_redist_method>(method_code)),
                 "' needs one axis whose block size changes by an integer factor of at most ", kMaxBlockFactor,
                 ", the others unchanged");
    });
    require_same(comm_, {method_code, static_cast<int>(executor)}, "redist method and executor");
    auto method = static_cast<dm_redist_method>(method_code);  // valid from here on

    if (method == DM_REDIST_AUTO) {
        // The exchange layer's model prices this rank's part of the one-message-per-peer
        // plan by each method; the slowest rank's prices decide, alike everywhere.
        std::vector<exchange::MessageSize> sizes[2];
        build(src, dst, counts, dtype, false, sizes);
        int size = 1;
        MPI_Comm_size(comm_, &size);
        const exchange::CostModel &model = exchange::cost_model();
        auto priced = [&](exchange::PricedWay send, exchange::PricedWay recv) {
            return exchange::price_sides(model, sizes[0].data(), sizes[0].size(), true, send) +
                   exchange::price_sides(model, sizes[1].data(), sizes[1].size(), false, recv);
        };
        using W = exchange::PricedWay;
        // A forced way of point to point prices every message by it; the others by
        // the cheapest.
        const exchange::ExecutorWays ways = exchange::executor_ways(executor_);
        const bool forced = ways.forced;
        // MPI_Alltoallw reads and writes the storages itself: host memory only.
        const bool host = src.kind == MemoryKind::Host && dst.kind == MemoryKind::Host;
        const double mine[3] = {priced(ways.send, ways.recv),
                                priced(W::Datatype, W::Datatype) + exchange::alltoallw_overhead_us(model, size),
                                static_cast<double>(elements_sent() * static_cast<std::int64_t>(dtype_size(dtype)))};
        double most[3];
        check_mpi(MPI_Allreduce(mine, most, 3, MPI_DOUBLE, MPI_MAX, comm_), "MPI_Allreduce");
        // All messages in flight at once may need MPI buffers as large as the data;
        // past a bound the phases, one message at a time, are the safe choice. A
        // forced executor is kept: MPI_Alltoallw would override it.
        method = most[2] > kMaxInflightBytes      ? DM_REDIST_SENDRECV
                 : !forced && host && most[1] < most[0] ? DM_REDIST_ALLTOALLW
                                                 : DM_REDIST_NONBLOCKING;
        if (method == DM_REDIST_NONBLOCKING) {  // the plan just built is the one to keep
            method_ = method;
            return;
        }
        exchange_.reset();
    }
    method_ = method;
    if (axis_ >= 0 && method_ != DM_REDIST_ALLTOALLW && method_ != DM_REDIST_NONBLOCKING) {
        const auto &s = src.maps[static_cast<std::size_t>(axis_)], &d = dst.maps[static_cast<std::size_t>(axis_)];
        const int P = s.nprocs();
        small_block_ = std::min(s.block(), d.block());
        const int K = static_cast<int>(std::max(s.block(), d.block()) / small_block_);
        const Schedule schedule = method_ == DM_REDIST_SIMPLE   ? simple_schedule(P, K)
                                  : method_ == DM_REDIST_RANDOM ? random_schedule(P, K, kRandomSeed)
                                                                : optimal_schedule(P, K);
        // The optimal schedule's phases that send along the same permutation of the
        // processes merge into one round: still one partner each way, fewer and
        // larger messages (K phases become as few as P' rounds).
        std::vector<int> round(static_cast<std::size_t>(K));
        std::map<std::vector<int>, int> rounds;
        for (int k = 0; k < K; ++k) {
            const auto row = schedule.send_proc.begin() + static_cast<std::ptrdiff_t>(schedule.at(k, 0));
            const int next = static_cast<int>(rounds.size());
            round[k] = method_ == DM_REDIST_SENDRECV ? rounds.emplace(std::vector<int>(row, row + P), next).first->second
                                                     : k;
        }
        phase_of_position_.assign(static_cast<std::size_t>(P) * K, 0);
        for (int k = 0; k < K; ++k)
            for (int p = 0; p < P; ++p) phase_of_position_[schedule.send_block[schedule.at(k, p)]] = round[k];
    }
    build(src, dst, counts, dtype, method_ == DM_REDIST_SENDRECV || method_ == DM_REDIST_SIMPLE || method_ == DM_REDIST_RANDOM);
}

RedistPlan::~RedistPlan() = default;

std::int64_t RedistPlan::elements_sent() const {
    std::int64_t n = exchange_ ? exchange_->volume().bytes_sent / static_cast<std::int64_t>(elsize_) : 0;
    for (const auto &stage : stages_) n += stage->elements_sent();
    return n;
}

std::int64_t RedistPlan::messages_sent() const {
    std::int64_t n = exchange_ ? exchange_->volume().messages_sent : 0;
    for (const auto &stage : stages_) n += stage->messages_sent();
    return n;
}

std::int64_t RedistPlan::messages_received() const {
    std::int64_t n = exchange_ ? exchange_->volume().messages_received : 0;
    for (const auto &stage : stages_) n += stage->messages_received();
    return n;
}

int RedistPlan::phases() const {
    int n = exchange_ ? exchange_->volume().rounds : 0;
    for (const auto &stage : stages_) n += stage->phases();
    return n;
}

bool RedistPlan::in_flight() const {
    if (exchange_) return exchange_->in_flight();
    for (const auto &stage : stages_)
        if (stage->in_flight()) return true;
    return false;
}

std::vector<exchange::MessageShape> RedistPlan::messages() const {
    std::vector<exchange::MessageShape> out = exchange_ ? exchange_->messages() : std::vector<exchange::MessageShape>{};
    int rounds = exchange_ ? exchange_->volume().rounds : 0;
    for (const auto &stage : stages_) {
        for (exchange::MessageShape m : stage->messages()) {
            m.round += rounds;
            out.push_back(m);
        }
        rounds += stage->phases();
    }
    return out;
}

std::string RedistPlan::describe() const {
    std::string text = std::string("method ") + method_name(method_) + "\n";
    if (exchange_) text += exchange_->describe();
    for (std::size_t i = 0; i < stages_.size(); ++i)
        text += "stage " + std::to_string(i + 1) + " of " + std::to_string(stages_.size()) + ": " + stages_[i]->describe();
    return text;
}

void RedistPlan::build(const Side &src, const Side &dst, const std::vector<std::int64_t> &counts, dm_dtype dtype,
                       bool by_phase, std::vector<exchange::MessageSize> *sizes) {
    const int n = static_cast<int>(counts.size());
    int me = 0, size_ = 1;
    MPI_Comm_rank(comm_, &me);
    MPI_Comm_size(comm_, &size_);
    const bool scheduled = by_phase && axis_ >= 0;
    const std::int64_t positions = static_cast<std::int64_t>(phase_of_position_.size());
    const PhaseOf phase_of = [&](std::int64_t g) {
        return phase_of_position_[static_cast<std::size_t>((g / small_block_) % positions)];
    };

    // My runs under `mine` against `other`, per axis.
    auto runs_of = [&](const Side &mine, const Side &other) {
        std::vector<std::vector<OverlapRun>> runs(static_cast<std::size_t>(n));
        for (int a = 0; a < n; ++a) {
            const bool split = scheduled && a == axis_;
            runs[a] = overlaps(mine.maps[a], mine.coords[a], mine.offset[a], other.maps[a], other.offset[a], counts[a],
                               split ? small_block_ : 0, split ? phase_of : PhaseOf{});
            if (band_ > 0 && a == n - 2) cut_bands(runs[a], band_);
        }
        return runs;
    };
    const auto elsize = static_cast<std::int64_t>(dtype_size(dtype));
    elsize_ = static_cast<std::size_t>(elsize);
    // A transposed side walks its storage across the rows a band keeps together:
    // its boxes go whole, and the pack and copy kernels tile them instead.
    band_ = src.axes_reversed || dst.axes_reversed ? 0 : band_of(counts, elsize);
    exchange_ = std::make_unique<exchange::Plan>(comm_, 2, "redistribution");
    // One side's messages to (or from) the other ranks: per peer and phase the
    // product of the runs of every axis, box by box in row-major order over the
    // runs. Both sides cut the axes at the same global positions (every block end
    // of either distribution), so both list the same bytes in the same order.
    std::map<std::pair<int, int>, exchange::MessageSize> measured[2];  // per (peer, round): one message
    auto messages = [&](const Side &mine, const Side &other, const std::vector<std::vector<OverlapRun>> &runs, bool sending) {
        const int slot = sending ? 0 : 1;
        std::int64_t start[array::kMaxAxes], size[array::kMaxAxes];
        for_each_product(group(runs), [&](const std::vector<int> &coords, int phase,
                                          const std::vector<std::vector<const OverlapRun *>> &product) {
            const int peer = other.rank_of(coords);
            if (peer == me) return;
            if (by_phase && !scheduled) phase = sending ? (peer - me + size_) % size_ : (me - peer + size_) % size_;
            std::vector<std::size_t> pick(static_cast<std::size_t>(n), 0);
            while (true) {
                for (int a = 0; a < n; ++a) {
                    start[a] = product[a][pick[a]]->local;
                    size[a] = product[a][pick[a]]->length;
                }
                const exchange::Block b = exchange::box_block(slot, n, start, size, mine.byte_strides.data(), mine.origin, elsize);
                if (sending) exchange_->send(peer, b, phase);
                else exchange_->recv(peer, b, phase);
                if (sizes) {
                    exchange::MessageSize &m = measured[slot][{peer, phase}];
                    m.bytes += b.bytes(), m.runs += b.runs();
                }
                int a = n - 1;
                for (; a >= 0; --a) {
                    if (++pick[a] < product[a].size()) break;
                    pick[a] = 0;
                }
                if (a < 0) break;
            }
        });
    };
    std::vector<std::vector<OverlapRun>> out_runs, in_runs;
    if (!src.coords.empty()) {
        out_runs = runs_of(src, dst);
        messages(src, dst, out_runs, true);
    }
    if (!dst.coords.empty()) {
        in_runs = runs_of(dst, src);
        messages(dst, src, in_runs, false);
    }
    if (!src.coords.empty() && !dst.coords.empty()) plan_self(src, dst, out_runs, in_runs, elsize);
    if (sizes) node::topology(comm_);  // collective on every rank, with messages to price or not
    for (int k = 0; sizes && k < 2; ++k)  // each priced by the lines of its locality
        for (auto &[key, m] : measured[k]) {
            m.where = exchange::locality_of(comm_, key.first);
            sizes[k].push_back(m);
        }
    exchange_->finish({method_ == DM_REDIST_ALLTOALLW ? exchange::Executor::Alltoallw : executor_, false,
                       {src.kind, dst.kind}});  // slots 0 and 1
}

void RedistPlan::check_arrays(const array::DistArray *src, const array::DistArray *dst) const {
    hot_path(comm_, "redist execute", [&] {
        if (in_flight()) fail(DM_ERR_STATE, "redist: begin while an execution is in flight (call end first)");
        if ((src != nullptr) != holds_src_ || (dst != nullptr) != holds_dst_)
            fail(DM_ERR_ARG, "redist: pass the arrays this rank holds, and only those (", holds_src_ ? "a" : "no",
                 " source, ", holds_dst_ ? "a" : "no", " destination)");
        if (src && src == dst) fail(DM_ERR_ARG, "redist: source and destination must be different arrays");
        if (src && !(src->layout_key() == src_key_))
            fail(DM_ERR_ARG, "redist: the source's layout is not the planned one: ",
                 array::DistArray::layout_difference(src_key_, src->layout_key()));
        if (dst && !(dst->layout_key() == dst_key_))
            fail(DM_ERR_ARG, "redist: the destination's layout is not the planned one: ",
                 array::DistArray::layout_difference(dst_key_, dst->layout_key()));
    });
}

void RedistPlan::execute(const array::DistArray *src, array::DistArray *dst, const Scale &scale) const {
    if (scale.none()) return execute(src, dst);
    check_arrays(src, dst);
    execute(src ? src->storage() : nullptr, dst ? dst->storage() : nullptr, scale);
}

void RedistPlan::begin(const array::DistArray *src, array::DistArray *dst) const {
    check_arrays(src, dst);
    active_[0] = src, active_[1] = dst;
    for (const array::DistArray *a : active_)
        if (a) a->hold();
    if (!stages_.empty()) {  // per axis: src -> between_[0] -> ... -> dst, each stage whole but the last
        for (std::size_t i = 0; i < stages_.size(); ++i) {
            const array::DistArray *from = i == 0 ? src : between_[i - 1].get();
            array::DistArray *to = i + 1 == stages_.size() ? dst : between_[i].get();
            if (i + 1 < stages_.size()) stages_[i]->execute(from, to);
            else stages_[i]->begin(from, to);
        }
        return;
    }
    const void *slots[2] = {src ? src->storage() : nullptr, dst ? dst->storage() : nullptr};
    exchange_->begin(slots);
}

bool RedistPlan::test() const {
    if (!in_flight()) fail(DM_ERR_STATE, "redist: test without begin");
    return exchange_ ? exchange_->test() : stages_.back()->test();  // per axis: only the last stage is in flight
}

void RedistPlan::end() const {
    hot_path(comm_, "redist execute", [&] {
        if (!in_flight()) fail(DM_ERR_STATE, "redist: end without begin");
    });
    for (const array::DistArray *&a : active_) {
        if (a) a->release();
        a = nullptr;
    }
    if (!stages_.empty()) stages_.back()->end();
    else exchange_->end();
}

void RedistPlan::execute(const void *from, void *to) const {
    const void *slots[2] = {from, to};
    exchange_->begin(slots);
    exchange_->end();
}

void RedistPlan::execute(const void *from, void *to, const Scale &scale) const {
    if (scale.none()) return execute(from, to);
    if (!exchange_) fail(DM_ERR_ARG, "redist: values are scaled only by single-stage plans, not 'per-axis' ones");
    if (scale.beta == std::complex<double>(0.0)) {
        execute(from, to);
        if (to) apply(window_, scale, to, to);
        return;
    }
    if (to && scratch_.size() < static_cast<std::size_t>(window_.storage_bytes))
        scratch_.resize(static_cast<std::size_t>(window_.storage_bytes));
    execute(from, to ? scratch_.data() : nullptr);
    if (to) apply(window_, scale, scratch_.data(), to);
}

void RedistPlan::plan_self(const Side &src, const Side &dst, const std::vector<std::vector<OverlapRun>> &out_runs,
                           const std::vector<std::vector<OverlapRun>> &in_runs, std::int64_t elsize) {
    // The runs I send to my own destination coordinates and those I receive from
    // my own source coordinates cover the same window positions in the same
    // order; their common refinement pairs source and destination local indices.
    std::vector<std::vector<Segment>> axes;
    for (std::size_t a = 0; a < out_runs.size(); ++a) {
        std::vector<const OverlapRun *> out, in;
        for (const OverlapRun &r : out_runs[a])
            if (r.peer == dst.coords[a]) out.push_back(&r);
        for (const OverlapRun &r : in_runs[a])
            if (r.peer == src.coords[a]) in.push_back(&r);
        std::vector<Segment> segments;
        for (std::size_t i = 0, j = 0; i < out.size() && j < in.size();) {
            const std::int64_t lo = std::max(out[i]->global, in[j]->global);
            const std::int64_t hi = std::min(out[i]->global + out[i]->length, in[j]->global + in[j]->length);
            if (lo < hi) {
                const Segment s{out[i]->local + lo - out[i]->global, in[j]->local + lo - in[j]->global, hi - lo};
                Segment *last = segments.empty() ? nullptr : &segments.back();
                const bool band_starts = band_ > 0 && a + 2 == out_runs.size() && lo % band_ == 0;
                if (last && !band_starts && last->from + last->length == s.from && last->to + last->length == s.to)
                    last->length += s.length;  // contiguous on both sides: one longer segment
                else
                    segments.push_back(s);
            }
            (out[i]->global + out[i]->length <= in[j]->global + in[j]->length) ? ++i : ++j;
        }
        if (segments.empty()) return;  // nothing stays on this rank
        axes.push_back(std::move(segments));
    }
    // Every combination of one segment per axis is a box copied locally.
    const int n = static_cast<int>(axes.size());
    std::int64_t from[array::kMaxAxes], to[array::kMaxAxes], size[array::kMaxAxes];
    std::vector<std::size_t> pick(axes.size(), 0);
    while (true) {
        for (int a = 0; a < n; ++a) {
            const Segment &s = axes[a][pick[a]];
            from[a] = s.from, to[a] = s.to, size[a] = s.length;
        }
        exchange_->copy(exchange::box_copy(n, size, 0, from, src.byte_strides.data(), src.origin, 1, to,
                                           dst.byte_strides.data(), dst.origin, elsize));
        int a = n - 1;
        for (; a >= 0; --a) {
            if (++pick[a] < axes[a].size()) break;
            pick[a] = 0;
        }
        if (a < 0) break;
    }
}

}  // namespace dm::redist
