#include "array/dist_array.hpp"

#include "array/box.hpp"

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <string>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <unistd.h>
#endif

namespace dm::array {
namespace {

std::vector<std::int64_t> row_major_strides(const std::vector<std::int64_t> &shape) {
    std::vector<std::int64_t> strides(shape.size(), 1);
    for (int a = static_cast<int>(shape.size()) - 2; a >= 0; --a) strides[a] = strides[a + 1] * shape[a + 1];
    return strides;
}

struct FreeDeleter {
    void operator()(std::byte *p) const noexcept { std::free(p); }
};
using Scratch = std::unique_ptr<std::byte[], FreeDeleter>;

// This machine's physical memory in bytes (INT64_MAX where it cannot be asked):
// storage larger than that can never be filled, however the allocator answers.
std::int64_t physical_memory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) return checked_mul(pages, page).value_or(INT64_MAX);
#endif
    return INT64_MAX;
}

// Memory that is written before it is read: no zero fill. Large buffers are
// aligned to huge pages and, on Linux, asked to use them, as NumPy does: a fresh
// buffer of many megabytes otherwise costs a page fault every 4 KiB. Failure is
// DM_ERR_MEMORY naming `what`.
Scratch scratch(std::int64_t elements, std::size_t elsize, const char *what) {
    constexpr std::size_t kHuge = std::size_t{2} << 20;
    const auto exact = checked_mul(elements, static_cast<std::int64_t>(elsize), PTRDIFF_MAX);
    if (!exact) fail(DM_ERR_MEMORY, what, ": ", elements, " elements of ", elsize, " bytes exceed the address space");
    const std::size_t bytes = std::max<std::size_t>(1, static_cast<std::size_t>(*exact));
    void *p = nullptr;
    if (bytes >= 2 * kHuge) {
        if (posix_memalign(&p, kHuge, bytes) != 0) p = nullptr;
#ifdef MADV_HUGEPAGE
        else madvise(p, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
#endif
    } else {
        p = std::malloc(bytes);
    }
    if (!p) fail(DM_ERR_MEMORY, what, ": cannot allocate a buffer of ", bytes, " bytes");
    return Scratch(static_cast<std::byte *>(p));
}

// Products of extents already checked not to overflow (at construction).
std::int64_t product(const std::vector<std::int64_t> &v) {
    std::int64_t p = 1;
    for (auto x : v) p *= x;
    return p;
}

// One element type code, by name.
std::string dtype_text(const std::vector<std::int64_t> &code) {
    return code.size() == 1 && dtype_valid(static_cast<int>(code[0])) ? dtype_name(static_cast<dm_dtype>(code[0]))
                                                                        : values_text(code);
}

std::string grid_text(const layout::ProcessGrid *grid) {
    static const char *const orders[] = {"send", "news", "shuffle"};
    return "dims " + tuple_text(grid->dims()) + ", order " + orders[grid->order()];
}

}  // namespace

std::string root_text(const std::vector<std::int64_t> &root) {
    return root.size() == 1 && root[0] == DM_ALL_RANKS ? "DM_ALL_RANKS (None)" : values_text(root);
}

std::string DistArray::layout_difference(const LayoutKey &expected, const LayoutKey &given) {
    std::string out;
    auto differ = [&](const char *what, const std::string &e, const std::string &g) {
        out += (out.empty() ? "" : "; ") + std::string(what) + " " + e + " expected, " + g + " given";
    };
    if (expected.dtype != given.dtype) differ("element type", dtype_name(expected.dtype), dtype_name(given.dtype));
    if (expected.shape != given.shape) differ("shape", tuple_text(expected.shape), tuple_text(given.shape));
    // Block's resolved block size follows the shape: only a different kind or block-cyclic block says more.
    const std::string e_dists = layout::dists_text(expected.dists), g_dists = layout::dists_text(given.dists);
    if (e_dists != g_dists) differ("distribution", e_dists, g_dists);
    if (expected.ghost != given.ghost) differ("ghost width", tuple_text(expected.ghost), tuple_text(given.ghost));
    if (expected.kind != given.kind) differ("memory kind", memory::info(expected.kind).name, memory::info(given.kind).name);
    if (expected.grid != given.grid)
        out += std::string(out.empty() ? "" : "; ") + "process grid: the planned grid object (" +
               grid_text(expected.grid) + ") expected, another (" + grid_text(given.grid) + ") given";
    return out.empty() ? "the layouts differ" : out;
}

