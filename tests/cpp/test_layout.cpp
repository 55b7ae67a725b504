// Layout: numroc, index maps, rank orders, process grids.
#include "c_enums.h"
#include "harness.hpp"

#include "layout/distribution.hpp"
#include "layout/grid.hpp"

#include <datamotion/datamotion.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <random>
#include <string>

using dm::layout::AxisMap;

DM_TEST(index_maps_are_bijections_and_match_numroc) {
    std::mt19937 rng(1234);
    for (int trial = 0; trial < 400; ++trial) {
        int nprocs = 1 + static_cast<int>(rng() % 9);
        std::int64_t n = rng() % 60;
        dm_dist dist;
        switch (rng() % 3) {
            case 0: dist = dm_dist_block(); break;
            case 1: dist = dm_dist_cyclic(); break;
            default: dist = dm_dist_block_cyclic(1 + rng() % 7, static_cast<int>(rng() % nprocs));
        }
        AxisMap map(dist, n, nprocs);
        std::vector<std::int64_t> count(nprocs, 0);
        for (std::int64_t g = 0; g < n; ++g) {
            int p = map.owner(g);
            std::int64_t l = map.local_index(g);
            CHECK(p >= 0 && p < nprocs);
            CHECK(l >= 0 && l < map.extent(p));
            CHECK_EQ(map.global_index(p, l), g);
            ++count[p];
        }
        for (int p = 0; p < nprocs; ++p) {
            CHECK_EQ(count[p], map.extent(p));
            CHECK_EQ(dm_numroc(n, map.block(), p, map.src(), nprocs), count[p]);
        }
    }
}

DM_TEST(block_is_cm_canonical) {
    AxisMap map(dm_dist_block(), 10, 4);  // ceil(10/4) = 3: 3 3 3 1
    CHECK_EQ(map.extent(0), std::int64_t{3});
    CHECK_EQ(map.extent(3), std::int64_t{1});
    AxisMap sparse(dm_dist_block(), 5, 4);  // 2 2 1 0: the last coordinate owns nothing
    CHECK_EQ(sparse.extent(2), std::int64_t{1});
    CHECK_EQ(sparse.extent(3), std::int64_t{0});
}

DM_TEST(c_index_functions_reject_bad_input) {
    int coord = 0;
    std::int64_t local = 0;
    CHECK_EQ(dm_dist_to_local(dm_dist_block_cyclic(0, 0), 10, 2, 3, &coord, &local), DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("block size must be positive") != std::string::npos);
    CHECK_EQ(dm_dist_to_local(dm_dist_block_cyclic(2, 5), 10, 2, 3, &coord, &local), DM_ERR_ARG);
    CHECK_EQ(dm_dist_to_local(dm_dist_cyclic(), 10, 2, 10, &coord, &local), DM_ERR_ARG);
    CHECK_EQ(dm_dist_to_local(dm_dist_cyclic(), 10, 2, 7, &coord, &local), DM_OK);
    CHECK_EQ(coord, 1);
    CHECK_EQ(local, std::int64_t{3});
    int desc[9];
    CHECK_EQ(dm_descinit(desc, 100, 50, 8, 8, 0, 0, -1, 2, 2, 0, 52), DM_OK);
    CHECK_EQ(desc[8], 52);
    CHECK_EQ(dm_descinit(desc, 100, 50, 8, 8, 0, 0, -1, 2, 2, 0, 10), DM_ERR_ARG);
}

