#include "shift/halo.hpp"

#include "array/box.hpp"
#include "core/error.hpp"
#include "shift/runs.hpp"

namespace dm::shift {
namespace {

// One region of a rank's ghost shell: per axis, below (-1), inside (0) or above (+1)
// its owned range. Its sources: per axis a list of runs; every combination is a box.
struct Piece {
    std::vector<int> coords;                       // source grid coordinates
    std::vector<std::int64_t> src_start, dst_start, size;  // per axis, local indices (no ghost offset)
};

// Calls piece(p) for the pieces that fill the ghosts of the rank at `coords`, in
// the same order on every rank (their index is the message tag).
template <class F>
void for_each_piece(const std::vector<layout::AxisMap> &maps, const layout::ProcessGrid &grid,
                    const std::vector<int> &ghost, const std::vector<int> &coords, bool corners, F &&piece) {
    const int n = static_cast<int>(maps.size());
    std::vector<std::int64_t> extent(n);
    for (int a = 0; a < n; ++a) {
        extent[a] = maps[a].extent(coords[a]);
        if (extent[a] == 0) return;  // a rank that owns nothing has no halo to fill
    }
    int regions = 1;
    for (int a = 0; a < n; ++a) regions *= 3;
    for (int region = 0; region < regions; ++region) {
        std::vector<int> side(n);
        int outside = 0;
        for (int a = 0, r = region; a < n; ++a, r /= 3) {
            side[a] = r % 3 - 1;
            outside += side[a] != 0;
        }
        if (outside == 0 || (!corners && outside > 1)) continue;
        // Per axis: the runs of positions this region covers, with their local start.
        std::vector<std::vector<SourceRun>> runs(n);
        std::vector<std::int64_t> first_local(n);
        bool empty = false;
        for (int a = 0; a < n && !empty; ++a) {
            const std::int64_t g0 = maps[a].global_index(coords[a], 0);
            if (side[a] == 0) {
                runs[a] = {{0, extent[a], coords[a], 0}};
                first_local[a] = 0;
            } else {
                const std::int64_t w = ghost[a];
                first_local[a] = side[a] < 0 ? -w : extent[a];
                runs[a] = source_runs(maps[a], g0, first_local[a], w, grid.periods()[a] != 0);
            }
            empty = runs[a].empty();
        }
        if (empty) continue;
        // Every combination of one run per axis.
        std::vector<size_t> pick(n, 0);
        while (true) {
            Piece p{std::vector<int>(n), std::vector<std::int64_t>(n), std::vector<std::int64_t>(n),
                    std::vector<std::int64_t>(n)};
            bool exists = true;
            for (int a = 0; a < n; ++a) {
                const SourceRun &r = runs[a][pick[a]];
                exists = exists && r.coord >= 0;
                p.coords[a] = r.coord;
                p.src_start[a] = r.local;
                p.dst_start[a] = first_local[a] + r.offset;
                p.size[a] = r.length;
            }
            if (exists) piece(p);
            int a = n - 1;
            for (; a >= 0; --a) {
                if (++pick[a] < runs[a].size()) break;
                pick[a] = 0;
            }
            if (a < 0) break;
        }
    }
}

}  // namespace

HaloPlan::HaloPlan(const array::DistArray &prototype, bool corners, exchange::Executor executor)
    : grid_(prototype.grid_ptr()),
      key_(prototype.layout_key()),
      elsize_(prototype.element_size()),
      corners_(corners),
      plan_(grid_->comm(), 1, "halo exchange") {
    MPI_Comm comm = grid_->comm();
    const int n = prototype.ndims();
    std::vector<layout::AxisMap> maps;
    for (int a = 0; a < n; ++a) maps.push_back(prototype.axis_map(a));
    const std::vector<int> &ghost = prototype.ghost();
    const std::vector<std::int64_t> strides = prototype.byte_strides();
    const auto elsize = static_cast<std::int64_t>(elsize_);
    require_same(comm, {corners ? 1 : 0, static_cast<int>(executor)}, "halo: corners and executor");
    collective(comm, [&] {
        for (int a = 0; a < n; ++a)
            if (!maps[a].contiguous() && grid_->dims()[a] > 1 && ghost[a] > 0)
                fail(DM_ERR_UNSUPPORTED, "halo: axis ", a, " has ghosts but is not Block-distributed or Sizes-distributed");
        // A piece's box in the storage: local indices shifted past the low ghosts.
        std::int64_t src[array::kMaxAxes], dst[array::kMaxAxes];
        auto storage_start = [&](const std::vector<std::int64_t> &local, std::int64_t *out) {
            for (int a = 0; a < n; ++a) out[a] = ghost[a] + local[a];
            return out;
        };
        const int me = grid_->rank();
        std::vector<int> coords(static_cast<size_t>(n));
        // Every rank walks every rank's pieces in one order, so a sender lists the
        // pieces of one receiver in the order that receiver lists them.
        for (int p = 0; p < grid_->size(); ++p) {
            grid_->coords_of(p, coords.data());
            for_each_piece(maps, *grid_, ghost, coords, corners, [&](const Piece &piece) {
                const int source = grid_->rank_of(piece.coords.data());
                if (p != me && source != me) return;
                storage_start(piece.src_start, src), storage_start(piece.dst_start, dst);
                if (p == me && source == me)
                    plan_.copy(exchange::box_copy(n, piece.size.data(), 0, src, strides.data(), 0, 0, dst,
                                                  strides.data(), 0, elsize));
                else if (p == me)
                    plan_.recv(source, exchange::box_block(0, n, dst, piece.size.data(), strides.data(), 0, elsize));
                else
                    plan_.send(p, exchange::box_block(0, n, src, piece.size.data(), strides.data(), 0, elsize));
            });
        }
        plan_.finish({executor, false, {key_.kind}});  // slot 0: the array, in its memory kind
    });
}

void HaloPlan::begin(array::DistArray &a) {
    hot_path(comm(), "halo exchange", [&] {
        if (!(a.layout_key() == key_))
            fail(DM_ERR_ARG, "halo: the array differs from the prototype: ",
                 array::DistArray::layout_difference(key_, a.layout_key()));
        if (plan_.in_flight()) fail(DM_ERR_STATE, "halo: begin while an exchange is in flight (call end first)");
    });
    const void *slot = a.storage();
    plan_.begin(&slot);
    active_ = &a;
    a.hold();
}

bool HaloPlan::test() {
    if (!plan_.in_flight()) fail(DM_ERR_STATE, "halo: test without begin");
    return plan_.test();
}

void HaloPlan::end() {
    hot_path(comm(), "halo exchange", [&] {
        if (!plan_.in_flight()) fail(DM_ERR_STATE, "halo: end without begin");
    });
    active_->release();
    plan_.end();
}

}  // namespace dm::shift
