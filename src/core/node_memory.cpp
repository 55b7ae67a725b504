#include "core/node_memory.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

namespace dm::node {
namespace {

constexpr std::int64_t kAlign = 64;
constexpr std::int64_t kMinWindow = std::int64_t{32} << 20;  // a rank's part of a new window, at least

// One window: this process's part, carved into allocations, and every member's part.
struct Window {
    std::int64_t id = -1;
    MPI_Win win = MPI_WIN_NULL;
    std::byte *mine = nullptr;
    std::int64_t size = 0;
    std::map<std::int64_t, std::int64_t> free;  // offset -> bytes, disjoint, coalesced
    std::map<std::int64_t, std::int64_t> used;  // offset -> bytes
    std::map<int, const std::byte *> parts;     // world rank -> its part, as mapped here

    std::byte *take(std::int64_t bytes) {
        for (auto it = free.begin(); it != free.end(); ++it) {
            if (it->second < bytes) continue;
            const std::int64_t at = it->first, left = it->second - bytes;
            free.erase(it);
            if (left > 0) free[at + bytes] = left;
            used[at] = bytes;
            return mine + at;
        }
        return nullptr;
    }
    void give_back(std::int64_t at) {
        auto u = used.find(at);
        if (u == used.end()) return;
        std::int64_t bytes = u->second;
        used.erase(u);
        auto next = free.lower_bound(at);
        if (next != free.end() && at + bytes == next->first) bytes += next->second, next = free.erase(next);
        if (next != free.begin()) {
            auto prev = std::prev(next);
            if (prev->first + prev->second == at) {
                prev->second += bytes;
                return;
            }
        }
        free[at] = bytes;
    }
};

// The ranks of one node that a communicator spans: their own communicator (on
// which windows are made) and the windows made so far.
struct Pool {
    MPI_Comm comm = MPI_COMM_NULL;
    std::vector<int> members;  // world ranks, in the pool communicator's order
    std::vector<Window *> windows;
};

struct Registry {
    std::vector<std::unique_ptr<Window>> windows;  // in creation order (freed in it)
    std::map<std::vector<int>, std::unique_ptr<Pool>> pools;  // by sorted member world ranks
    std::int64_t led = 0;  // windows this process numbered (as rank 0 of a pool)
    bool finalized = false;
};

Registry &registry() {
    static Registry r;
    return r;
}

// At MPI_Finalize (the attribute on MPI_COMM_SELF is deleted first): every window
// is freed in creation order, which is the same on every member, then the pools.
int free_all(MPI_Comm, int, void *, void *) {
    Registry &r = registry();
    for (auto &w : r.windows)
        if (w->win != MPI_WIN_NULL) MPI_Win_free(&w->win);
    for (auto &[key, pool] : r.pools)
        if (pool->comm != MPI_COMM_NULL) MPI_Comm_free(&pool->comm);
    r.finalized = true;
    return MPI_SUCCESS;
}

void free_at_finalize() {
    static bool set = false;
    if (set) return;
    int keyval = MPI_KEYVAL_INVALID;
    check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_all, &keyval, nullptr), "MPI_Comm_create_keyval");
    check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, keyval, nullptr), "MPI_Comm_set_attr");
    set = true;
}

// What is known about a communicator, kept on it as an attribute.
struct CommInfo {
    std::vector<int> world;   // world rank of each rank (-1: none)
    std::vector<char> same;   // on this node
    Topology topology;        // every rank's node (after the split)
    Pool *pool = nullptr;     // null: no node memory for this rank
    bool split = false;       // same and pool are known (after the collective split)
};

int delete_info(MPI_Comm, int, void *value, void *) {
    delete static_cast<CommInfo *>(value);
    return MPI_SUCCESS;
}

CommInfo &info_of(MPI_Comm comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID)
        check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_info, &keyval, nullptr), "MPI_Comm_create_keyval");
    CommInfo *info = nullptr;
    int found = 0;
    check_mpi(MPI_Comm_get_attr(comm, keyval, &info, &found), "MPI_Comm_get_attr");
    if (found && info) return *info;
    auto made = std::make_unique<CommInfo>();
    int size = 1;
    MPI_Comm_size(comm, &size);
    MPI_Group group, world;
    check_mpi(MPI_Comm_group(comm, &group), "MPI_Comm_group");
    check_mpi(MPI_Comm_group(MPI_COMM_WORLD, &world), "MPI_Comm_group");
    std::vector<int> ranks(static_cast<std::size_t>(size));
    for (int r = 0; r < size; ++r) ranks[static_cast<std::size_t>(r)] = r;
    made->world.assign(static_cast<std::size_t>(size), -1);
    check_mpi(MPI_Group_translate_ranks(group, size, ranks.data(), world, made->world.data()),
              "MPI_Group_translate_ranks");
    for (int &w : made->world)
        if (w == MPI_UNDEFINED) w = -1;
    MPI_Group_free(&group), MPI_Group_free(&world);
    check_mpi(MPI_Comm_set_attr(comm, keyval, made.get()), "MPI_Comm_set_attr");
    return *made.release();
}

