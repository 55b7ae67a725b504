#include "shift/pshift.hpp"

#include "shift/runs.hpp"

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace dm::shift {

PShiftPlan::PShiftPlan(const array::DistArray &prototype, std::vector<dm_shift_spec> specs)
    : grid_(prototype.grid_ptr()),
      key_(prototype.layout_key()),
      dtype_(prototype.dtype()),
      elsize_(prototype.element_size()),
      ghost_(prototype.ghost()),
      local_shape_(prototype.local_shape()),
      storage_shape_(prototype.storage_shape()) {
    MPI_Comm comm = grid_->comm();
    const int n = prototype.ndims();
    for (int a = 0; a < n; ++a) maps_.push_back(prototype.axis_map(a));
    collective(comm, [&] {
        // Tags number a destination's messages: at most a run per source coordinate and two more.
        std::int64_t tags = 0;
        for (const auto &s : specs)
            if (s.axis >= 0 && s.axis < n) tags += grid_->dims()[s.axis] + 2;
        if (tags > tag_upper_bound(comm))
            fail(DM_ERR_ARG, "pshift: too many shifts (", specs.size(), ") for the MPI tag range");
        for (size_t k = 0; k < specs.size(); ++k) {
            auto &s = specs[k];
            const std::string where = "pshift: shift " + std::to_string(k) + ": ";
            // Kinds as integers: a C caller may pass any value in these enum fields.
            const int kind = enum_value(s.kind), boundary = enum_value(s.boundary);
            if (kind != DM_CSHIFT && kind != DM_EOSHIFT) fail(DM_ERR_ARG, where, "unknown kind ", kind);
            if (s.axis < 0 || s.axis >= n) fail(DM_ERR_ARG, where, "axis ", s.axis, " out of range [0, ", n, ")");
            if (kind == DM_EOSHIFT && (boundary < DM_BOUNDARY_ZERO || boundary > DM_BOUNDARY_ARRAY))
                fail(DM_ERR_ARG, where, "unknown boundary kind ", boundary);
            if (kind == DM_CSHIFT) s.boundary = DM_BOUNDARY_ZERO;  // ignored: whatever was passed is never read
            dm_dist d = maps_[s.axis].resolved();
            if (d.kind != DM_DIST_BLOCK && grid_->dims()[s.axis] > 1)
                fail(DM_ERR_UNSUPPORTED, where, "axis ", s.axis,
                     " must be Block-distributed to be shifted (redistribute the array first)");
        }
    });
    std::vector<std::int64_t> args;
    for (const auto &s : specs)
        args.insert(args.end(), {s.kind, s.axis, s.shift, s.kind == DM_EOSHIFT ? s.boundary : 0});
    require_same(comm, args, "pshift: shift specifications");

    shifts_.resize(specs.size());
    try {
        collective(comm, [&] {
            for (size_t k = 0; k < specs.size(); ++k) {
                shifts_[k].spec = specs[k];
                std::int64_t tag_base = 0;  // the tags of earlier shifts
                for (size_t j = 0; j < k; ++j) tag_base += grid_->dims()[specs[j].axis] + 2;
                plan(shifts_[k], static_cast<int>(tag_base));
            }
            const Volume v = volume();
            requests_.reserve(static_cast<size_t>(v.messages_sent + v.messages_received));
            buffers_.reserve(2 * specs.size());
        });
    } catch (...) {  // no destructor runs for a failed constructor: free the datatypes made so far
        for (auto &shift : shifts_) {
            free_types(shift.sends);
            free_types(shift.recvs);
        }
        throw;
    }
}

void PShiftPlan::plan(Shift &shift, int tag_base) {
    const dm_shift_spec &spec = shift.spec;
    const int axis = spec.axis, me = grid_->coords()[axis], nprocs = grid_->dims()[axis];
    const int n = static_cast<int>(local_shape_.size());
    std::int64_t line_count = 1;  // elements of one position along the axis
    for (int a = 0; a < n; ++a)
        if (a != axis) line_count *= local_shape_[a];
    MPI_Datatype element = dtype_mpi(dtype_);
    std::vector<int> coords = grid_->coords();
    auto rank_at = [&](int coord) {
        coords[axis] = coord;
        return grid_->rank_of(coords.data());
    };
    // The box of `length` positions from local index `local` along the axis, all of the other axes.
    auto box = [&](std::int64_t local, std::int64_t length) {
        array::Box b;
        for (int a = 0; a < n; ++a) {
            b.start.push_back(ghost_[a] + (a == axis ? local : 0));
            b.size.push_back(a == axis ? length : local_shape_[a]);
        }
        return b;
    };
    // The runs that coordinate p's owned positions read; a run's tag is its index.
    const layout::AxisMap &map = maps_[axis];
    auto runs_of = [&](int p) {
        const std::int64_t extent = map.extent(p);
        if (extent == 0) return std::vector<SourceRun>{};
        return source_runs(map, map.global_index(p, 0), spec.shift, extent, spec.kind == DM_CSHIFT);
    };
    // What this rank receives, copies or fills: its own runs.
    const auto mine = runs_of(me);
    for (size_t j = 0; j < mine.size(); ++j) {
        const SourceRun &r = mine[j];
        if (r.coord < 0) shift.fills.push_back(box(r.offset, r.length));
        else if (r.coord == me) shift.copies.push_back({box(r.local, r.length), box(r.offset, r.length)});
        else if (r.length * line_count > 0)
            shift.recvs.push_back({rank_at(r.coord), tag_base + static_cast<int>(j),
                                   array::box_datatype(storage_shape_, box(r.offset, r.length), element),
                                   r.length * line_count});
    }
    // What this rank sends: the runs of every other coordinate that read from it.
    for (int p = 0; p < nprocs; ++p) {
        if (p == me) continue;
        const auto theirs = runs_of(p);
        for (size_t j = 0; j < theirs.size(); ++j) {
            const SourceRun &r = theirs[j];
            if (r.coord == me && r.length * line_count > 0)
                shift.sends.push_back({rank_at(p), tag_base + static_cast<int>(j),
                                       array::box_datatype(storage_shape_, box(r.local, r.length), element),
                                       r.length * line_count});
        }
    }
}

PShiftPlan::~PShiftPlan() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    requests_.release();
    for (auto &shift : shifts_) {
        free_types(shift.sends);
        free_types(shift.recvs);
    }
}

