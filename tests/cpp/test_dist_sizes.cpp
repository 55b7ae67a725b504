// DM_DIST_SIZES: irregular blocks, one size per grid coordinate. The index maps
// against an oracle built element by element, the checks of bad sizes, and arrays,
// redistributions and halos on such axes through the C API, checked element by
// element against the global index each element came from.
#include "harness.hpp"

#include "layout/distribution.hpp"

#include <datamotion/datamotion.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

using dm::layout::AxisMap;

namespace {

// Sizes of n elements over p coordinates, some of them zero (same seed on every rank).
std::vector<std::int64_t> uneven_sizes(std::int64_t n, int p, std::mt19937 &rng) {
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(p), 0);
    for (std::int64_t g = 0; g < n; ++g) ++sizes[rng() % static_cast<unsigned>(p)];
    if (p > 1) {  // the first coordinate's elements go to the last: at least one owns nothing
        sizes.back() += sizes.front();
        sizes.front() = 0;
    }
    return sizes;
}

bool has_text(const char *text) { return std::string(dm_last_error_message()).find(text) != std::string::npos; }

}  // namespace

DM_TEST(sizes_maps_match_an_oracle) {
    std::mt19937 rng(35);
    for (int trial = 0; trial < 300; ++trial) {
        const int p = 1 + static_cast<int>(rng() % 7);
        const std::int64_t n = rng() % 40;
        const std::vector<std::int64_t> sizes = uneven_sizes(n, p, rng);
        std::vector<int> owner;  // the oracle: coordinate c holds sizes[c] elements, in order
        std::vector<std::int64_t> local;
        for (int c = 0; c < p; ++c)
            for (std::int64_t l = 0; l < sizes[static_cast<std::size_t>(c)]; ++l) owner.push_back(c), local.push_back(l);
        AxisMap map(dm_dist_sizes(sizes.data(), p), n, p);
        CHECK(!map.block_cyclic() && map.contiguous() && map.kind() == DM_DIST_SIZES);
        for (std::int64_t g = 0; g < n; ++g) {
            CHECK_EQ(map.owner(g), owner[static_cast<std::size_t>(g)]);
            CHECK_EQ(map.local_index(g), local[static_cast<std::size_t>(g)]);
            CHECK_EQ(map.global_index(map.owner(g), map.local_index(g)), g);
            std::int64_t end = g;
            while (end < n && owner[static_cast<std::size_t>(end)] == owner[static_cast<std::size_t>(g)]) ++end;
            CHECK_EQ(map.block_end(g), end);
        }
        // Owned runs in a window: exactly the oracle's owned indices inside it.
        const std::int64_t begin = n ? rng() % n : 0, stop = begin + rng() % (n + 1);
        for (int c = 0; c < p; ++c) {
            CHECK_EQ(map.extent(c), sizes[static_cast<std::size_t>(c)]);
            std::vector<std::int64_t> want, got;
            for (std::int64_t g = begin; g < std::min(stop, n); ++g)
                if (owner[static_cast<std::size_t>(g)] == c) want.push_back(g);
            for (const auto &run : map.owned_runs(c, begin, stop))
                for (std::int64_t i = 0; i < run.length; ++i) {
                    got.push_back(run.global + i);
                    CHECK_EQ(map.local_index(run.global + i), run.local + i);
                }
            CHECK(got == want);
        }
        // The map's words give the same map back, and the same owners.
        std::vector<std::int64_t> words;
        map.append_words(words);
        std::size_t at = 0;
        const AxisMap again(dm::layout::dist_from_words(words, at), n, p);
        CHECK(at == words.size() && again.same_owners(map) && map.same_owners(again));
        CHECK(!map.same_owners(AxisMap(dm_dist_block(), n, p)));
    }
}

DM_TEST(sizes_are_described_as_python_writes_them) {
    const std::int64_t sizes[] = {3, 0, 2};
    std::vector<std::int64_t> words;
    dm::layout::append_words(dm_dist_sizes(sizes, 3), words);
    dm::layout::append_words(dm_dist_block_cyclic(2, 1), words);
    dm::layout::append_words(dm_dist_block(), words);
    CHECK_TEXT(dm::layout::dists_text(words), "(Sizes([3, 0, 2]), BlockCyclic(r=2, src=1), Block())");
    words.clear();
    dm::layout::append_words(dm_dist_sizes(sizes, 1), words);
    CHECK_TEXT(dm::layout::dists_text(words), "(Sizes([3]),)");
    words.resize(words.size() - 1);  // another rank's words, cut short: still shown, never read past
    CHECK_TEXT(dm::layout::dists_text(words), "(Sizes([]),)");
}

