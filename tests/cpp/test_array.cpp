// Array: scatter and gather through the C API, checked element by element
// against the global index each element came from.
#include "c_enums.h"
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace {

// Same seed on every rank, so every rank draws the same cases.
std::mt19937 &rng() {
    static std::mt19937 r(20261122);
    return r;
}

// Byte pattern of element g: distinct for distinct g (wrapping only past 2^32 elements).
void fill_element(unsigned char *dst, size_t elsize, std::int64_t g) {
    for (size_t b = 0; b < elsize; ++b) dst[b] = static_cast<unsigned char>((g >> (8 * (b % 4))) + 17 * b);
    if (elsize == 1) dst[0] = static_cast<unsigned char>(g % 2);  // bool holds 0 or 1
}

struct Case {
    int ndims;
    std::vector<std::int64_t> shape;
    std::vector<dm_dist> dists;
    std::vector<int> ghost;
    dm_dtype dtype;
    int root;
};

Case draw_case(int ndims, int size) {
    Case c{ndims, {}, {}, {}, static_cast<dm_dtype>(rng()() % DM_NUM_DTYPES), 0};
    for (int a = 0; a < ndims; ++a) {
        c.shape.push_back(rng()() % (ndims > 2 ? 6 : 13));
        switch (rng()() % 3) {
            case 0: c.dists.push_back(dm_dist_block()); break;
            case 1: c.dists.push_back(dm_dist_cyclic()); break;
            default: c.dists.push_back(dm_dist_block_cyclic(1 + rng()() % 4, 0)); break;
        }
        c.ghost.push_back(static_cast<int>(rng()() % 3));
    }
    int r = static_cast<int>(rng()() % (size + 1));
    c.root = r == size ? DM_ALL_RANKS : r;
    return c;
}

// How run_case makes its array: dm_array_create, dm_array_create_empty, or dm_array_adopt.
enum class Make { Zeroed, Empty, Adopted };

void run_case(const Case &c, Make make = Make::Zeroed) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, c.ndims, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    int dims[DM_MAX_DIMS];
    dm_grid_dims(grid, dims);
    std::vector<dm_dist> dists = c.dists;
    for (int a = 0; a < c.ndims; ++a)  // a valid source coordinate for this grid
        if (dists[a].kind == DM_DIST_BLOCK_CYCLIC) dists[a].src = static_cast<int>(rng()() % dims[a]);

    const size_t elsize = dm_dtype_size(c.dtype);
    std::vector<std::int64_t> memory;  // adopted storage (8-byte aligned), outliving the array
    dm_array array = nullptr;
    if (make == Make::Adopted) {
        int at[DM_MAX_DIMS];
        dm_grid_coords(grid, at);
        std::int64_t bytes = static_cast<std::int64_t>(elsize);
        for (int a = 0; a < c.ndims; ++a) {
            std::int64_t extent = 0;
            CHECK_EQ(dm_dist_local_extent(dists[a], c.shape[a], dims[a], at[a], &extent), DM_OK);
            bytes *= extent + 2 * c.ghost[a];
        }
        memory.resize(static_cast<size_t>(bytes / 8 + 1));
        CHECK_EQ(dm_array_adopt(grid, c.dtype, c.ndims, c.shape.data(), dists.data(), c.ghost.data(), memory.data(),
                                bytes, &array),
                 DM_OK);
        void *storage = nullptr;
        if (array) dm_array_storage(array, &storage, nullptr);
        CHECK(bytes == 0 || storage == memory.data());
    } else {
        auto create = make == Make::Empty ? dm_array_create_empty : dm_array_create;
        CHECK_EQ(create(grid, c.dtype, c.ndims, c.shape.data(), dists.data(), c.ghost.data(), &array), DM_OK);
    }
    if (!array) return;
    std::int64_t total = 1;
    for (auto e : c.shape) total *= e;
    std::vector<unsigned char> global(static_cast<size_t>(total) * elsize);
    for (std::int64_t g = 0; g < total; ++g) fill_element(&global[g * elsize], elsize, g);

    const int rank = dmtest::world_rank();
    const bool reads = c.root == DM_ALL_RANKS || c.root == rank;
    CHECK_EQ(dm_array_scatter(array, reads ? global.data() : nullptr, c.root), DM_OK);

    // Every owned element holds the value of its global index.
    void *data = nullptr;
    std::int64_t extents[DM_MAX_DIMS], strides[DM_MAX_DIMS];
    int coords[DM_MAX_DIMS];
    dm_array_local(array, &data, extents, strides);
    dm_grid_coords(grid, coords);
    dm_dist resolved[DM_MAX_DIMS];
    dm_array_dists(array, resolved);
    std::int64_t local_count = 1;
    for (int a = 0; a < c.ndims; ++a) local_count *= extents[a];
    for (std::int64_t i = 0; i < local_count; ++i) {
        std::int64_t rest = i, g = 0, offset = 0;
        std::vector<std::int64_t> l(c.ndims);
        for (int a = c.ndims - 1; a >= 0; --a) { l[a] = rest % extents[a]; rest /= extents[a]; }
        for (int a = 0; a < c.ndims; ++a) {
            std::int64_t ga = -1;
            CHECK_EQ(dm_dist_to_global(resolved[a], c.shape[a], dims[a], coords[a], l[a], &ga), DM_OK);
            g = g * c.shape[a] + ga;
            offset += l[a] * strides[a];
        }
        unsigned char expected[16];
        fill_element(expected, elsize, g);
        CHECK(std::memcmp(static_cast<unsigned char *>(data) + offset, expected, elsize) == 0);
    }

    std::vector<unsigned char> back(global.size(), 0xAB);
    CHECK_EQ(dm_array_gather(array, reads ? back.data() : nullptr, c.root), DM_OK);
    if (reads) CHECK(back == global);

    dm_grid array_grid = nullptr;
    dm_array_grid(array, &array_grid);
    CHECK(array_grid != nullptr);
    CHECK_EQ(dm_grid_free(&array_grid), DM_ERR_STATE);  // borrowed from the array
    CHECK(array_grid != nullptr);
    CHECK_EQ(dm_grid_free(&grid), DM_OK);  // the array keeps the grid alive
    CHECK_EQ(dm_array_gather(array, reads ? back.data() : nullptr, c.root), DM_OK);
    CHECK_EQ(dm_array_free(&array), DM_OK);
    CHECK(array == nullptr);
}

}  // namespace