Volume PShiftPlan::volume() const {
    Volume v;
    for (const auto &shift : shifts_) v.add(shift.sends, shift.recvs, shift.copies);
    return v;
}

std::vector<std::int64_t> PShiftPlan::boundary_shape(int k) const {
    std::vector<std::int64_t> shape;
    for (int a = 0; a < static_cast<int>(local_shape_.size()); ++a)
        if (a != shifts_[k].spec.axis) shape.push_back(local_shape_[a]);
    return shape;
}

void PShiftPlan::check_arrays(array::DistArray *const *dsts, const array::DistArray *const *srcs,
                              const void *const *boundaries) const {
    // Local checks against the plan, which every rank agreed on at setup.
    if (!dsts || !srcs) fail(DM_ERR_ARG, "pshift: destination or source list is NULL");
    for (int k = 0; k < nshifts(); ++k) {
        if (!dsts[k] || !srcs[k]) fail(DM_ERR_ARG, "pshift: shift ", k, ": destination or source is NULL");
        for (const array::DistArray *a : {static_cast<const array::DistArray *>(dsts[k]), srcs[k]})
            if (!(a->layout_key() == key_))
                fail(DM_ERR_ARG, "pshift: shift ", k, ": ", a == dsts[k] ? "destination" : "source",
                     " differs from the prototype in grid, shape, element type, distribution or ghost width");
        for (int j = 0; j < k; ++j)
            if (dsts[j] == dsts[k]) fail(DM_ERR_ARG, "pshift: shifts ", j, " and ", k, " have the same destination");
        const dm_shift_spec &s = shifts_[k].spec;
        if (s.kind == DM_EOSHIFT && (s.boundary == DM_BOUNDARY_SCALAR || s.boundary == DM_BOUNDARY_ARRAY) &&
            (!boundaries || !boundaries[k]))
            fail(DM_ERR_ARG, "pshift: shift ", k, ": its boundary is missing");
    }
}

