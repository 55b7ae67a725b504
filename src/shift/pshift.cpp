#include "shift/pshift.hpp"

#include "shift/runs.hpp"

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace dm::shift {

PShiftPlan::PShiftPlan(const array::DistArray &prototype, std::vector<dm_shift_spec> specs,
                       exchange::Executor executor)
    : grid_(prototype.grid_ptr()),
      key_(prototype.layout_key()),
      dtype_(prototype.dtype()),
      elsize_(prototype.element_size()),
      ghost_(prototype.ghost()),
      local_shape_(prototype.local_shape()),
      storage_shape_(prototype.storage_shape()),
      plan_(grid_->comm(), static_cast<int>(2 * specs.size()), "pshift"),
      slots_(2 * specs.size()) {
    active_.reserve(2 * specs.size());
    MPI_Comm comm = grid_->comm();
    const int n = prototype.ndims();
    for (int a = 0; a < n; ++a) maps_.push_back(prototype.axis_map(a));
    collective(comm, [&] {
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
        }
    });
    std::vector<std::int64_t> args;
    for (const auto &s : specs)
        args.insert(args.end(), {s.kind, s.axis, s.shift, s.kind == DM_EOSHIFT ? s.boundary : 0});
    args.push_back(static_cast<int>(executor));
    require_same(comm, args, "pshift: shift specifications and executor");

    shifts_.resize(specs.size());
    collective(comm, [&] {
        for (size_t k = 0; k < specs.size(); ++k) {
            shifts_[k].spec = specs[k];
            plan(static_cast<int>(k));
        }
        // A source may also be a destination; every slot is an array of the
        // prototype's layout, so of its memory kind.
        plan_.finish({executor, true, std::vector<MemoryKind>(slots_.size(), key_.kind)});
    });
}

void PShiftPlan::plan(int k) {
    Shift &shift = shifts_[static_cast<size_t>(k)];
    const dm_shift_spec &spec = shift.spec;
    const int axis = spec.axis, me = grid_->coords()[axis], nprocs = grid_->dims()[axis];
    const int n = static_cast<int>(local_shape_.size());
    const int from = k, to = nshifts() + k;  // slots
    std::vector<std::int64_t> strides(static_cast<size_t>(n));
    for (int a = n - 1, s = static_cast<int>(elsize_); a >= 0; --a) {
        strides[a] = s;
        s *= static_cast<int>(storage_shape_[a]);
    }
    const auto elsize = static_cast<std::int64_t>(elsize_);
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
    auto block = [&](int slot, const array::Box &b) {
        return exchange::box_block(slot, n, b.start.data(), b.size.data(), strides.data(), 0, elsize);
    };
    // The runs that coordinate p's owned positions read, in order on every rank.
    const layout::AxisMap &map = maps_[axis];
    auto runs_of = [&](int p) { return owned_source_runs(map, p, spec.shift, spec.kind == DM_CSHIFT); };
    // What this rank receives, copies or fills: its own runs.
    for (const SourceRun &r : runs_of(me)) {
        const array::Box at = box(r.offset, r.length);
        if (r.coord < 0) {
            shift.fills.push_back(at);
        } else if (r.coord == me) {
            const array::Box source = box(r.local, r.length);
            plan_.copy(exchange::box_copy(n, at.size.data(), from, source.start.data(), strides.data(), 0, to,
                                          at.start.data(), strides.data(), 0, elsize));
        } else {
            plan_.recv(rank_at(r.coord), block(to, at));
        }
    }
    // What this rank sends: the runs of every other coordinate that read from it.
    for (int p = 0; p < nprocs; ++p) {
        if (p == me) continue;
        for (const SourceRun &r : runs_of(p))
            if (r.coord == me) plan_.send(rank_at(p), block(from, box(r.local, r.length)));
    }
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
    auto check = [&](const array::DistArray *a, int k, const char *what) {
        if (!(a->layout_key() == key_))
            fail(DM_ERR_ARG, "pshift: shift ", k, ": ", what, " differs from the prototype: ",
                 array::DistArray::layout_difference(key_, a->layout_key()));
    };
    for (int k = 0; k < nshifts(); ++k) {
        if (!dsts[k] || !srcs[k]) fail(DM_ERR_ARG, "pshift: shift ", k, ": destination or source is NULL");
        check(dsts[k], k, "destination");
        // One array shifted many ways is the common call: a source that is the previous
        // shift's is not compared again (comparing layouts is most of this check).
        if (k == 0 || srcs[k] != srcs[k - 1]) check(srcs[k], k, "source");
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

void PShiftPlan::begin(array::DistArray *const *dsts, const array::DistArray *const *srcs,
                       const void *const *boundaries) {
    hot_path(comm(), "pshift execute", [&] {
        if (plan_.in_flight()) fail(DM_ERR_STATE, "pshift: begin while an execution is in flight (call end first)");
        check_arrays(dsts, srcs, boundaries);
    });
    const int nk = nshifts();
    for (int k = 0; k < nk; ++k) {
        slots_[static_cast<size_t>(k)] = srcs[k]->storage();
        slots_[static_cast<size_t>(nk + k)] = dsts[k]->storage();
    }
    plan_.begin(slots_.data());  // sends packed and local copies done; aliased sources staged first
    for (int k = 0; k < nk; ++k) active_.push_back(srcs[k]), active_.push_back(dsts[k]);
    for (const array::DistArray *a : active_) a->hold();

    // Boundary fills while the messages travel: regions nothing else reads or writes.
    alignas(16) std::byte one[16];
    for (int k = 0; k < nk; ++k) {
        const Shift &shift = shifts_[k];
        if (shift.fills.empty()) continue;
        std::byte *target = dsts[k]->storage();
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
            if (b == DM_BOUNDARY_ARRAY) fill_lines(target, box, shift.spec.axis, static_cast<const std::byte *>(boundaries[k]));
            else array::fill_box(target, box, value, storage_shape_, elsize_);
        }
    }
}

bool PShiftPlan::test() {
    if (!plan_.in_flight()) fail(DM_ERR_STATE, "pshift: test without begin");
    return plan_.test();
}

void PShiftPlan::end() {
    hot_path(comm(), "pshift execute", [&] {
        if (!plan_.in_flight()) fail(DM_ERR_STATE, "pshift: end without begin");
    });
    for (const array::DistArray *a : active_) a->release();
    active_.clear();
    plan_.end();
}

}  // namespace dm::shift