// The nodes, numbered in the order of their lowest ranks, from each rank's lowest.
Topology topology_of(const std::vector<int> &leaders) {
    Topology t;
    t.node.assign(leaders.size(), 0);
    std::vector<int> number(leaders.size(), -1);  // by leader rank
    for (std::size_t r = 0; r < leaders.size(); ++r) {
        const auto l = static_cast<std::size_t>(leaders[r]);
        if (number[l] < 0) {
            number[l] = t.nodes++;
            t.leader.push_back(leaders[r]);
            t.ranks.push_back(0);
        }
        t.node[r] = number[l];
        ++t.ranks[static_cast<std::size_t>(number[l])];
    }
    return t;
}

// The one-way time of a small message between the leaders of nodes 0 and 1, and
// between two ranks of one node where a node holds two: half the median round trip
// of a few ping-pongs, measured once per process and kept (every later communicator
// spans the same hosts and paths) — on the first that spans two nodes, found with a
// reduction so that every rank agrees whether to measure.
void measure_latencies(MPI_Comm comm, Topology &t) {
    static double known[2] = {-1, -1};  // across, within
    double have[2] = {known[0], known[1]}, agreed[2] = {0, 0};
    check_mpi(MPI_Allreduce(have, agreed, 2, MPI_DOUBLE, MPI_MIN, comm), "MPI_Allreduce");
    if (agreed[0] < 0) {
        // On a communicator of its own: nothing of the caller's can match its messages.
        MPI_Comm own;
        check_mpi(MPI_Comm_dup(comm, &own), "MPI_Comm_dup");
        comm = own;
        int me = 0;
        MPI_Comm_rank(comm, &me);
        auto ping = [&](int a, int b) {
            constexpr int kRounds = 9;
            double rounds[kRounds] = {};
            char byte = 0;
            if (me == a || me == b) {
                const int other = me == a ? b : a;
                for (double &r : rounds) {
                    const double start = MPI_Wtime();
                    if (me == a) {
                        check_mpi(MPI_Send(&byte, 1, MPI_CHAR, other, 0, comm), "MPI_Send");
                        check_mpi(MPI_Recv(&byte, 1, MPI_CHAR, other, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
                    } else {
                        check_mpi(MPI_Recv(&byte, 1, MPI_CHAR, other, 0, comm, MPI_STATUS_IGNORE), "MPI_Recv");
                        check_mpi(MPI_Send(&byte, 1, MPI_CHAR, other, 0, comm), "MPI_Send");
                    }
                    r = MPI_Wtime() - start;
                }
            }
            std::sort(rounds, rounds + kRounds);
            double us = me == a ? rounds[kRounds / 2] * 0.5e6 : 0;
            check_mpi(MPI_Bcast(&us, 1, MPI_DOUBLE, a, comm), "MPI_Bcast");
            return us;
        };
        agreed[0] = ping(t.leader[0], t.leader[1]);
        agreed[1] = 0;
        for (int n = 0; n < t.nodes; ++n)
            if (t.ranks[static_cast<std::size_t>(n)] > 1) {
                int second = -1;
                for (std::size_t r = 0; r < t.node.size() && second < 0; ++r)
                    if (t.node[r] == n && static_cast<int>(r) != t.leader[static_cast<std::size_t>(n)]) second = static_cast<int>(r);
                agreed[1] = ping(t.leader[static_cast<std::size_t>(n)], second);
                break;
            }
        known[0] = agreed[0], known[1] = agreed[1];
        MPI_Comm_free(&own);
    }
    t.across_us = agreed[0], t.within_us = agreed[1];
}

// Collective on comm the first time: which ranks share this node, and the pool of
// this node's ranks of comm.
CommInfo &split_info(MPI_Comm comm) {
    CommInfo &info = info_of(comm);
    if (info.split) return info;
    MPI_Comm node;
    check_mpi(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    int n = 1;
    MPI_Comm_size(node, &n);
    MPI_Group node_group, group;
    check_mpi(MPI_Comm_group(node, &node_group), "MPI_Comm_group");
    check_mpi(MPI_Comm_group(comm, &group), "MPI_Comm_group");
    std::vector<int> local(static_cast<std::size_t>(n)), in_comm(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) local[static_cast<std::size_t>(r)] = r;
    check_mpi(MPI_Group_translate_ranks(node_group, n, local.data(), group, in_comm.data()), "MPI_Group_translate_ranks");
    MPI_Group_free(&node_group), MPI_Group_free(&group);
    // Every rank's node, named by its lowest rank: one gather of each rank's.
    int lowest = *std::min_element(in_comm.begin(), in_comm.end());
    std::vector<int> leaders(info.world.size());
    check_mpi(MPI_Allgather(&lowest, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm), "MPI_Allgather");
    info.topology = topology_of(leaders);
    if (!info.topology.one_node()) measure_latencies(comm, info.topology);
    info.same.assign(info.world.size(), 0);
    std::vector<int> members;
    bool all_in_world = true;
    for (int r : in_comm) {
        info.same[static_cast<std::size_t>(r)] = 1;
        members.push_back(info.world[static_cast<std::size_t>(r)]);
        all_in_world = all_in_world && members.back() >= 0;
    }
    info.split = true;
    // Every member computes the same key and the same answer, so the pool's
    // communicator is made (or found) by all of them or by none.
    if (n == 1 || !all_in_world || !enabled()) {
        MPI_Comm_free(&node);
        return info;
    }
    std::vector<int> key = members;
    std::sort(key.begin(), key.end());
    Registry &reg = registry();
    auto found = reg.pools.find(key);
    if (found == reg.pools.end()) {
        auto pool = std::make_unique<Pool>();
        pool->comm = node;
        pool->members = members;
        free_at_finalize();
        found = reg.pools.emplace(key, std::move(pool)).first;
    } else {
        MPI_Comm_free(&node);
    }
    info.pool = found->second.get();
    return info;
}

// The first 64-byte boundary at or after p. Parts are mapped at the same offset
// within a page in every process, so every rank finds the same boundary of a part.
template <class T>
T *aligned(T *p) {
    constexpr auto a = static_cast<std::uintptr_t>(kAlign);
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    return reinterpret_cast<T *>(at + (a - at % a) % a);
}

Window *window_with(const void *p) {
    const auto *b = static_cast<const std::byte *>(p);
    for (auto &w : registry().windows)
        if (w->mine && b >= w->mine && b < w->mine + w->size) return w.get();
    return nullptr;
}

Window *window_numbered(std::int64_t id) {
    for (auto &w : registry().windows)
        if (w->id == id) return w.get();
    return nullptr;
}

// Collective on the pool: a new window in which this rank's part holds `bytes`
// (0 for ranks that asked for nothing).
Window *grow(Pool &pool, std::int64_t bytes) {
    Registry &reg = registry();
    auto w = std::make_unique<Window>();
    int me = 0, n = 1;
    MPI_Comm_rank(pool.comm, &me);
    MPI_Comm_size(pool.comm, &n);
    std::int64_t id = me == 0 ? (std::int64_t{pool.members[0]} << 32) | reg.led++ : 0;
    check_mpi(MPI_Bcast(&id, 1, MPI_INT64_T, 0, pool.comm), "MPI_Bcast");
    w->id = id;
    w->size = bytes;
    MPI_Info info;
    check_mpi(MPI_Info_create(&info), "MPI_Info_create");
    // Each part on its own pages: first touched, and so placed, by its owner.
    check_mpi(MPI_Info_set(info, "alloc_shared_noncontig", "true"), "MPI_Info_set");
    void *base = nullptr;
    // Room to start the part at a 64-byte boundary: MPI aligns parts less (Open MPI).
    const std::int64_t asked = bytes > 0 ? bytes + kAlign : 0;
    check_mpi(MPI_Win_allocate_shared(static_cast<MPI_Aint>(asked), 1, info, pool.comm, &base, &w->win),
              "MPI_Win_allocate_shared");
    MPI_Info_free(&info);
    w->mine = bytes > 0 ? aligned(static_cast<std::byte *>(base)) : nullptr;
    if (bytes > 0) w->free[0] = bytes;
    for (int r = 0; r < n; ++r) {
        MPI_Aint size = 0;
        int unit = 1;
        void *part = nullptr;
        check_mpi(MPI_Win_shared_query(w->win, r, &size, &unit, &part), "MPI_Win_shared_query");
        if (size > 0) w->parts[pool.members[static_cast<std::size_t>(r)]] = aligned(static_cast<const std::byte *>(part));
    }
    pool.windows.push_back(w.get());
    reg.windows.push_back(std::move(w));
    return reg.windows.back().get();
}

}  // namespace

bool enabled() {
    static const bool on = [] {
        // MPIR_CVAR_NOLOCAL=1 asks MPICH to treat every peer as on another host
        // (the network path); node memory would bypass that, so it is off too.
        const char *v = std::getenv("DATAMOTION_NODE_MEMORY"), *remote = std::getenv("MPIR_CVAR_NOLOCAL");
        return !(v && std::strcmp(v, "0") == 0) && !(remote && std::strcmp(remote, "1") == 0);
    }();
    return on;
}

const int *world_ranks(MPI_Comm comm) { return info_of(comm).world.data(); }

const char *same_node(MPI_Comm comm) { return split_info(comm).same.data(); }

const Topology &topology(MPI_Comm comm) { return split_info(comm).topology; }

bool available(MPI_Comm comm) { return split_info(comm).pool != nullptr; }

namespace {

std::int64_t rounded(std::int64_t bytes) { return std::max<std::int64_t>(kAlign, (bytes + kAlign - 1) / kAlign * kAlign); }

std::byte *take_from(Pool &pool, std::int64_t want) {
    for (Window *w : pool.windows)
        if (std::byte *p = w->mine ? w->take(want) : nullptr) return p;
    return nullptr;
}

}  // namespace

std::byte *take(MPI_Comm comm, std::int64_t bytes) {
    CommInfo &info = info_of(comm);
    if (!info.split || !info.pool || registry().finalized) return nullptr;
    return take_from(*info.pool, rounded(bytes));
}

std::byte *allocate(MPI_Comm comm, std::int64_t bytes) {
    CommInfo &info = split_info(comm);
    if (!info.pool) return nullptr;
    Pool &pool = *info.pool;
    const std::int64_t want = rounded(bytes);
    std::byte *p = take_from(pool, want);
    // A new window only when some member needs one: one small reduction otherwise.
    std::int64_t need = p ? 0 : want, any = 0;
    check_mpi(MPI_Allreduce(&need, &any, 1, MPI_INT64_T, MPI_MAX, pool.comm), "MPI_Allreduce");
    if (any == 0) return p;
    constexpr std::int64_t kPage = std::int64_t{2} << 20;
    const std::int64_t part = need ? std::max(kMinWindow, (need + kPage - 1) / kPage * kPage) : 0;
    Window *w = grow(pool, part);
    return p ? p : w->take(want);
}

bool release(void *p) noexcept {
    if (!p) return false;
    Window *w = window_with(p);
    if (!w) return false;
    if (!registry().finalized) w->give_back(static_cast<std::byte *>(p) - w->mine);
    return true;
}

std::byte *Scratch::get(MPI_Comm comm, std::int64_t bytes) {
    if (held_ && bytes <= bytes_) return held_;
    // Grown by half at least, so that slowly rising sizes are not taken afresh each time.
    const std::int64_t want = std::max(bytes, bytes_ + bytes_ / 2);
    clear();
    std::byte *p = take(comm, want);
    if (p) {
        held_ = p;
        bytes_ = want;
    } else if ((p = take(comm, bytes))) {
        held_ = p;
        bytes_ = bytes;
    }
    return held_;
}

void Scratch::reserve(MPI_Comm comm, std::int64_t bytes) {
    if (bytes <= bytes_) {
        release(allocate(comm, 0));  // takes part in the collective, needs nothing
        return;
    }
    clear();
    held_ = allocate(comm, bytes);
    bytes_ = held_ ? bytes : 0;
}

void Scratch::clear() noexcept {
    release(held_);
    held_ = nullptr;
    bytes_ = 0;
}

Location locate(const void *p) {
    Window *w = window_with(p);
    if (!w) return {};
    return {w->id, static_cast<const std::byte *>(p) - w->mine};
}

const std::byte *address(std::int64_t window, int world_rank, std::int64_t offset) {
    Window *w = window_numbered(window);
    if (!w || registry().finalized) return nullptr;
    auto part = w->parts.find(world_rank);
    return part == w->parts.end() ? nullptr : part->second + offset;
}

bool maps(std::int64_t window, int world_rank) {
    Window *w = window_numbered(window);
    if (!w) return false;
    // Every member maps the whole window; parts of 0 bytes are not listed, so ask the pool.
    for (auto &[key, pool] : registry().pools)
        if (std::find(pool->windows.begin(), pool->windows.end(), w) != pool->windows.end())
            return std::find(pool->members.begin(), pool->members.end(), world_rank) != pool->members.end();
    return false;
}

}  // namespace dm::node