// An axis of any length up to INT64_MAX: positive block sizes, extents that add up
// to the length, and index maps that invert each other at both ends.
DM_TEST(axes_of_int64_max_elements_map_every_index) {
    const std::int64_t n = INT64_MAX;
    for (int nprocs : {1, 2, 3, 7, 8, 1000003, INT32_MAX}) {
        for (const dm_dist &dist : {dm_dist_block(), dm_dist_cyclic(), dm_dist_block_cyclic(1, nprocs - 1),
                                    dm_dist_block_cyclic(INT64_MAX / 3, nprocs / 2), dm_dist_block_cyclic(n, 0)}) {
            AxisMap map(dist, n, nprocs);
            CHECK(map.block() >= 1);
            for (int p : {0, nprocs / 2, nprocs - 1}) CHECK(map.extent(p) >= 0 && map.extent(p) <= n);
            if (nprocs <= 8) {
                std::int64_t total = 0;  // partial sums of extents never pass n
                for (int p = 0; p < nprocs; ++p) total += map.extent(p);
                CHECK_EQ(total, n);
            }
            for (std::int64_t g : {std::int64_t{0}, std::int64_t{1}, n / 2, n - 2, n - 1}) {
                const int p = map.owner(g);
                CHECK(p >= 0 && p < nprocs);
                const std::int64_t l = map.local_index(g);
                CHECK(l >= 0 && l < map.extent(p));
                if (map.global_index(p, l) != g)
                    dmtest::report(__FILE__, __LINE__,
                                   "index " + std::to_string(g) + " on " + std::to_string(nprocs) + " coordinates, kind " +
                                       std::to_string(dist.kind) + ", block " + std::to_string(dist.block) + ", src " +
                                       std::to_string(dist.src) + ": global_index(owner, local) = " +
                                       std::to_string(map.global_index(p, l)));
            }
        }
    }
    int coord = -1;
    std::int64_t local = -1, extent = -1, g = -1;
    CHECK_EQ(dm_dist_to_local(dm_dist_block(), n, 3, n - 1, &coord, &local), DM_OK);
    CHECK_EQ(coord, 2);
    CHECK_EQ(dm_dist_local_extent(dm_dist_block(), n, 3, 2, &extent), DM_OK);
    CHECK_EQ(local, extent - 1);
    CHECK_EQ(dm_dist_to_global(dm_dist_block(), n, 3, 2, local, &g), DM_OK);
    CHECK_EQ(g, n - 1);
    CHECK_EQ(dm_numroc(n, 1, 0, 0, 1), n);
}

DM_TEST(unknown_distribution_kinds_are_reported) {
    int coord = 0;
    std::int64_t local = 0;
    for (int kind : {DM_DIST_SIZES + 1, 8, -1, 1 << 30}) {  // out of the enum's range, as a C caller may pass
        CHECK_EQ(dmtest_dist_to_local(kind, 10, 2, 3, &coord, &local), DM_ERR_ARG);
        CHECK(std::string(dm_last_error_message()).find("unknown distribution kind " + std::to_string(kind)) !=
              std::string::npos);
    }
    CHECK_EQ(dmtest_dist_to_local(DM_DIST_CYCLIC, 10, 2, 3, &coord, &local), DM_OK);
}

DM_TEST(rank_orders_are_bijections) {
    const std::vector<std::vector<int>> shapes = {{1}, {7}, {3, 5}, {4, 4}, {2, 3, 4}, {6, 1, 2}, {2, 2, 2, 2, 2}};
    for (const auto &dims : shapes)
        for (auto order : {DM_ORDER_SEND, DM_ORDER_NEWS, DM_ORDER_SHUFFLE}) {
            auto ranks = dm::layout::rank_assignment(dims, order);
            std::sort(ranks.begin(), ranks.end());
            for (size_t i = 0; i < ranks.size(); ++i) CHECK_EQ(ranks[i], static_cast<int>(i));
        }
}

DM_TEST(news_neighbours_differ_in_one_bit) {
    const std::vector<std::vector<int>> shapes = {{8}, {4, 4}, {2, 8}, {2, 4, 8}};
    for (const auto &dims : shapes) {
        auto ranks = dm::layout::rank_assignment(dims, DM_ORDER_NEWS);
        const int n = static_cast<int>(dims.size());
        int cells = static_cast<int>(ranks.size());
        for (int cell = 0; cell < cells; ++cell) {
            std::vector<int> c(n);
            for (int a = n - 1, rest = cell; a >= 0; --a) { c[a] = rest % dims[a]; rest /= dims[a]; }
            for (int a = 0; a < n; ++a) {
                auto d = c;
                d[a] = (d[a] + 1) % dims[a];  // includes the periodic wrap
                int other = 0;
                for (int b = 0; b < n; ++b) other = other * dims[b] + d[b];
                if (other == cell) continue;
                CHECK_EQ(__builtin_popcount(ranks[cell] ^ ranks[other]), 1);
            }
        }
    }
}

DM_TEST(shuffle_interleaves_bits) {
    auto ranks = dm::layout::rank_assignment({4, 4}, DM_ORDER_SHUFFLE);
    // cell (row 1, col 2): row bits 01, col bits 10 -> interleaved r1 c1 r0 c0 = 0 1 1 0
    CHECK_EQ(ranks[1 * 4 + 2], 0b0110);
    CHECK_EQ(ranks[3 * 4 + 0], 0b1010);
}