DM_TEST(scatter_gather_round_trip_every_rank_and_type) {
    for (int ndims = 1; ndims <= 4; ++ndims)
        for (int trial = 0; trial < 25; ++trial) run_case(draw_case(ndims, dmtest::world_size()));
}

DM_TEST(empty_and_adopted_arrays_round_trip) {
    for (int ndims = 1; ndims <= 3; ++ndims)
        for (int trial = 0; trial < 10; ++trial) {
            run_case(draw_case(ndims, dmtest::world_size()), Make::Empty);
            run_case(draw_case(ndims, dmtest::world_size()), Make::Adopted);
        }
}

DM_TEST(adopting_too_little_memory_fails_everywhere) {
    const int rank = dmtest::world_rank(), size = dmtest::world_size();
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    const std::int64_t shape[1] = {4 * static_cast<std::int64_t>(size)};
    std::vector<double> memory(4);
    dm_array array = nullptr;
    const std::int64_t bytes = rank == size - 1 ? 24 : 32;  // the last rank's is one element short
    CHECK_EQ(dm_array_adopt(grid, DM_FLOAT64, 1, shape, nullptr, nullptr, memory.data(), bytes, &array), DM_ERR_ARG);
    CHECK(array == nullptr);
    CHECK(std::string(dm_last_error_message()).find("needs 32 bytes") != std::string::npos);
    CHECK_EQ(dm_array_adopt(grid, DM_FLOAT64, 1, shape, nullptr, nullptr, nullptr, 32, &array), DM_ERR_ARG);
    CHECK_EQ(dm_array_adopt(grid, DM_FLOAT64, 1, shape, nullptr, nullptr,
                            reinterpret_cast<char *>(memory.data()) + (rank == 0), 31, &array),
             DM_ERR_ARG);
    dm_grid_free(&grid);
}

DM_TEST(seven_dimensional_array) {
    Case c{7, {3, 1, 2, 4, 1, 2, 3}, std::vector<dm_dist>(7, dm_dist_block()), std::vector<int>(7, 1), DM_FLOAT64,
           DM_ALL_RANKS};
    run_case(c);
}