DistArray::DistArray(std::shared_ptr<const layout::ProcessGrid> grid, int dtype, std::vector<std::int64_t> shape,
                     std::vector<dm_dist> dists, std::vector<int> ghost, const Storage &storage)
    : grid_(std::move(grid)), shape_(std::move(shape)), ghost_(std::move(ghost)) {
    if (!grid_) fail(DM_ERR_STATE, "distributed array: grid is NULL");
    MPI_Comm comm = grid_->comm();
    const int n = ndims();
    collective(comm, [&] {
        dtype_ = checked_dtype(dtype);
        elsize_ = dtype_size(dtype_);
        if (n < 1 || n > DM_MAX_DIMS)
            fail(DM_ERR_ARG, "distributed array: rank must be in [1, ", DM_MAX_DIMS, "], got ", n);
        if (n != grid_->ndims())
            fail(DM_ERR_ARG, "distributed array: array rank ", n, " differs from process grid rank ",
                 grid_->ndims(), " (use grid extent 1 for local axes)");
        if (!dists.empty() && static_cast<int>(dists.size()) != n)
            fail(DM_ERR_ARG, "distributed array: ", dists.size(), " distributions for ", n, " axes");
        if (!ghost_.empty() && static_cast<int>(ghost_.size()) != n)
            fail(DM_ERR_ARG, "distributed array: ", ghost_.size(), " ghost widths for ", n, " axes");
        std::optional<std::int64_t> total = 1;
        for (int a = 0; a < n; ++a) {
            if (shape_[a] < 0) fail(DM_ERR_ARG, "distributed array: extent of axis ", a, " is negative (", shape_[a], ")");
            if (!(total = checked_mul(*total, shape_[a])))
                fail(DM_ERR_ARG, "distributed array: global size overflows 64 bits");
            if (!dists.empty()) layout::validate(dists[a], shape_[a], grid_->dims()[a], "axis " + std::to_string(a));
            if (!ghost_.empty() && ghost_[a] < 0)
                fail(DM_ERR_ARG, "distributed array: ghost width of axis ", a, " is negative (", ghost_[a], ")");
        }
        // Byte offsets into the global array (scatter, gather) are 64-bit too.
        if (!checked_mul(*total, static_cast<std::int64_t>(elsize_)))
            fail(DM_ERR_MEMORY, "distributed array: ", *total, " elements of ", elsize_, " bytes (", dtype_name(dtype_),
                 ") are more than 2^63 - 1 bytes, too large for any memory");
    });
    dists.resize(static_cast<size_t>(n), dm_dist{DM_DIST_BLOCK, 0, 0, 0, nullptr});
    ghost_.resize(static_cast<size_t>(n), 0);

    require_same(comm, {dtype_}, "element type", dtype_text);
    require_same(comm, shape_, "global shape", tuple_text<std::int64_t>);
    std::vector<std::int64_t> dist_args;  // the sizes of DM_DIST_SIZES axes included
    for (const auto &d : dists) layout::append_words(d, dist_args);
    require_same(comm, dist_args, "distribution", layout::dists_text);
    require_same(comm, std::vector<std::int64_t>(ghost_.begin(), ghost_.end()), "ghost width", tuple_text<std::int64_t>);

    for (int a = 0; a < n; ++a) maps_.emplace_back(dists[a], shape_[a], grid_->dims()[a]);
    // Node memory is decided (collectively, once per communicator) before the checks,
    // and taken (collectively) after them, so that no rank waits in a pool's
    // collective for a rank whose checks failed.
    const bool node_memory = !storage.adopt && node::available(comm) && storage.kind == MemoryKind::Host;
    collective(comm, [&] { allocate_storage(storage, node_memory); });
    if (node_memory) {
        const std::int64_t bytes = product(storage_shape_) * static_cast<std::int64_t>(elsize_);
        owned_.reset(node::allocate(comm, bytes));
        if (storage.fill == Storage::Zero) std::memset(owned_.get(), 0, static_cast<std::size_t>(bytes));
        data_ = owned_.get();
    }
    const auto strides = row_major_strides(storage_shape_);
    std::int64_t offset = 0;
    for (int a = 0; a < n; ++a) offset += ghost_[a] * strides[a];
    if (local_size() > 0) interior_offset_ = static_cast<size_t>(offset) * elsize_;
    key_ = LayoutKey{grid_.get(), dtype_, shape_, {}, ghost_, storage.kind};
    for (const auto &m : maps_) m.append_words(key_.dists);
}