DM_TEST(c_index_functions_take_sizes_and_refuse_bad_ones) {
    const std::int64_t sizes[] = {2, 0, 3, 1};
    int coord = -1;
    std::int64_t local = -1, g = -1, extent = -1;
    CHECK_EQ(dm_dist_to_local(dm_dist_sizes(sizes, 4), 6, 4, 4, &coord, &local), DM_OK);
    CHECK_EQ(coord, 2);
    CHECK_EQ(local, std::int64_t{2});
    CHECK_EQ(dm_dist_to_global(dm_dist_sizes(sizes, 4), 6, 4, 3, 0, &g), DM_OK);
    CHECK_EQ(g, std::int64_t{5});
    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(sizes, 4), 6, 4, 1, &extent), DM_OK);
    CHECK_EQ(extent, std::int64_t{0});
    CHECK_EQ(dm_dist_to_global(dm_dist_sizes(sizes, 4), 6, 4, 1, 0, &g), DM_ERR_ARG);  // coordinate 1 owns nothing

    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(sizes, 4), 7, 4, 0, &extent), DM_ERR_ARG);
    CHECK(has_text("the sizes sum to 6, not to the axis length 7"));
    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(sizes, 3), 5, 4, 0, &extent), DM_ERR_ARG);
    CHECK(has_text("3 sizes for 4 grid coordinates"));
    const std::int64_t negative[] = {4, -1, 3};
    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(negative, 3), 6, 3, 0, &extent), DM_ERR_ARG);
    CHECK(has_text("size of coordinate 1 is negative (-1)"));
    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(nullptr, 2), 6, 2, 0, &extent), DM_ERR_ARG);
    CHECK(has_text("sizes is NULL"));
    const std::int64_t huge[] = {INT64_MAX, 1};
    CHECK_EQ(dm_dist_local_extent(dm_dist_sizes(huge, 2), 6, 2, 0, &extent), DM_ERR_ARG);
    CHECK(has_text("sum past 2^63 - 1"));
}

// An n x 5 float64 array, element (i, j) holding i * 5 + j, with a Sizes axis 0 over
// the grid's rows and `cols` along axis 1; the sizes come from a vector that is gone
// once the array exists (the array keeps its own copy).
namespace {

dm_array sizes_array(dm_grid grid, std::int64_t n, std::uint32_t seed, dm_dist cols, int ghost = 0) {
    int dims[2];
    dm_grid_dims(grid, dims);
    std::mt19937 rng(seed);
    auto sizes = std::make_unique<std::vector<std::int64_t>>(uneven_sizes(n, dims[0], rng));
    const std::int64_t shape[2] = {n, 5};
    const dm_dist dists[2] = {dm_dist_sizes(sizes->data(), dims[0]), cols};
    const int ghosts[2] = {ghost, 0};
    dm_array array = nullptr;
    CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 2, shape, dists, ghosts, &array), DM_OK);
    sizes.reset();
    return array;
}

// This rank's part of a 2-d float64 array on `grid`: its grid place, distributions
// and owned elements (ghosts at negative or past-the-extent indices).
struct Local2d {
    int dims[2], coords[2];
    dm_dist dists[2];
    void *data = nullptr;
    std::int64_t extents[2], strides[2];
    Local2d(dm_array array, dm_grid grid) {
        dm_grid_dims(grid, dims);
        dm_grid_coords(grid, coords);
        dm_array_dists(array, dists);
        dm_array_local(array, &data, extents, strides);
    }
    double at(std::int64_t i, std::int64_t j) const {
        return *reinterpret_cast<const double *>(static_cast<const char *>(data) + i * strides[0] + j * strides[1]);
    }
};

// Whether every owned element of `array` (n x 5) holds its global index.
bool holds_global_indices(dm_array array, dm_grid grid, std::int64_t n) {
    const Local2d mine(array, grid);
    bool ok = true;
    for (std::int64_t i = 0; i < mine.extents[0]; ++i)
        for (std::int64_t j = 0; j < mine.extents[1]; ++j) {
            std::int64_t gi = -1, gj = -1;
            ok = ok && dm_dist_to_global(mine.dists[0], n, mine.dims[0], mine.coords[0], i, &gi) == DM_OK;
            ok = ok && dm_dist_to_global(mine.dists[1], 5, mine.dims[1], mine.coords[1], j, &gj) == DM_OK;
            ok = ok && mine.at(i, j) == static_cast<double>(gi * 5 + gj);
        }
    return ok;
}

}  // namespace

