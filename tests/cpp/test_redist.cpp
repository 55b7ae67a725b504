// Redistribution through the C API: random layouts, every method, round trips
// checked element for element against the global array.
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 &rng() {
    static std::mt19937 r(1996);  // the same on every rank: every rank draws the same cases
    return r;
}

int draw(int lo, int hi) { return lo + static_cast<int>(rng()() % static_cast<unsigned>(hi - lo + 1)); }

dm_dist random_dist() {
    switch (draw(0, 3)) {
        case 0: return dm_dist_block();
        case 1: return dm_dist_cyclic();
        default: return dm_dist_block_cyclic(draw(1, 6), 0);
    }
}

// A grid of `ndims` axes over the world with random extents (a factorisation of its size).
dm_grid random_grid(int ndims) {
    std::vector<int> dims(static_cast<size_t>(ndims), 1);
    int left = dmtest::world_size();
    for (int f = 2; left > 1;) {
        if (left % f) {
            ++f;
            continue;
        }
        dims[static_cast<size_t>(draw(0, ndims - 1))] *= f;
        left /= f;
    }
    dm_grid grid = nullptr;
    dm_grid_create(MPI_COMM_WORLD, ndims, dims.data(), nullptr, draw(0, 1) ? DM_ORDER_NEWS : DM_ORDER_SEND, &grid);
    return grid;
}

const dm_redist_method kMethods[] = {DM_REDIST_AUTO, DM_REDIST_ALLTOALLW, DM_REDIST_NONBLOCKING, DM_REDIST_SENDRECV};

}  // namespace

DM_TEST(random_redistributions_move_every_element) {
    for (int trial = 0; trial < 40; ++trial) {
        const int ndims = draw(1, 3);
        std::vector<std::int64_t> shape;
        std::int64_t total = 1;
        std::vector<dm_dist> from, to;
        std::vector<int> ghost_from, ghost_to;
        for (int a = 0; a < ndims; ++a) {
            shape.push_back(draw(0, ndims == 1 ? 40 : 9));
            total *= shape.back();
            from.push_back(random_dist());
            to.push_back(random_dist());
            ghost_from.push_back(draw(0, 1));
            ghost_to.push_back(draw(0, 1));
        }
        dm_grid g1 = random_grid(ndims), g2 = random_grid(ndims);
        dm_array src = nullptr, dst = nullptr;
        CHECK_EQ(dm_array_create(g1, DM_INT64, ndims, shape.data(), from.data(), ghost_from.data(), &src), DM_OK);
        CHECK_EQ(dm_array_create(g2, DM_INT64, ndims, shape.data(), to.data(), ghost_to.data(), &dst), DM_OK);
        std::vector<std::int64_t> x(static_cast<size_t>(total));
        for (std::int64_t i = 0; i < total; ++i) x[i] = i * 7 + 3;
        CHECK_EQ(dm_array_scatter(src, x.data(), DM_ALL_RANKS), DM_OK);
        const dm_redist_method method = kMethods[draw(0, 3)];
        dm_redist plan = nullptr;
        CHECK_EQ(dm_redist_setup(src, dst, method, &plan), DM_OK);
        for (int repeat = 0; repeat < 2; ++repeat) CHECK_EQ(dm_redist_execute(plan, src, dst), DM_OK);
        std::vector<std::int64_t> got(x.size(), -1);
        CHECK_EQ(dm_array_gather(dst, got.data(), DM_ALL_RANKS), DM_OK);
        if (got != x) dmtest::report(__FILE__, __LINE__, "trial " + std::to_string(trial));
        dm_redist_free(&plan);
        dm_array_free(&src);
        dm_array_free(&dst);
        dm_grid_free(&g1);
        dm_grid_free(&g2);
    }
}