void DistArray::free_storage(void *p) noexcept {
    if (!node::release(p)) std::free(p);
}

void DistArray::allocate_storage(const Storage &storage, bool node_memory) {
    const int n = ndims(), me = grid_->rank();
    std::optional<std::int64_t> elements = 1;
    for (int a = 0; a < n; ++a) {
        local_shape_.push_back(maps_[a].extent(grid_->coords()[a]));
        const auto extent = checked_add(local_shape_[a], 2 * std::int64_t{ghost_[a]});
        storage_shape_.push_back(extent.value_or(INT64_MAX));
        if (elements) elements = extent ? checked_mul(*elements, *extent) : std::nullopt;
    }
    const auto bytes = elements ? checked_mul(*elements, static_cast<std::int64_t>(elsize_), PTRDIFF_MAX) : std::nullopt;
    if (!bytes)
        fail(DM_ERR_MEMORY, "distributed array: rank ", me, "'s local storage (ghosts included) is more bytes than ",
             "this process can address");
    if (*bytes > physical_memory())
        fail(DM_ERR_MEMORY, "distributed array: rank ", me, "'s local storage (ghosts included) needs ", *bytes,
             " bytes, more than this machine's memory (", physical_memory(), " bytes)");
    for (int a = 0; a < n; ++a)
        if (storage_shape_[a] > INT_MAX)
            fail(DM_ERR_ARG, "distributed array: axis ", a, " of rank ", me, "'s storage would hold ", local_shape_[a],
                 " elements and 2 x ", ghost_[a], " ghosts, more than ", INT_MAX,
                 " (the largest extent an MPI datatype describes)");
    if (storage.adopt) {
        const std::size_t align = std::min<std::size_t>(elsize_, alignof(std::max_align_t));
        if (storage.bytes < *bytes)
            fail(DM_ERR_ARG, "distributed array: rank ", me, "'s storage needs ", *bytes, " bytes (local extents plus ",
                 "2 x ghost per axis), the memory given has ", storage.bytes);
        if (*bytes > 0 && !storage.memory) fail(DM_ERR_ARG, "distributed array: rank ", me, "'s memory is NULL");
        if (reinterpret_cast<std::uintptr_t>(storage.memory) % align != 0)
            fail(DM_ERR_ARG, "distributed array: rank ", me, "'s memory is not aligned to ", align, " bytes");
        data_ = static_cast<std::byte *>(storage.memory);
        return;
    }
    if (node_memory) return;  // taken after every rank's checks passed (constructor)
    if (storage.kind != MemoryKind::Host) {  // the kind's allocator, zero-filled
        const MemoryKindInfo &kind = memory::info(storage.kind);
        if (!kind.allocate)
            fail(DM_ERR_ARG, "distributed array: memory of kind '", kind.name, "' has no allocator: adopt it");
        owned_ = {static_cast<std::byte *>(kind.allocate(std::max<std::size_t>(1, static_cast<std::size_t>(*bytes)))),
                  kind.release};
        if (!owned_)
            fail(DM_ERR_MEMORY, "distributed array: cannot allocate ", *bytes, " bytes of ", kind.name, " memory on rank ", me);
        data_ = owned_.get();
        return;
    }
    // calloc takes fresh zero pages from the system for large sizes, as NumPy's zeros
    // does; uninitialised storage is scratch memory (huge pages where they help).
    owned_.reset(storage.fill == Storage::Zero
                     ? static_cast<std::byte *>(std::calloc(std::max<std::size_t>(1, static_cast<std::size_t>(*bytes)), 1))
                     : scratch(*bytes, 1, "distributed array").release());
    if (!owned_) fail(DM_ERR_MEMORY, "distributed array: cannot allocate ", *bytes, " bytes of local storage on rank ", me);
    data_ = owned_.get();
}