void PShiftPlan::fill_lines(std::byte *dst, const array::Box &box, int axis, const std::byte *lines) const {
    // lines: the local extents without `axis`, row-major; position i along the axis
    // of line (j...) takes lines[j...].
    const int n = static_cast<int>(local_shape_.size());
    std::int64_t stride[array::kMaxAxes] = {};  // line strides, 0 along the axis
    for (int a = n - 1, s = 1; a >= 0; --a)
        if (a != axis) {
            stride[a] = s;
            s *= static_cast<int>(local_shape_[a]);
        }
    const std::int64_t length = box.size[n - 1];
    array::for_each_row(storage_shape_, box, [&](std::int64_t offset, const std::int64_t *index) {
        std::int64_t line = 0;
        for (int a = 0; a < n; ++a) line += (box.start[a] - ghost_[a] + index[a]) * stride[a];
        std::byte *row = dst + offset * static_cast<std::int64_t>(elsize_);
        if (axis == n - 1)  // the row runs along the axis: one value
            for (std::int64_t i = 0; i < length; ++i) std::memcpy(row + i * elsize_, lines + line * elsize_, elsize_);
        else  // the row runs across lines: consecutive values
            std::memcpy(row, lines + line * elsize_, static_cast<size_t>(length) * elsize_);
    });
}

void PShiftPlan::execute(array::DistArray *const *dsts, const array::DistArray *const *srcs,
                         const void *const *boundaries) {
    hot_path(comm(), "pshift execute", [&] { check_arrays(dsts, srcs, boundaries); });
    const int nk = nshifts();
    // A source that is also a destination is read from a copy taken first, so that
    // no message or local copy sees values this execution already wrote.
    std::vector<const std::byte *> &sources = sources_;
    std::vector<std::byte *> &targets = targets_;
    sources.resize(static_cast<size_t>(nk));  // no allocation after the first execution
    targets.resize(static_cast<size_t>(nk));
    size_t snapshot = 0;
    for (int k = 0; k < nk; ++k) {
        targets[k] = dsts[k]->storage();
        sources[k] = srcs[k]->storage();
        bool aliased = false;
        for (int j = 0; j < nk; ++j) aliased = aliased || static_cast<const array::DistArray *>(dsts[j]) == srcs[k];
        if (!aliased) continue;
        int earlier = -1;  // the same source already copied for an earlier shift
        for (int j = 0; j < k && earlier < 0; ++j)
            if (srcs[j] == srcs[k]) earlier = j;
        if (earlier >= 0) {
            sources[k] = sources[earlier];
            continue;
        }
        const size_t bytes = static_cast<size_t>(array::Box{{}, storage_shape_}.count()) * elsize_;
        if (snapshots_.size() <= snapshot) snapshots_.emplace_back();
        snapshots_[snapshot].resize(bytes);
        std::memcpy(snapshots_[snapshot].data(), srcs[k]->storage(), bytes);
        sources[k] = snapshots_[snapshot++].data();
    }

    buffers_.assign(sources.begin(), sources.end());
    buffers_.insert(buffers_.end(), targets.begin(), targets.end());
    requests_.bind(buffers_, [&](std::vector<MPI_Request> &out) {
        for (int k = 0; k < nk; ++k)
            init_messages(out, shifts_[k].recvs, targets[k], shifts_[k].sends, sources[k], grid_->comm());
    });
    requests_.start();

    // Local work while the messages travel.
    alignas(16) std::byte one[16];
    for (int k = 0; k < nk; ++k) {
        const Shift &shift = shifts_[k];
        for (const LocalCopy &c : shift.copies) array::copy_box(targets[k], c.to, sources[k], c.from, storage_shape_, elsize_);
        if (shift.fills.empty()) continue;
        const dm_boundary_kind b = shift.spec.boundary;
        const void *value = nullptr;
        if (b == DM_BOUNDARY_ZERO) {
            std::memset(one, 0, sizeof one);
            value = one;
        } else if (b == DM_BOUNDARY_ONE) {
            dtype_one(dtype_, one);
            value = one;
        } else if (b == DM_BOUNDARY_SCALAR) {
            value = boundaries[k];
        }
        for (const array::Box &box : shift.fills) {
            if (b == DM_BOUNDARY_ARRAY) fill_lines(targets[k], box, shift.spec.axis, static_cast<const std::byte *>(boundaries[k]));
            else array::fill_box(targets[k], box, value, storage_shape_, elsize_);
        }
    }
    requests_.wait();
}

}  // namespace dm::shift
