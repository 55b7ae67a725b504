// The vector layer's C API (include/datamotion/vector.h) on MPI_COMM_WORLD,
// MPI_COMM_SELF and a split communicator: every operation against a serial oracle
// computed from global indices, memory shared with a 1-d DistArray, vectors freed at
// different times on different ranks, and bad input failing alike on every rank.
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace {

int rank_of(MPI_Comm comm) {
    int r = 0;
    MPI_Comm_rank(comm, &r);
    return r;
}

// A vector of n int32 elements x[g] = f(g), made through the API.
template <class F>
dm_vector int_vector(MPI_Comm comm, int64_t n, F f) {
    dm_vector v = nullptr;
    CHECK_EQ(dm_vector_create(comm, DM_INT32, n, &v), DM_OK);
    void *data = nullptr;
    int64_t first = 0, count = 0;
    CHECK_EQ(dm_vector_local(v, &data, &first, &count), DM_OK);
    for (int64_t k = 0; k < count; ++k) static_cast<int *>(data)[k] = f(first + k);
    return v;
}

// Every element of v equals expect(g).
template <class T, class F>
bool holds(dm_vector v, F expect) {
    void *data = nullptr;
    int64_t first = 0, count = 0;
    if (dm_vector_local(v, &data, &first, &count) != DM_OK) return false;
    for (int64_t k = 0; k < count; ++k)
        if (static_cast<T *>(data)[k] != static_cast<T>(expect(first + k))) return false;
    return true;
}

void operations_match_the_oracle(MPI_Comm comm) {
    for (int64_t n : {0, 1, 7, 100, 1001}) {
        dm_vector a = int_vector(comm, n, [](int64_t g) { return int(g * 7 % 13) - 5; });
        dm_vector b = int_vector(comm, n, [](int64_t g) { return int(g % 5) + 1; });
        dm_vector d = nullptr, flags = nullptr;
        CHECK_EQ(dm_vector_create(comm, DM_INT32, n, &d), DM_OK);
        CHECK_EQ(dm_vector_create(comm, DM_BOOL, n, &flags), DM_OK);
        auto av = [](int64_t g) { return int(g * 7 % 13) - 5; };
        auto bv = [](int64_t g) { return int(g % 5) + 1; };

        CHECK_EQ(dm_vector_apply(DM_VECTOR_ADD, d, a, b), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return av(g) + bv(g); })));
        CHECK_EQ(dm_vector_map(DM_VECTOR_NEG, d, a), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return -av(g); })));
        CHECK_EQ(dm_vector_apply(DM_VECTOR_LT, flags, a, b), DM_OK);
        CHECK((holds<char>(flags, [&](int64_t g) { return av(g) < bv(g); })));

        // Exclusive scan and reduction.
        std::vector<int> prefix(static_cast<std::size_t>(n) + 1, 0);
        for (int64_t g = 0; g < n; ++g) prefix[g + 1] = prefix[g] + av(g);
        CHECK_EQ(dm_vector_scan(DM_VECTOR_ADD, d, a, nullptr), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return prefix[g]; })));
        int sum = -1;
        CHECK_EQ(dm_vector_reduce(DM_VECTOR_ADD, a, &sum), DM_OK);
        CHECK_EQ(sum, prefix[n]);

        // Permute by reversal, and back.
        dm_vector rev = int_vector(comm, n, [n](int64_t g) { return int(n - 1 - g); });
        CHECK_EQ(dm_vector_permute(d, a, rev, nullptr), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return av(n - 1 - g); })));
        dm_vector back = nullptr;
        CHECK_EQ(dm_vector_create(comm, DM_INT32, n, &back), DM_OK);
        CHECK_EQ(dm_vector_bpermute(back, d, rev, nullptr, nullptr), DM_OK);
        CHECK((holds<int>(back, [&](int64_t g) { return av(g); })));

        // Pack the elements below b, and rank a.
        int64_t kept = -1;
        CHECK_EQ(dm_vector_count(flags, &kept), DM_OK);
        std::vector<int> expect_pack;
        for (int64_t g = 0; g < n; ++g)
            if (av(g) < bv(g)) expect_pack.push_back(av(g));
        CHECK_EQ(kept, static_cast<int64_t>(expect_pack.size()));
        dm_vector packed = nullptr;
        CHECK_EQ(dm_vector_create(comm, DM_INT32, kept, &packed), DM_OK);
        CHECK_EQ(dm_vector_pack(packed, a, flags), DM_OK);
        CHECK((holds<int>(packed, [&](int64_t g) { return expect_pack[g]; })));
        std::vector<int64_t> order(static_cast<std::size_t>(n));
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return av(x) < av(y); });
        std::vector<int> position(static_cast<std::size_t>(n));
        for (int64_t t = 0; t < n; ++t) position[order[t]] = int(t);
        CHECK_EQ(dm_vector_rank(d, a, 0, nullptr), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return position[g]; })));

        // Segments of lengths 0, 1, 2, ... up to n elements: segmented scan and reduce.
        std::vector<int> lengths;
        for (int64_t used = 0, len = 0; used < n; ++len) {
            const int64_t take = std::min(len, n - used);
            lengths.push_back(int(take));
            used += take;
        }
        const int64_t m = static_cast<int64_t>(lengths.size());
        dm_vector lv = int_vector(comm, m, [&](int64_t j) { return lengths[j]; });
        dm_segments seg = nullptr;
        CHECK_EQ(dm_segments_create(lv, n, &seg), DM_OK);
        std::vector<int> seg_prefix(static_cast<std::size_t>(n)), seg_sum(static_cast<std::size_t>(m), 0);
        for (int64_t j = 0, g = 0; j < m; ++j)
            for (int k = 0, acc = 0; k < lengths[j]; ++k, ++g) {
                seg_prefix[g] = acc;
                acc += av(g);
                seg_sum[j] = acc;
            }
        CHECK_EQ(dm_vector_scan(DM_VECTOR_ADD, d, a, seg), DM_OK);
        CHECK((holds<int>(d, [&](int64_t g) { return seg_prefix[g]; })));
        dm_vector sums = nullptr;
        CHECK_EQ(dm_vector_create(comm, DM_INT32, m, &sums), DM_OK);
        CHECK_EQ(dm_vector_reduce_segments(DM_VECTOR_ADD, sums, a, seg), DM_OK);
        CHECK((holds<int>(sums, [&](int64_t j) { return seg_sum[j]; })));

        if (n > 0) {
            const int value = 42;
            CHECK_EQ(dm_vector_replace(a, n - 1, &value), DM_OK);
            int got = 0;
            CHECK_EQ(dm_vector_extract(a, n - 1, &got), DM_OK);
            CHECK_EQ(got, 42);
        }
        for (dm_vector *v : {&a, &b, &d, &flags, &rev, &back, &packed, &lv, &sums}) CHECK_EQ(dm_vector_free(v), DM_OK);
        CHECK_EQ(dm_segments_free(&seg), DM_OK);
        CHECK(a == nullptr && seg == nullptr);
    }
}

}  // namespace