std::int64_t DistArray::global_size() const { return product(shape_); }


std::int64_t DistArray::local_size() const { return product(local_shape_); }

std::vector<std::int64_t> DistArray::byte_strides() const {
    auto strides = row_major_strides(storage_shape_);
    for (auto &s : strides) s *= static_cast<std::int64_t>(elsize_);
    return strides;
}

void DistArray::for_each_run(const int *coords, const RunFn &run) const {
    const int n = ndims();
    std::vector<std::int64_t> extent(n);
    for (int a = 0; a < n; ++a) {
        extent[a] = maps_[a].extent(coords[a]);
        if (extent[a] == 0) return;
    }
    const auto gstride = row_major_strides(shape_);
    const auto pstride = row_major_strides(extent);
    const auto sstride = row_major_strides(storage_shape_);

    // Runs along the last axis are the same for every row: blocks contiguous in the global index.
    const std::vector<layout::OwnedRun> runs = maps_[n - 1].owned_runs(coords[n - 1]);

    // Every row: the leading axes' multi-index, with its packed and stored offsets.
    std::int64_t origin = ghost_[n - 1];
    for (int a = 0; a < n - 1; ++a) origin += ghost_[a] * sstride[a];
    const std::int64_t *const strides[2] = {pstride.data(), sstride.data()};
    for_each_index(n - 1, extent.data(), strides, std::array<std::int64_t, 2>{0, origin},
                   [&](const std::int64_t *index, const std::array<std::int64_t, 2> &at) {
                       std::int64_t global = 0;
                       for (int a = 0; a < n - 1; ++a)
                           global += maps_[a].global_index(coords[a], index[a]) * gstride[a];
                       for (const layout::OwnedRun &r : runs)
                           run(at[0] + r.local, at[1] + r.local, global + r.global, r.length);
                   });
}

void DistArray::check_call(const void *global, int root, const char *what, const Check &caller_check,
                           const Check &prepare) const {
    const int me = grid_->rank();
    require_same(grid_->comm(), {root}, "root", root_text);
    collective(grid_->comm(), [&] {
        if (caller_check) caller_check();
        if (memory_kind() != MemoryKind::Host)  // its bytes are the kind's kernels' to touch
            fail(DM_ERR_ARG, what, ": the array's storage is ", memory::info(memory_kind()).name,
                 " memory; scatter and gather move host memory only");
        if (root != DM_ALL_RANKS && (root < 0 || root >= grid_->size()))
            fail(DM_ERR_ARG, "root ", root, " out of range [0, ", grid_->size(), ") (or DM_ALL_RANKS)");
        if ((root == DM_ALL_RANKS || root == me) && !global && global_size() > 0)
            fail(DM_ERR_ARG, what, ": global array is NULL on rank ", me);
        if (prepare) prepare();
    });
}

std::vector<int> DistArray::element_counts() const {
    const int size = grid_->size();
    std::vector<int> counts(static_cast<size_t>(size));
    std::vector<int> coords(static_cast<size_t>(ndims()));
    std::int64_t total = 0;
    for (int q = 0; q < size; ++q) {
        grid_->coords_of(q, coords.data());
        std::int64_t count = 1;
        for (int a = 0; a < ndims(); ++a) count *= maps_[a].extent(coords[a]);
        total += count;
        if (total > INT_MAX)
            fail(DM_ERR_UNSUPPORTED, "scatter/gather of more than ", INT_MAX,
                 " elements in one call is not supported by this version");
        counts[q] = static_cast<int>(count);
    }
    return counts;
}