DM_TEST(arrays_and_redistributions_on_sizes_axes) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_SEND, &grid), DM_OK);
    for (std::int64_t n : {0, 1, 7, 23}) {
        std::vector<double> global(static_cast<std::size_t>(n * 5));
        for (std::size_t k = 0; k < global.size(); ++k) global[k] = static_cast<double>(k);
        dm_array a = sizes_array(grid, n, 1, dm_dist_cyclic());
        CHECK_EQ(dm_array_scatter(a, global.data(), DM_ALL_RANKS), DM_OK);
        CHECK(holds_global_indices(a, grid, n));
        // To block-cyclic, to other sizes, and back, every method that applies.
        dm_array bc = nullptr, other = sizes_array(grid, n, 2, dm_dist_block()), back = sizes_array(grid, n, 1, dm_dist_cyclic());
        const std::int64_t shape[2] = {n, 5};
        const dm_dist bc_dists[2] = {dm_dist_block_cyclic(2, 0), dm_dist_block_cyclic(3, 0)};
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 2, shape, bc_dists, nullptr, &bc), DM_OK);
        for (dm_redist_method method : {DM_REDIST_AUTO, DM_REDIST_NONBLOCKING, DM_REDIST_SENDRECV, DM_REDIST_ALLTOALLW,
                                        DM_REDIST_PER_AXIS}) {
            const dm_array path[] = {a, bc, other, back};
            for (int step = 0; step < 3; ++step) {
                dm_redist plan = nullptr;
                CHECK_EQ(dm_redist_setup(path[step], path[step + 1], method, &plan), DM_OK);
                CHECK_EQ(dm_redist_execute(plan, path[step], path[step + 1]), DM_OK);
                CHECK(holds_global_indices(path[step + 1], grid, n));
                dm_redist_free(&plan);
            }
        }
        std::vector<double> gathered(global.size(), -1.0);
        CHECK_EQ(dm_array_gather(back, gathered.data(), DM_ALL_RANKS), DM_OK);
        CHECK(gathered == global);
        for (dm_array *x : {&a, &bc, &other, &back}) dm_array_free(x);
    }
    dm_grid_free(&grid);
}

DM_TEST(halos_on_sizes_axes_read_past_ranks_that_own_nothing) {
    dm_grid grid = nullptr;
    const int periods[2] = {1, 0};
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, periods, DM_ORDER_SEND, &grid), DM_OK);
    const std::int64_t n = 11;
    dm_array a = sizes_array(grid, n, 3, dm_dist_block(), 2);
    std::vector<double> global(static_cast<std::size_t>(n * 5));
    for (std::size_t k = 0; k < global.size(); ++k) global[k] = static_cast<double>(k);
    CHECK_EQ(dm_array_scatter(a, global.data(), DM_ALL_RANKS), DM_OK);
    dm_halo halo = nullptr;
    CHECK_EQ(dm_halo_setup(a, 0, &halo), DM_OK);
    CHECK_EQ(dm_halo_exchange(halo, a), DM_OK);
    // The two rows below and above this rank's rows, wrapping around axis 0.
    const Local2d mine(a, grid);
    std::int64_t first = 0;
    if (mine.extents[0] > 0) {
        CHECK_EQ(dm_dist_to_global(mine.dists[0], n, mine.dims[0], mine.coords[0], 0, &first), DM_OK);
        for (std::int64_t i = -2; i < mine.extents[0] + 2; ++i)
            for (std::int64_t j = 0; j < mine.extents[1]; ++j) {
                std::int64_t gj = -1;
                dm_dist_to_global(mine.dists[1], 5, mine.dims[1], mine.coords[1], j, &gj);
                const std::int64_t gi = ((first + i) % n + n) % n;
                CHECK(mine.at(i, j) == static_cast<double>(gi * 5 + gj));
            }
    }
    dm_halo_free(&halo);
    dm_array_free(&a);
    dm_grid_free(&grid);
}

DM_TEST(bad_sizes_fail_on_every_rank) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_SEND, &grid), DM_OK);
    const int p = dmtest::world_size(), rank = dmtest::world_rank();
    const std::int64_t n = 4 * p;
    std::vector<std::int64_t> sizes(static_cast<std::size_t>(p), 4);
    dm_array array = nullptr;
    auto create = [&](std::vector<std::int64_t> s, int count) {
        const dm_dist dist = dm_dist_sizes(s.data(), count);
        return dm_array_create(grid, DM_INT32, 1, &n, &dist, nullptr, &array);
    };
    std::vector<std::int64_t> wrong_sum = sizes;
    wrong_sum[0] += 1;
    CHECK_EQ(create(wrong_sum, p), DM_ERR_ARG);
    CHECK(has_text("axis 0: the sizes sum to"));
    CHECK(array == nullptr);
    std::vector<std::int64_t> negative = sizes;
    negative[0] = -1;  // reported before the sum
    CHECK_EQ(create(negative, p), DM_ERR_ARG);
    CHECK(has_text("axis 0: size of coordinate 0 is negative"));
    CHECK_EQ(create(sizes, p + 1), DM_ERR_ARG);
    CHECK(has_text("sizes for"));
    // Wrong on the last rank only: the same error everywhere.
    CHECK_EQ(create(rank == p - 1 ? wrong_sum : sizes, p), DM_ERR_ARG);
    CHECK(has_text("sum to"));
    if (p > 1) {  // valid everywhere but different: a mismatch naming the sizes
        std::vector<std::int64_t> moved = sizes;
        moved[0] -= 1, moved[1] += 1;
        CHECK_EQ(create(rank == p - 1 ? moved : sizes, p), DM_ERR_MISMATCH);
        CHECK(has_text("Sizes(["));
    }
    CHECK_EQ(create(sizes, p), DM_OK);
    dm_array_free(&array);
    dm_grid_free(&grid);
}