DM_TEST(vector_operations_on_world_self_and_split) {
    operations_match_the_oracle(MPI_COMM_WORLD);
    operations_match_the_oracle(MPI_COMM_SELF);
    MPI_Comm half = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, dmtest::world_rank() % 2, 0, &half);
    operations_match_the_oracle(half);
    MPI_Comm_free(&half);
}

DM_TEST(vector_shares_memory_with_a_block_distarray) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_SEND, &grid), DM_OK);
    const int64_t n = 23;
    dm_array array = nullptr;
    CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 1, &n, nullptr, nullptr, &array), DM_OK);
    void *data = nullptr;
    int64_t extent = 0, stride = 0;
    CHECK_EQ(dm_array_local(array, &data, &extent, &stride), DM_OK);
    dm_vector v = nullptr;
    CHECK_EQ(dm_vector_wrap(MPI_COMM_WORLD, DM_FLOAT64, n, data, &v), DM_OK);
    void *vdata = nullptr;
    int64_t first = 0, count = 0;
    CHECK_EQ(dm_vector_local(v, &vdata, &first, &count), DM_OK);
    CHECK(vdata == data);
    CHECK_EQ(count, extent);
    const double seven = 7.0;
    CHECK_EQ(dm_vector_fill(v, &seven), DM_OK);
    for (int64_t k = 0; k < extent; ++k) CHECK(static_cast<double *>(data)[k] == 7.0);
    CHECK_EQ(dm_vector_free(&v), DM_OK);
    CHECK_EQ(dm_array_free(&array), DM_OK);
    CHECK_EQ(dm_grid_free(&grid), DM_OK);
}