DM_TEST(integer_factor_changes_use_the_schedules) {
    dm_grid grid = nullptr;
    dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid);
    const int P = dmtest::world_size();
    for (int K : {2, 3, 5}) {
        for (std::int64_t n : {std::int64_t(0), std::int64_t(7), std::int64_t(4 * P * K * 3), std::int64_t(4 * P * K * 3 + 5)}) {
            for (dm_redist_method method : {DM_REDIST_SENDRECV, DM_REDIST_SIMPLE, DM_REDIST_RANDOM}) {
                for (int expand = 0; expand < 2; ++expand) {
                    const std::int64_t r = 4, from_block = expand ? r : K * r, to_block = expand ? K * r : r;
                    dm_dist d1 = dm_dist_block_cyclic(from_block, 0), d2 = dm_dist_block_cyclic(to_block, 0);
                    dm_array src = nullptr, dst = nullptr;
                    dm_array_create(grid, DM_FLOAT64, 1, &n, &d1, nullptr, &src);
                    dm_array_create(grid, DM_FLOAT64, 1, &n, &d2, nullptr, &dst);
                    std::vector<double> x(static_cast<size_t>(n));
                    for (std::int64_t i = 0; i < n; ++i) x[i] = 0.5 * i;
                    dm_array_scatter(src, x.data(), DM_ALL_RANKS);
                    dm_redist plan = nullptr;
                    CHECK_EQ(dm_redist_setup(src, dst, method, &plan), DM_OK);
                    dm_redist_method used = DM_REDIST_AUTO;
                    dm_redist_method_used(plan, &used);
                    CHECK_EQ(used, method);
                    std::int64_t phases = -1;
                    dm_redist_volume(plan, nullptr, nullptr, nullptr, &phases);
                    CHECK(phases <= K);  // one phase per block position of a superblock
                    CHECK_EQ(dm_redist_execute(plan, src, dst), DM_OK);
                    std::vector<double> got(x.size(), -1.0);
                    dm_array_gather(dst, got.data(), DM_ALL_RANKS);
                    if (got != x)
                        dmtest::report(__FILE__, __LINE__, "K " + std::to_string(K) + " n " + std::to_string(n));
                    dm_redist_free(&plan);
                    dm_array_free(&src);
                    dm_array_free(&dst);
                }
            }
        }
    }
    dm_grid_free(&grid);
}

DM_TEST(bad_redistributions_fail_on_every_rank) {
    dm_grid grid = nullptr;
    dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid);
    std::int64_t n = 10, m = 11;
    dm_dist block = dm_dist_block(), cyclic = dm_dist_cyclic();
    dm_array a = nullptr, b = nullptr, c = nullptr, d = nullptr;
    dm_array_create(grid, DM_FLOAT64, 1, &n, &block, nullptr, &a);
    dm_array_create(grid, DM_FLOAT64, 1, &m, &cyclic, nullptr, &b);
    dm_array_create(grid, DM_INT32, 1, &n, &cyclic, nullptr, &c);
    dm_array_create(grid, DM_FLOAT64, 1, &n, &cyclic, nullptr, &d);
    dm_redist plan = nullptr;
    CHECK_EQ(dm_redist_setup(a, b, DM_REDIST_AUTO, &plan), DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("shapes differ") != std::string::npos);
    CHECK_EQ(dm_redist_setup(a, c, DM_REDIST_AUTO, &plan), DM_ERR_TYPE);
    CHECK_EQ(dm_redist_setup(a, d, static_cast<dm_redist_method>(17), &plan), DM_ERR_ARG);
    dm_dist two = dm_dist_block_cyclic(2, 0), three = dm_dist_block_cyclic(3, 0);
    dm_array e = nullptr, f = nullptr;
    dm_array_create(grid, DM_FLOAT64, 1, &n, &two, nullptr, &e);
    dm_array_create(grid, DM_FLOAT64, 1, &n, &three, nullptr, &f);
    CHECK_EQ(dm_redist_setup(e, f, DM_REDIST_SIMPLE, &plan), DM_ERR_ARG);  // 2 -> 3 is no integer factor
    CHECK(std::string(dm_last_error_message()).find("integer factor") != std::string::npos);
    const dm_redist_method mine = dmtest::world_rank() == 0 ? DM_REDIST_ALLTOALLW : DM_REDIST_SENDRECV;
    if (dmtest::world_size() > 1) CHECK_EQ(dm_redist_setup(a, d, mine, &plan), DM_ERR_MISMATCH);
    CHECK(plan == nullptr);
    CHECK_EQ(dm_redist_setup(a, d, DM_REDIST_NONBLOCKING, &plan), DM_OK);
    CHECK_EQ(dm_redist_execute(plan, d, a), DM_ERR_ARG);  // layouts swapped
    CHECK_EQ(dm_redist_execute(plan, a, a), DM_ERR_ARG);
    CHECK_EQ(dm_redist_free(&plan), DM_OK);
    CHECK_EQ(dm_redist_execute(plan, a, d), DM_ERR_STATE);
    for (dm_array *x : {&a, &b, &c, &d, &e, &f}) dm_array_free(x);
    dm_grid_free(&grid);
}