void DistArray::scatter(const void *global, int root, const Check &caller_check) {
    MPI_Comm comm = grid_->comm();
    const int me = grid_->rank();
    // Counts depend only on agreed arguments: every rank computes (or refuses) them alike.
    std::vector<int> counts, displs;
    Scratch packed, received;
    const bool contiguous = local_size() == product(storage_shape_);  // no ghost region
    check_call(global, root, "scatter", caller_check, [&] {
        if (root == DM_ALL_RANKS) return;
        counts = element_counts();
        displs.assign(counts.size(), 0);
        for (size_t q = 1; q < counts.size(); ++q) displs[q] = displs[q - 1] + counts[q - 1];
        if (me == root) packed = scratch(global_size(), elsize_, "scatter");
        if (!contiguous) received = scratch(local_size(), elsize_, "scatter");
    });
    const auto *src = static_cast<const std::byte *>(global);
    if (root == DM_ALL_RANKS) {
        for_each_run(grid_->coords().data(), [&](std::int64_t, std::int64_t s, std::int64_t g, std::int64_t len) {
            std::memcpy(data_ + s * elsize_, src + g * elsize_, len * elsize_);
        });
        return;
    }
    if (me == root) {
        std::vector<int> coords(static_cast<size_t>(ndims()));
        for (int q = 0; q < grid_->size(); ++q) {
            grid_->coords_of(q, coords.data());
            std::byte *dst = packed.get() + static_cast<size_t>(displs[q]) * elsize_;
            for_each_run(coords.data(), [&](std::int64_t p, std::int64_t, std::int64_t g, std::int64_t len) {
                std::memcpy(dst + p * elsize_, src + g * elsize_, len * elsize_);
            });
        }
    }
    std::byte *recv = contiguous ? data_ : received.get();
    MPI_Datatype type = dtype_mpi(dtype_);
    check_mpi(MPI_Scatterv(packed.get(), counts.data(), displs.data(), type, recv, counts[me], type, root, comm),
              "MPI_Scatterv");
    if (!contiguous)
        for_each_run(grid_->coords().data(), [&](std::int64_t p, std::int64_t s, std::int64_t, std::int64_t len) {
            std::memcpy(data_ + s * elsize_, recv + p * elsize_, len * elsize_);
        });
}

void DistArray::gather(void *global, int root, const Check &caller_check) const {
    MPI_Comm comm = grid_->comm();
    const int me = grid_->rank();
    const bool receives = root == DM_ALL_RANKS || root == me;
    const bool contiguous = local_size() == product(storage_shape_);
    std::vector<int> counts, displs;
    Scratch packed, mine;
    check_call(global, root, "gather", caller_check, [&] {
        counts = element_counts();
        displs.assign(counts.size(), 0);
        for (size_t q = 1; q < counts.size(); ++q) displs[q] = displs[q - 1] + counts[q - 1];
        if (receives) packed = scratch(global_size(), elsize_, "gather");
        if (!contiguous) mine = scratch(local_size(), elsize_, "gather");
    });
    const std::byte *send = contiguous ? data_ : mine.get();
    if (!contiguous)
        for_each_run(grid_->coords().data(), [&](std::int64_t p, std::int64_t s, std::int64_t, std::int64_t len) {
            std::memcpy(mine.get() + p * elsize_, data_ + s * elsize_, len * elsize_);
        });
    MPI_Datatype type = dtype_mpi(dtype_);
    if (root == DM_ALL_RANKS)
        check_mpi(MPI_Allgatherv(send, counts[me], type, packed.get(), counts.data(), displs.data(), type, comm),
                  "MPI_Allgatherv");
    else
        check_mpi(MPI_Gatherv(send, counts[me], type, packed.get(), counts.data(), displs.data(), type, root, comm),
                  "MPI_Gatherv");
    if (root != DM_ALL_RANKS && root != me) return;
    auto *dst = static_cast<std::byte *>(global);
    std::vector<int> coords(static_cast<size_t>(ndims()));
    for (int q = 0; q < grid_->size(); ++q) {
        grid_->coords_of(q, coords.data());
        const std::byte *from = packed.get() + static_cast<size_t>(displs[q]) * elsize_;
        for_each_run(coords.data(), [&](std::int64_t p, std::int64_t, std::int64_t g, std::int64_t len) {
            std::memcpy(dst + g * elsize_, from + p * elsize_, len * elsize_);
        });
    }
}

}  // namespace dm::array