DM_TEST(vectors_freed_at_different_times_do_not_matter) {
    dm_vector early = int_vector(MPI_COMM_WORLD, 10, [](int64_t g) { return int(g); });
    if (dmtest::world_rank() == 0) CHECK_EQ(dm_vector_free(&early), DM_OK);
    dm_vector a = int_vector(MPI_COMM_WORLD, 50, [](int64_t g) { return int(g); });
    dm_vector rev = int_vector(MPI_COMM_WORLD, 50, [](int64_t g) { return int(49 - g); });
    dm_vector d = nullptr;
    CHECK_EQ(dm_vector_create(MPI_COMM_WORLD, DM_INT32, 50, &d), DM_OK);
    CHECK_EQ(dm_vector_permute(d, a, rev, nullptr), DM_OK);
    CHECK((holds<int>(d, [](int64_t g) { return int(49 - g); })));
    for (dm_vector *v : {&early, &a, &rev, &d}) CHECK_EQ(dm_vector_free(v), DM_OK);
}

DM_TEST(bad_vector_input_fails_alike_everywhere) {
    const int p = dmtest::world_size();
    auto everywhere = [](int status, int expect) {
        int lo = status, hi = status;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        return lo == expect && hi == expect;
    };
    dm_vector a = int_vector(MPI_COMM_WORLD, 9, [](int64_t g) { return int(g); });
    dm_vector d = nullptr, shorter = nullptr, other = nullptr;
    CHECK_EQ(dm_vector_create(MPI_COMM_WORLD, DM_INT32, 9, &d), DM_OK);
    CHECK_EQ(dm_vector_create(MPI_COMM_WORLD, DM_INT32, 8, &shorter), DM_OK);
    // An index out of range (on the last rank's part only).
    dm_vector bad = int_vector(MPI_COMM_WORLD, 9, [](int64_t g) { return g == 8 ? 9 : int(g); });
    CHECK(everywhere(dm_vector_permute(d, a, bad, nullptr), DM_ERR_ARG));
    // Vectors of different lengths; an element type vectors do not hold.
    CHECK(everywhere(dm_vector_apply(DM_VECTOR_ADD, d, a, shorter), DM_ERR_ARG));
    dm_vector complex_vector = nullptr;
    CHECK(everywhere(dm_vector_create(MPI_COMM_WORLD, DM_COMPLEX64, 4, &complex_vector), DM_ERR_TYPE));
    CHECK(complex_vector == nullptr);
    // Segment lengths that do not sum to n.
    dm_vector lengths = int_vector(MPI_COMM_WORLD, 3, [](int64_t) { return 2; });
    dm_segments seg = nullptr;
    CHECK(everywhere(dm_segments_create(lengths, 9, &seg), DM_ERR_ARG));
    CHECK(seg == nullptr);
    // An operator the element type has no scan or reduction for.
    dm_vector real = nullptr, real_out = nullptr;
    CHECK_EQ(dm_vector_create(MPI_COMM_WORLD, DM_FLOAT64, 9, &real), DM_OK);
    CHECK_EQ(dm_vector_create(MPI_COMM_WORLD, DM_FLOAT64, 9, &real_out), DM_OK);
    CHECK(everywhere(dm_vector_scan(DM_VECTOR_XOR, real_out, real, nullptr), DM_ERR_TYPE));
    double top = 0.0;
    CHECK(everywhere(dm_vector_reduce(DM_VECTOR_IOR, real, &top), DM_ERR_TYPE));
    CHECK(everywhere(dm_vector_scan(DM_VECTOR_MAX, real_out, real, nullptr), DM_OK));
    CHECK_EQ(dm_vector_free(&real), DM_OK);
    CHECK_EQ(dm_vector_free(&real_out), DM_OK);
    // Vectors of different communicators.
    CHECK_EQ(dm_vector_create(MPI_COMM_SELF, DM_INT32, 9, &other), DM_OK);
    CHECK(everywhere(dm_vector_apply(DM_VECTOR_ADD, d, a, other), DM_ERR_ARG));
    (void)p;
    for (dm_vector *v : {&a, &d, &shorter, &other, &bad, &lengths}) CHECK_EQ(dm_vector_free(v), DM_OK);
}
