// Distributed N-d arrays: layout, local storage with ghosts, scatter and gather.
#pragma once

#include <datamotion/array.h>

#include "core/memory_kind.hpp"
#include "layout/distribution.hpp"
#include "layout/grid.hpp"

#include <cstddef>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace dm::array {

// Where an array's local storage comes from.
struct Storage {
    enum Fill { Zero, Uninitialised };
    Fill fill = Zero;  // for storage the array allocates
    // The caller's memory instead (borrowed, never freed by the array): at least
    // `bytes` bytes, aligned to the element type; NULL only where the storage is empty.
    bool adopt = false;
    void *memory = nullptr;
    std::int64_t bytes = 0;
    // The memory kind of the storage (core/memory_kind.hpp): adopted memory of that
    // kind, or allocated by the kind's allocator (a kind without one must adopt).
    // Only the kind's kernels touch it: scatter and gather refuse another than host.
    MemoryKind kind = MemoryKind::Host;
};

// A scatter or gather root as messages show it: a rank, or DM_ALL_RANKS (None in Python).
std::string root_text(const std::vector<std::int64_t> &root);

class DistArray {
public:
    // Collective on the grid's communicator. Every argument is checked and must
    // agree across ranks; an empty `dists` means Block on every axis, an empty
    // `ghost` means no ghost region. The storage is zero-filled, left
    // uninitialised, or the caller's (`storage`). Sizes that cannot be allocated
    // (see allocate_storage) fail on every rank before any is.
    DistArray(std::shared_ptr<const layout::ProcessGrid> grid, int dtype, std::vector<std::int64_t> shape,
              std::vector<dm_dist> dists, std::vector<int> ghost, const Storage &storage = {});

    const layout::ProcessGrid &grid() const { return *grid_; }
    const std::shared_ptr<const layout::ProcessGrid> &grid_ptr() const { return grid_; }
    dm_dtype dtype() const { return dtype_; }
    std::size_t element_size() const { return elsize_; }
    int ndims() const { return static_cast<int>(shape_.size()); }
    const std::vector<std::int64_t> &shape() const { return shape_; }
    const std::vector<int> &ghost() const { return ghost_; }
    const layout::AxisMap &axis_map(int axis) const { return maps_[axis]; }
    std::int64_t global_size() const;

    // Owned elements of this rank.
    const std::vector<std::int64_t> &local_shape() const { return local_shape_; }
    std::int64_t local_size() const;
    // Storage including ghosts: local_shape + 2 * ghost per axis, row-major.
    const std::vector<std::int64_t> &storage_shape() const { return storage_shape_; }
    std::byte *storage() { return data_; }
    const std::byte *storage() const { return data_; }
    std::byte *local_data() { return data_ + interior_offset_; }  // first owned element
    const std::byte *local_data() const { return data_ + interior_offset_; }
    bool adopted() const { return data_ && !owned_; }  // the storage is the caller's memory
    MemoryKind memory_kind() const { return key_.kind; }  // of the storage (Storage::kind)
    // Byte strides of the storage per axis.
    std::vector<std::int64_t> byte_strides() const;

    // Local. What makes two arrays laid out alike on every rank: the same grid
    // object, element type, shape, resolved distributions and ghost widths.
    struct LayoutKey {
        const layout::ProcessGrid *grid;
        dm_dtype dtype;
        std::vector<std::int64_t> shape, dists;  // dists: layout::append_words of every axis
        std::vector<int> ghost;
        MemoryKind kind = MemoryKind::Host;  // of the storage: a plan made for one kind refuses another
        bool operator==(const LayoutKey &o) const {
            return grid == o.grid && dtype == o.dtype && shape == o.shape && dists == o.dists && ghost == o.ghost &&
                   kind == o.kind;
        }
    };
    const LayoutKey &layout_key() const { return key_; }
    // Local. What differs between two layouts, each part with both values, e.g.
    // "shape (10, 4) expected, (10, 5) given; element type float64 expected, int32
    // given". The grids of both keys must be alive (plans hold theirs).
    static std::string layout_difference(const LayoutKey &expected, const LayoutKey &given);

    // Local. Exchanges in flight that read or write this array (begin() to end());
    // freeing it meanwhile is refused.
    void hold() const { ++held_; }
    void release() const { --held_; }
    bool held() const { return held_ > 0; }

    // Collective. root == DM_ALL_RANKS: every rank passes the same global array.
    // `caller_check`, if given, runs on every rank inside the call's one error
    // agreement (a binding's own checks of its arguments).
    using Check = std::function<void()>;
    void scatter(const void *global, int root, const Check &caller_check = {});
    void gather(void *global, int root, const Check &caller_check = {}) const;

private:
    // Calls run(packed_offset, storage_offset, global_offset, length) for every
    // run of elements owned by grid coordinate `coords` that are contiguous both
    // in the global array and along the last local axis. Offsets are in elements;
    // packed offsets index that rank's owned elements in row-major order without
    // ghosts, storage offsets index this array's storage (meaningful only for the
    // calling rank's own coordinates).
    using RunFn = std::function<void(std::int64_t, std::int64_t, std::int64_t, std::int64_t)>;
    void for_each_run(const int *coords, const RunFn &run) const;
    // Collective: root agreed and in range, the global array present where it is
    // used; then `prepare` (allocations) runs on every rank, inside the same agreement.
    void check_call(const void *global, int root, const char *what, const Check &caller_check,
                    const Check &prepare) const;
    std::vector<int> element_counts() const;  // owned elements of every rank (throws if > INT_MAX)
    // Sizes the local storage from the axis maps and allocates it (zero-filled or
    // not) or adopts the caller's. Every byte count is checked first: DM_ERR_MEMORY
    // for more than this process can address or this machine holds (or when the
    // allocation fails), then DM_ERR_ARG for a storage axis longer than an MPI
    // datatype can describe, or adopted memory too small or misaligned.
    void allocate_storage(const Storage &storage, bool node_memory);

    std::shared_ptr<const layout::ProcessGrid> grid_;
    dm_dtype dtype_ = DM_FLOAT64;
    std::size_t elsize_ = 8;
    std::vector<std::int64_t> shape_;
    std::vector<layout::AxisMap> maps_;
    std::vector<int> ghost_;
    std::vector<std::int64_t> local_shape_, storage_shape_;
    std::byte *data_ = nullptr;
    // Owned storage is node memory where the node has other ranks of the grid (so that
    // exchanges read it in place, core/node_memory.hpp), else the heap's.
    static void free_storage(void *p) noexcept;
    std::unique_ptr<std::byte, void (*)(void *)> owned_{nullptr, free_storage};  // null for adopted storage
    std::size_t interior_offset_ = 0;
    LayoutKey key_;
    mutable int held_ = 0;
};

}  // namespace dm::array