DM_TEST(grid_on_world) {
    const int size = dmtest::world_size();
    for (auto order : {DM_ORDER_SEND, DM_ORDER_NEWS, DM_ORDER_SHUFFLE}) {
        dm_grid grid = nullptr;
        int periods[2] = {1, 0};
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, periods, order, &grid), DM_OK);
        int dims[2], coords[2], rank = -1, back = -1;
        dm_grid_dims(grid, dims);
        dm_grid_coords(grid, coords);
        dm_grid_rank(grid, &rank);
        CHECK_EQ(dims[0] * dims[1], size);
        CHECK_EQ(rank, dmtest::world_rank());
        dm_grid_rank_of(grid, coords, &back);
        CHECK_EQ(back, rank);
        int wrapped[2] = {coords[0] + dims[0], coords[1]};
        CHECK_EQ(dm_grid_rank_of(grid, wrapped, &back), DM_OK);
        CHECK_EQ(back, rank);
        int outside[2] = {coords[0], coords[1] + dims[1]};
        CHECK_EQ(dm_grid_rank_of(grid, outside, &back), DM_ERR_ARG);
        for (int axis = 0; axis < 2; ++axis) {
            MPI_Comm sub;
            CHECK_EQ(dm_grid_axis_comm(grid, axis, &sub), DM_OK);
            int sub_size = 0, sub_rank = 0;
            MPI_Comm_size(sub, &sub_size);
            MPI_Comm_rank(sub, &sub_rank);
            CHECK_EQ(sub_size, dims[axis]);
            CHECK_EQ(sub_rank, coords[axis]);
        }
        CHECK_EQ(dm_grid_free(&grid), DM_OK);
        CHECK(grid == nullptr);
        CHECK_EQ(dm_grid_free(&grid), DM_OK);  // freeing NULL is a no-op
    }
}

DM_TEST(send_order_is_mpi_cart_create_order) {
    // Rank r of a DM_ORDER_SEND grid sits where MPI_Cart_create (no reordering) puts
    // it, so on one axis rank r owns block r, as MPI codes assume.
    for (int ndims = 1; ndims <= 3; ++ndims) {
        dm_grid grid = nullptr;
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, ndims, nullptr, nullptr, DM_ORDER_SEND, &grid), DM_OK);
        int dims[3], coords[3], cart_coords[3], periods[3] = {0, 0, 0};
        dm_grid_dims(grid, dims);
        dm_grid_coords(grid, coords);
        MPI_Comm cart;
        MPI_Cart_create(MPI_COMM_WORLD, ndims, dims, periods, 0, &cart);
        MPI_Cart_coords(cart, dmtest::world_rank(), ndims, cart_coords);
        for (int a = 0; a < ndims; ++a) CHECK_EQ(coords[a], cart_coords[a]);
        if (ndims == 1) CHECK_EQ(coords[0], dmtest::world_rank());
        MPI_Comm_free(&cart);
        CHECK_EQ(dm_grid_free(&grid), DM_OK);
    }
}

DM_TEST(grid_bad_dims_fail_everywhere) {
    const int size = dmtest::world_size();
    dm_grid grid = nullptr;
    int dims[2] = {size + 1, 1};
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, dims, nullptr, DM_ORDER_NEWS, &grid), DM_ERR_ARG);
    CHECK(grid == nullptr);
    CHECK(std::string(dm_last_error_message()).find("ranks of the communicator") != std::string::npos);
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 0, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_ERR_ARG);
    for (int order : {9, -1, 1 << 30}) {  // out of the enum's range, as a C caller may pass
        CHECK_EQ(dmtest_grid_create(MPI_COMM_WORLD, 1, order, &grid), DM_ERR_ARG);
        CHECK(std::string(dm_last_error_message()).find("unknown order " + std::to_string(order)) != std::string::npos);
    }
    int huge[DM_MAX_DIMS] = {1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30, 1 << 30};  // product past 2^63
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, DM_MAX_DIMS, huge, nullptr, DM_ORDER_NEWS, &grid), DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("dims product beyond INT_MAX") != std::string::npos);
    if (size > 1) {
        int mine[1] = {dmtest::world_rank() == 0 ? 0 : size};  // 0 (choose) vs explicit: differ
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, mine, nullptr, DM_ORDER_NEWS, &grid), DM_ERR_MISMATCH);
        CHECK(std::string(dm_last_error_message()).find("differs across ranks") != std::string::npos);
    }
}
