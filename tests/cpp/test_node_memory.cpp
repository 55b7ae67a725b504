// Node memory (src/core/node_memory.hpp): allocations every rank of a node reads in
// place, found again from (window, offset) on the other ranks; released memory is
// reused; an allocation larger than a window's free part makes a new window; the
// arrays datamotion allocates are node memory, those a user adopts are not.
#include "harness.hpp"

#include "core/node_memory.hpp"

#include <datamotion/datamotion.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

int size_of(MPI_Comm comm) {
    int n = 1;
    MPI_Comm_size(comm, &n);
    return n;
}

// Every rank writes its rank into `bytes` bytes of node memory; every rank then
// reads every other rank's allocation through (window, offset) and checks it.
// Returns the allocation (the caller releases it).
std::byte *written_and_read_everywhere(MPI_Comm comm, std::int64_t bytes) {
    const int me = rank_of(comm), p = size_of(comm);
    std::byte *mine = dm::node::allocate(comm, bytes);
    if (!dm::node::available(comm)) {
        CHECK(mine == nullptr);
        return nullptr;
    }
    CHECK(mine != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(mine) % 64 == 0);
    std::memset(mine, me + 1, static_cast<std::size_t>(bytes));
    const dm::node::Location at = dm::node::locate(mine + bytes / 2);
    CHECK(at.window >= 0);
    std::int64_t where[2] = {at.window, at.offset - bytes / 2}, all[2 * 16] = {};
    MPI_Allgather(where, 2, MPI_INT64_T, all, 2, MPI_INT64_T, comm);
    const int *world = dm::node::world_ranks(comm);
    const char *same = dm::node::same_node(comm);
    for (int r = 0; r < p && r < 16; ++r) {
        if (!same[r]) continue;  // another node: nothing to read
        CHECK(dm::node::maps(all[2 * r], world[r]));
        const std::byte *theirs = dm::node::address(all[2 * r], world[r], all[2 * r + 1]);
        CHECK(theirs != nullptr);
        if (!theirs) continue;
        CHECK_EQ(static_cast<int>(theirs[0]), r + 1);
        CHECK_EQ(static_cast<int>(theirs[bytes - 1]), r + 1);
    }
    MPI_Barrier(comm);  // nobody reads mine after this
    return mine;
}

}  // namespace

DM_TEST(node_memory_is_read_in_place_from_every_rank_of_the_node) {
    for (std::int64_t bytes : {std::int64_t{1}, std::int64_t{4096}, std::int64_t{3} << 20}) {
        std::byte *p = written_and_read_everywhere(MPI_COMM_WORLD, bytes);
        CHECK(dm::node::release(p) == (p != nullptr));
    }
}

DM_TEST(released_node_memory_is_reused_and_large_allocations_get_a_window) {
    if (!dm::node::available(MPI_COMM_WORLD)) return;
    std::byte *first = written_and_read_everywhere(MPI_COMM_WORLD, 1 << 16);
    const std::int64_t window = dm::node::locate(first).window;
    CHECK(dm::node::release(first));
    std::byte *again = dm::node::allocate(MPI_COMM_WORLD, 1 << 16);
    CHECK(again == first);  // first fit: the released block comes back
    // More than a window's part (at least 32 MiB) holds: a new window, read in place too.
    std::byte *large = written_and_read_everywhere(MPI_COMM_WORLD, std::int64_t{40} << 20);
    CHECK(dm::node::locate(large).window != window);
    CHECK(dm::node::release(large));
    CHECK(dm::node::release(again));
    int private_memory = 0;
    CHECK(!dm::node::release(&private_memory));  // not node memory: left to its owner
    CHECK(dm::node::locate(&private_memory).window == -1);
}

DM_TEST(arrays_datamotion_allocates_are_node_memory_adopted_ones_are_not) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_SEND, &grid), DM_OK);
    const std::int64_t shape[1] = {1000};
    dm_array owned = nullptr, adopted = nullptr;
    CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 1, shape, nullptr, nullptr, &owned), DM_OK);
    std::vector<double> memory(1000);
    CHECK_EQ(dm_array_adopt(grid, DM_FLOAT64, 1, shape, nullptr, nullptr, memory.data(),
                            memory.size() * sizeof(double), &adopted),
             DM_OK);
    void *data = nullptr;
    std::int64_t extent[1] = {0};
    dm_array_storage(owned, &data, extent);
    MPI_Comm comm = MPI_COMM_NULL;
    dm_grid_comm(grid, &comm);
    const bool shared = dm::node::available(comm);
    CHECK((dm::node::locate(data).window >= 0) == shared);
    CHECK(dm::node::locate(memory.data()).window == -1);
    // A zero-filled array is zero in node memory too.
    const double *values = static_cast<const double *>(data);
    bool zero = true;
    for (std::int64_t i = 0; i < extent[0]; ++i) zero = zero && values[i] == 0.0;
    CHECK(zero);
    dm_array_free(&owned), dm_array_free(&adopted);
    dm_grid_free(&grid);
}