DM_TEST(bad_arrays_fail_everywhere) {
    const int size = dmtest::world_size(), rank = dmtest::world_rank();
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    dm_array array = nullptr;
    std::int64_t shape[2] = {5, 6};
    auto expect = [&](int status, const char *text) {
        CHECK_EQ(status == DM_OK ? 0 : 1, 1);
        std::string message = dm_last_error_message();
        if (message.find(text) == std::string::npos) dmtest::report(__FILE__, __LINE__, message + " lacks " + text);
        CHECK(array == nullptr);
    };
    std::int64_t shape3[3] = {5, 6, 7};
    expect(dm_array_create(grid, DM_FLOAT64, 3, shape3, nullptr, nullptr, &array), "differs from process grid rank");
    expect(dmtest_array_create(grid, 42, 2, shape, DM_DIST_BLOCK, &array), "unsupported element type");
    dm_dist zero[2] = {dm_dist_block_cyclic(0, 0), dm_dist_block()};
    expect(dm_array_create(grid, DM_INT32, 2, shape, zero, nullptr, &array), "block size must be positive");
    int negative[2] = {0, -1};
    expect(dm_array_create(grid, DM_INT32, 2, shape, nullptr, negative, &array), "ghost width");
    if (size > 1) {
        std::int64_t mine[2] = {5, rank == 1 ? 7 : 6};
        CHECK_EQ(dm_array_create(grid, DM_INT32, 2, mine, nullptr, nullptr, &array), DM_ERR_MISMATCH);
        expect(DM_ERR_MISMATCH, "global shape differs across ranks: (5, 6) on rank 0, (5, 7) on rank 1");
        dm_dtype type = rank == 0 ? DM_INT32 : DM_INT64;
        CHECK_EQ(dm_array_create(grid, type, 2, shape, nullptr, nullptr, &array), DM_ERR_MISMATCH);
        expect(DM_ERR_MISMATCH, "element type differs across ranks: int32 on rank 0, int64 on rank 1");
    }
    CHECK_EQ(dm_array_create(grid, DM_INT32, 2, shape, nullptr, nullptr, &array), DM_OK);
    std::vector<int> global(30, 1);
    CHECK_EQ(dm_array_scatter(array, global.data(), size), DM_ERR_ARG);  // root out of range
    CHECK_EQ(dm_array_scatter(array, rank == 0 ? nullptr : global.data(), 0), DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()) == "scatter: global array is NULL on rank 0");
    if (size > 1) CHECK_EQ(dm_array_gather(array, global.data(), rank == 0 ? 0 : 1), DM_ERR_MISMATCH);
    if (size > 1) {  // ranks in different calls: both named, by their C names
        const int status = rank == 0 ? dm_array_gather(array, global.data(), 0) : dm_array_scatter(array, global.data(), 0);
        CHECK_EQ(status, DM_ERR_MISMATCH);
        CHECK_TEXT(dm_last_error_message(),
                   "the ranks are in different collective calls: rank 0 is in dm_array_gather, rank 1 in "
                   "dm_array_scatter; every rank of the communicator must make the same collective calls in the same "
                   "order");
    }
    dm_array_free(&array);
    dm_grid_free(&grid);
    if (dmtest::bad_handles_return()) CHECK_EQ(dm_array_scatter(nullptr, nullptr, 0), DM_ERR_STATE);
}

