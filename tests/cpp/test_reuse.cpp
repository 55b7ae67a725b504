// Plans are built once and run many times: a repeated execution with the same
// arrays allocates nothing and creates no MPI object. Counted here by replacing
// operator new and by intercepting the MPI calls that create requests, datatypes
// and communicators (the profiling interface: these definitions take the place of
// the library's, and forward to PMPI_*).
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <cstdint>
#include <cstdlib>
#include <new>
#include <vector>

namespace {
long news = 0, mpi_objects = 0;
}  // namespace

// AddressSanitizer brings its own operator new; there only MPI objects are counted.
// GCC says it is on by __SANITIZE_ADDRESS__, clang by __has_feature.
#if defined(__SANITIZE_ADDRESS__)
#define DM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DM_TEST_ASAN 1
#endif
#endif

#if !defined(DM_TEST_ASAN)
void *operator new(std::size_t n) {
    ++news;
    if (void *p = std::malloc(n ? n : 1)) return p;
    throw std::bad_alloc();
}
void *operator new[](std::size_t n) { return operator new(n); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
#endif

extern "C" {
int MPI_Send_init(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *r) {
    ++mpi_objects;
    return PMPI_Send_init(buf, count, type, dest, tag, comm, r);
}
int MPI_Recv_init(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *r) {
    ++mpi_objects;
    return PMPI_Recv_init(buf, count, type, source, tag, comm, r);
}
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request *r) {
    ++mpi_objects;
    return PMPI_Isend(buf, count, type, dest, tag, comm, r);
}
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request *r) {
    ++mpi_objects;
    return PMPI_Irecv(buf, count, type, source, tag, comm, r);
}
int MPI_Type_commit(MPI_Datatype *type) {
    ++mpi_objects;
    return PMPI_Type_commit(type);
}
int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *out) {
    ++mpi_objects;
    return PMPI_Comm_dup(comm, out);
}
}

namespace {

struct Counts {
    long news, mpi_objects;
};
Counts now() { return {news, mpi_objects}; }

// Runs `step` once to warm up (first binding of requests to the arrays), then
// `repeats` times, and checks that the repeats allocated and created nothing.
template <class Step>
void expect_reuse(const char *what, Step &&step, int repeats = 5) {
    step();
    const Counts before = now();
    for (int i = 0; i < repeats; ++i) step();
    const Counts after = now();
    if (after.news != before.news || after.mpi_objects != before.mpi_objects)
        dmtest::report(__FILE__, __LINE__,
                       std::string(what) + ": " + std::to_string(after.news - before.news) + " allocations and " +
                           std::to_string(after.mpi_objects - before.mpi_objects) + " MPI objects in " +
                           std::to_string(repeats) + " repeats");
}

struct Arrays {
    dm_grid grid = nullptr;
    dm_array a = nullptr, b = nullptr, c = nullptr;
    explicit Arrays(int ghost) {
        const std::int64_t shape[3] = {12, 10, 9};
        const int ghosts[3] = {ghost, ghost, ghost};
        const int periods[3] = {1, 1, 1};
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 3, nullptr, periods, DM_ORDER_NEWS, &grid), DM_OK);
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 3, shape, nullptr, ghosts, &a), DM_OK);
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 3, shape, nullptr, ghosts, &b), DM_OK);
        const dm_dist cyclic[3] = {dm_dist_block_cyclic(2, 0), dm_dist_cyclic(), dm_dist_block()};
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 3, shape, cyclic, nullptr, &c), DM_OK);
    }
    ~Arrays() {
        dm_array_free(&a), dm_array_free(&b), dm_array_free(&c);
        dm_grid_free(&grid);
    }
};

}  // namespace

DM_TEST(halo_exchanges_reuse_everything) {
    Arrays s(1);
    for (int corners = 0; corners <= 1; ++corners) {
        dm_halo halo = nullptr;
        const Counts start = now();
        CHECK_EQ(dm_halo_setup(s.a, corners, &halo), DM_OK);
        CHECK_EQ(dm_halo_exchange(halo, s.a), DM_OK);
        // The counters see what setup and the first exchange make (or the test proves nothing).
        CHECK(dmtest::world_size() == 1 || now().mpi_objects > start.mpi_objects);
#if !defined(DM_TEST_ASAN)
        CHECK(now().news > start.news);
#endif
        expect_reuse("dm_halo_exchange", [&] { CHECK_EQ(dm_halo_exchange(halo, s.a), DM_OK); });
        expect_reuse("dm_halo_begin/end", [&] {
            CHECK_EQ(dm_halo_begin(halo, s.a), DM_OK);
            CHECK_EQ(dm_halo_end(halo), DM_OK);
        });
        dm_halo_free(&halo);
    }
}

DM_TEST(pshift_executions_reuse_everything) {
    Arrays s(0);
    const dm_shift_spec specs[2] = {{DM_CSHIFT, 0, 1, DM_BOUNDARY_ZERO}, {DM_EOSHIFT, 2, -3, DM_BOUNDARY_ONE}};
    dm_pshift plan = nullptr;
    CHECK_EQ(dm_pshift_setup(s.a, 2, specs, &plan), DM_OK);
    const dm_array srcs[2] = {s.a, s.a};
    // b = cshift(a), a = eoshift(a): one destination is also the source, staged in a
    // buffer the plan keeps.
    const dm_array dsts[2] = {s.b, s.a};
    expect_reuse("dm_pshift_execute", [&] { CHECK_EQ(dm_pshift_execute(plan, dsts, srcs, nullptr), DM_OK); });
    expect_reuse("dm_pshift_begin/end", [&] {
        CHECK_EQ(dm_pshift_begin(plan, dsts, srcs, nullptr), DM_OK);
        CHECK_EQ(dm_pshift_end(plan), DM_OK);
    });
    dm_pshift_free(&plan);
}

DM_TEST(redistributions_reuse_everything) {
    Arrays s(0);
    for (dm_redist_method method : {DM_REDIST_AUTO, DM_REDIST_NONBLOCKING, DM_REDIST_SENDRECV}) {
        dm_redist plan = nullptr;
        CHECK_EQ(dm_redist_setup(s.a, s.c, method, &plan), DM_OK);
        expect_reuse("dm_redist_execute", [&] { CHECK_EQ(dm_redist_execute(plan, s.a, s.c), DM_OK); });
        expect_reuse("dm_redist_begin/end", [&] {
            CHECK_EQ(dm_redist_begin(plan, s.a, s.c), DM_OK);
            CHECK_EQ(dm_redist_end(plan), DM_OK);
        });
        dm_redist_free(&plan);
    }
}
