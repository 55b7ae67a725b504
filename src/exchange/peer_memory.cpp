#include "exchange/peer_memory.hpp"

#include "core/error.hpp"
#include "exchange/on_node.hpp"
#include "exchange/plan.hpp"

#include <algorithm>
#include <cstring>

namespace dm::exchange {

bool all_on_node(MPI_Comm comm) {
    int size = 1;
    MPI_Comm_size(comm, &size);
    if (size == 1 || !node::available(comm)) return false;
    const char *same = node::same_node(comm);
    return std::all_of(same, same + size, [](char s) { return s != 0; });
}

node::Location shared_with(MPI_Comm comm, const void *p) {
    const node::Location at = node::locate(p);
    if (at.window < 0) return at;
    int size = 1;
    MPI_Comm_size(comm, &size);
    const int *world = node::world_ranks(comm);
    for (int r = 0; r < size; ++r)
        if (!node::maps(at.window, world[r])) return {};
    return at;
}

const std::byte *peer_address(MPI_Comm comm, int rank, const node::Location &at) {
    return node::address(at.window, node::world_ranks(comm)[rank], at.offset);
}

bool may_read_in_place() {
    const Executor e = executor_from_environment(Executor::Auto);
    return e == Executor::Auto || std::strcmp(e.name(), "onnode") == 0;
}

bool worth_reading_in_place(std::int64_t bytes) { return bytes >= kOnNodeMinBytes; }

void done_reading(MPI_Comm comm) { check_mpi(MPI_Barrier(comm), "MPI_Barrier"); }

}  // namespace dm::exchange