namespace {

// A failed dm_array_create: `status` everywhere, `text` in the message, the same
// message on every rank, and no array.
void expect_create_fails(int status, int expected, const char *text, dm_array array) {
    CHECK_EQ(status, expected);
    const std::string message = dm_last_error_message();
    if (message.find(text) == std::string::npos) dmtest::report(__FILE__, __LINE__, message + " lacks " + text);
    const std::int64_t mine = static_cast<std::int64_t>(std::hash<std::string>{}(message) >> 1);
    std::int64_t low = 0, high = 0;
    MPI_Allreduce(&mine, &low, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &high, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (low != high) dmtest::report(__FILE__, __LINE__, "ranks disagree on the message: " + message);
    CHECK(array == nullptr);
}

}  // namespace

// Sizes no machine can hold fail on every rank before anything is allocated, with
// the reason; the library stays usable.
DM_TEST(arrays_too_large_for_memory_fail_everywhere) {
    dm_grid line = nullptr, plane = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &line), DM_OK);
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_NEWS, &plane), DM_OK);
    dm_array array = nullptr;
    const std::int64_t two62 = std::int64_t{1} << 62;
    // 2^62 float64: 2^65 bytes, past 64-bit byte offsets.
    expect_create_fails(dm_array_create(line, DM_FLOAT64, 1, &two62, nullptr, nullptr, &array), DM_ERR_MEMORY,
                        "too large for any memory", array);
    const std::int64_t largest = INT64_MAX;
    expect_create_fails(dm_array_create(line, DM_BOOL, 1, &largest, nullptr, nullptr, &array), DM_ERR_MEMORY,
                        "local storage (ghosts included)", array);
    const std::int64_t overflowing[2] = {two62, 4};
    expect_create_fails(dm_array_create(plane, DM_BOOL, 2, overflowing, nullptr, nullptr, &array), DM_ERR_ARG,
                        "global size overflows 64 bits", array);
    // 2^59 int64 (2^62 bytes): at 8 ranks or fewer, more per rank than any machine holds.
    const std::int64_t square[2] = {std::int64_t{1} << 30, std::int64_t{1} << 29};
    expect_create_fails(dm_array_create(plane, DM_INT64, 2, square, nullptr, nullptr, &array), DM_ERR_MEMORY,
                        "local storage (ghosts included)", array);
    // Ghosts: 8 elements and 2 x 2^30 ghosts (2 GiB of bool) are more than an MPI
    // datatype describes: refused before anything is allocated.
    const std::int64_t eight = 8;
    const int wide = 1 << 30, widest[2] = {INT_MAX, INT_MAX};
    expect_create_fails(dm_array_create(line, DM_BOOL, 1, &eight, nullptr, &wide, &array), DM_ERR_ARG,
                        "and 2 x 1073741824 ghosts, more than 2147483647", array);
    const std::int64_t small[2] = {3, 3};
    expect_create_fails(dm_array_create(plane, DM_BOOL, 2, small, nullptr, widest, &array), DM_ERR_MEMORY,
                        "more bytes than this process can address", array);
    // Still usable: a reasonable array with ghosts is created and freed.
    const int ghost[2] = {2, 1};
    CHECK_EQ(dm_array_create(plane, DM_FLOAT64, 2, small, nullptr, ghost, &array), DM_OK);
    std::int64_t storage[2] = {0, 0}, local[2] = {0, 0};
    dm_array_storage(array, nullptr, storage);
    dm_array_local(array, nullptr, local, nullptr);
    CHECK_EQ(storage[0], local[0] + 4);
    CHECK_EQ(storage[1], local[1] + 2);
    dm_array_free(&array);
    dm_grid_free(&plane);
    dm_grid_free(&line);
}

// ndims is checked, on every rank, before shape, dists or ghost are read: a
// 1-element shape with ndims 8 or -1 reads nothing past its end (ASan checks).
DM_TEST(bad_ndims_is_reported_before_anything_is_read) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    auto shape = std::make_unique<std::int64_t[]>(1);
    auto ghost = std::make_unique<int[]>(1);
    shape[0] = 4;
    ghost[0] = 0;
    dm_array array = nullptr;
    for (int ndims : {0, -1, DM_MAX_DIMS + 1, INT_MAX, INT_MIN})
        expect_create_fails(dm_array_create(grid, DM_INT32, ndims, shape.get(), nullptr, ghost.get(), &array),
                            DM_ERR_ARG, "ndims must be in [1, 7]", array);
    expect_create_fails(dm_array_create(grid, DM_INT32, 1, nullptr, nullptr, nullptr, &array), DM_ERR_ARG,
                        "shape is NULL", array);
    dm_grid_free(&grid);
}

// Element types and distribution kinds out of their enums' range, as a C caller
// may pass them: a clear error on every rank, never a load of an invalid enum.
DM_TEST(out_of_range_enums_fail_everywhere) {
    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    const std::int64_t n = 6;
    dm_array array = nullptr;
    for (int dtype : {DM_NUM_DTYPES, 8, -1, INT_MAX, INT_MIN})
        expect_create_fails(dmtest_array_create(grid, dtype, 1, &n, DM_DIST_BLOCK, &array), DM_ERR_TYPE,
                            "unsupported element type", array);
    for (int kind : {DM_DIST_SIZES + 1, 7, -1, INT_MAX})
        expect_create_fails(dmtest_array_create(grid, DM_FLOAT64, 1, &n, kind, &array), DM_ERR_ARG,
                            "unknown distribution kind", array);
    // A kind that differs across ranks (valid on rank 0 only) fails everywhere too.
    const int kind = dmtest::world_rank() == 0 ? DM_DIST_CYCLIC : 99;
    if (dmtest::world_size() > 1)
        expect_create_fails(dmtest_array_create(grid, DM_FLOAT64, 1, &n, kind, &array), DM_ERR_ARG,
                            "unknown distribution kind 99", array);
    CHECK_EQ(dmtest_array_create(grid, DM_FLOAT64, 1, &n, DM_DIST_CYCLIC, &array), DM_OK);
    dm_array_free(&array);
    dm_grid_free(&grid);
}
