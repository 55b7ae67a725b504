// PSHIFT through the C API, checked against a serial shift of the global array.
#include "c_enums.h"
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <climits>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

std::mt19937 &rng() {
    static std::mt19937 r(777);  // the same on every rank: every rank draws the same cases
    return r;
}

// Serial CSHIFT/EOSHIFT of a row-major global array along `axis`.
std::vector<double> serial_shift(const std::vector<double> &x, const std::vector<std::int64_t> &shape,
                                 const dm_shift_spec &spec, double boundary) {
    std::int64_t inner = 1, outer = 1, n = shape[spec.axis];
    for (size_t a = 0; a < shape.size(); ++a) {
        if (static_cast<int>(a) < spec.axis) outer *= shape[a];
        if (static_cast<int>(a) > spec.axis) inner *= shape[a];
    }
    std::vector<double> r(x.size());
    if (n == 0) return r;
    // Any int64 distance: CSHIFT reads (i + shift) mod n, that is numpy.roll(x, -shift);
    // EOSHIFT by n or more either way reads only the boundary.
    const std::int64_t reduced = spec.shift % n < 0 ? spec.shift % n + n : spec.shift % n;
    const bool all_boundary = spec.kind == DM_EOSHIFT && (spec.shift >= n || spec.shift <= -n);
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < inner; ++j) {
                const std::int64_t src = spec.kind == DM_CSHIFT ? (i + reduced) % n : all_boundary ? -1 : i + spec.shift;
                r[(o * n + i) * inner + j] = src >= 0 && src < n ? x[(o * n + src) * inner + j] : boundary;
            }
    return r;
}

}  // namespace

DM_TEST(random_polyshifts_match_a_serial_shift) {
    for (int trial = 0; trial < 30; ++trial) {
        const int ndims = 1 + static_cast<int>(rng()() % 3);
        std::vector<std::int64_t> shape;
        std::vector<int> ghost;
        std::int64_t total = 1;
        for (int a = 0; a < ndims; ++a) {
            shape.push_back(rng()() % 7);
            ghost.push_back(static_cast<int>(rng()() % 2));
            total *= shape.back();
        }
        const int nshifts = 1 + static_cast<int>(rng()() % 4);
        std::vector<dm_shift_spec> specs;
        std::vector<double> scalars;
        for (int k = 0; k < nshifts; ++k) {
            dm_shift_spec s{rng()() % 2 ? DM_CSHIFT : DM_EOSHIFT, static_cast<int>(rng()() % ndims),
                            static_cast<std::int64_t>(rng()() % 31) - 15,
                            static_cast<dm_boundary_kind>(rng()() % 3)};  // zero, one or a scalar
            specs.push_back(s);
            scalars.push_back(0.5 + k);
        }
        dm_grid grid = nullptr;
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, ndims, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
        // Every distribution: Block, Cyclic or block-cyclic with any source coordinate.
        std::vector<int> dims(static_cast<size_t>(ndims));
        dm_grid_dims(grid, dims.data());
        std::vector<dm_dist> dist;
        for (int a = 0; a < ndims; ++a) {
            const auto kind = static_cast<dm_dist_kind>(rng()() % 3);
            dist.push_back({kind, 1 + static_cast<std::int64_t>(rng()() % 3), static_cast<int>(rng()() % dims[a])});
        }
        dm_array src = nullptr;
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, ndims, shape.data(), dist.data(), ghost.data(), &src), DM_OK);
        std::vector<double> x(static_cast<size_t>(total));
        for (std::int64_t i = 0; i < total; ++i) x[i] = static_cast<double>(i) * 1.5 + 1;
        CHECK_EQ(dm_array_scatter(src, x.data(), DM_ALL_RANKS), DM_OK);

        dm_pshift plan = nullptr;
        CHECK_EQ(dm_pshift_setup(src, nshifts, specs.data(), &plan), DM_OK);
        std::vector<dm_array> dsts(nshifts), srcs(nshifts, src);
        std::vector<const void *> boundaries(nshifts);
        for (int k = 0; k < nshifts; ++k) {
            CHECK_EQ(dm_array_create(grid, DM_FLOAT64, ndims, shape.data(), dist.data(), ghost.data(), &dsts[k]),
                     DM_OK);
            boundaries[k] = &scalars[k];
        }
        for (int repeat = 0; repeat < 2; ++repeat)  // the second run reuses the persistent requests
            CHECK_EQ(dm_pshift_execute(plan, dsts.data(), srcs.data(), boundaries.data()), DM_OK);
        for (int k = 0; k < nshifts; ++k) {
            std::vector<double> got(x.size(), -1.0);
            CHECK_EQ(dm_array_gather(dsts[k], got.data(), DM_ALL_RANKS), DM_OK);
            const double b = specs[k].boundary == DM_BOUNDARY_ZERO ? 0.0
                           : specs[k].boundary == DM_BOUNDARY_ONE  ? 1.0
                                                                   : scalars[k];
            if (got != serial_shift(x, shape, specs[k], b))
                dmtest::report(__FILE__, __LINE__, "trial " + std::to_string(trial) + " shift " + std::to_string(k));
            dm_array_free(&dsts[k]);
        }
        CHECK_EQ(dm_pshift_free(&plan), DM_OK);
        CHECK(plan == nullptr);
        dm_array_free(&src);
        dm_grid_free(&grid);
    }
}

// Distances at the int64 limits and around the axis length, on 1-d and 2-d arrays
// with and without ghosts, Block and Cyclic: every one equals the serial oracle
// (numpy.roll for CSHIFT).
DM_TEST(shifts_at_the_int64_limits_match_a_serial_shift) {
    const std::int64_t distances[] = {INT64_MIN, INT64_MIN + 1, -(std::int64_t{1} << 62), -13, -12, -11, -1, 0, 1,
                                      11, 12, 13, std::int64_t{1} << 62, INT64_MAX - 1, INT64_MAX};
    const std::vector<std::vector<std::int64_t>> shapes = {{12}, {13}, {1}, {0}, {5, 12}, {12, 3}};
    for (const auto &shape : shapes) {
        const int ndims = static_cast<int>(shape.size());
        std::int64_t total = 1;
        for (auto e : shape) total *= e;
        std::vector<double> x(static_cast<size_t>(total));
        for (std::int64_t i = 0; i < total; ++i) x[i] = static_cast<double>(i) + 1;
        dm_grid grid = nullptr;
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, ndims, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
        for (int variant = 0; variant < 3; ++variant) {  // Block, Block with ghosts, Cyclic
            const std::vector<int> ghost(static_cast<size_t>(ndims), variant == 1);
            const std::vector<dm_dist> dist(static_cast<size_t>(ndims),
                                            dm_dist{variant == 2 ? DM_DIST_CYCLIC : DM_DIST_BLOCK, 1, 0});
            dm_array src = nullptr, dst = nullptr;
            CHECK_EQ(dm_array_create(grid, DM_FLOAT64, ndims, shape.data(), dist.data(), ghost.data(), &src), DM_OK);
            CHECK_EQ(dm_array_create(grid, DM_FLOAT64, ndims, shape.data(), dist.data(), ghost.data(), &dst), DM_OK);
            CHECK_EQ(dm_array_scatter(src, x.data(), DM_ALL_RANKS), DM_OK);
            const double seven = 7;
            const void *boundary[1] = {&seven};
            for (int axis = 0; axis < ndims; ++axis)
                for (dm_shift_kind kind : {DM_CSHIFT, DM_EOSHIFT})
                    for (std::int64_t distance : distances) {
                        const dm_shift_spec spec{kind, axis, distance, DM_BOUNDARY_SCALAR};
                        dm_pshift plan = nullptr;
                        CHECK_EQ(dm_pshift_setup(src, 1, &spec, &plan), DM_OK);
                        CHECK_EQ(dm_pshift_execute(plan, &dst, &src, boundary), DM_OK);
                        std::vector<double> got(x.size(), -1.0);
                        CHECK_EQ(dm_array_gather(dst, got.data(), DM_ALL_RANKS), DM_OK);
                        if (got != serial_shift(x, shape, spec, seven))
                            dmtest::report(__FILE__, __LINE__,
                                           std::string(kind == DM_CSHIFT ? "cshift" : "eoshift") + " by " +
                                               std::to_string(distance) + " along axis " + std::to_string(axis) +
                                               " of " + std::to_string(shape[axis]));
                        dm_pshift_free(&plan);
                    }
            dm_array_free(&dst);
            dm_array_free(&src);
        }
        dm_grid_free(&grid);
    }
}

// Shift and boundary kinds out of their enums' range, as a C caller may pass them.
DM_TEST(unknown_shift_kinds_fail_everywhere) {
    dm_grid grid = nullptr;
    dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid);
    const std::int64_t n = 10;
    dm_array a = nullptr;
    dm_array_create(grid, DM_INT32, 1, &n, nullptr, nullptr, &a);
    dm_pshift plan = nullptr;
    for (int kind : {2, 5, -1, INT_MAX}) {
        CHECK_EQ(dmtest_pshift_setup(a, kind, 0, 1, DM_BOUNDARY_ZERO, &plan), DM_ERR_ARG);
        CHECK(std::string(dm_last_error_message()).find("unknown kind " + std::to_string(kind)) != std::string::npos);
    }
    for (int boundary : {4, 9, -1, INT_MIN}) {
        CHECK_EQ(dmtest_pshift_setup(a, DM_EOSHIFT, 0, 1, boundary, &plan), DM_ERR_ARG);
        CHECK(std::string(dm_last_error_message()).find("unknown boundary kind " + std::to_string(boundary)) !=
              std::string::npos);
    }
    CHECK(plan == nullptr);
    // A circular shift ignores its boundary field, whatever it holds.
    CHECK_EQ(dmtest_pshift_setup(a, DM_CSHIFT, 0, 1, 12345, &plan), DM_OK);
    dm_array list[1] = {a};
    dm_array out = nullptr;
    dm_array_create(grid, DM_INT32, 1, &n, nullptr, nullptr, &out);
    CHECK_EQ(dm_pshift_execute(plan, &out, list, nullptr), DM_OK);
    dm_pshift_free(&plan);
    dm_array_free(&out);
    dm_array_free(&a);
    dm_grid_free(&grid);
}

DM_TEST(plan_misuse_fails_cleanly) {
    dm_grid grid = nullptr;
    dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid);
    std::int64_t shape[1] = {10};
    dm_array a = nullptr;
    dm_array_create(grid, DM_INT32, 1, shape, nullptr, nullptr, &a);
    dm_shift_spec bad_axis{DM_CSHIFT, 1, 1, DM_BOUNDARY_ZERO};
    dm_pshift plan = nullptr;
    CHECK_EQ(dm_pshift_setup(a, 1, &bad_axis, &plan), DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("axis 1 out of range") != std::string::npos);
    CHECK(plan == nullptr);
    dm_shift_spec scalar{DM_EOSHIFT, 0, 2, DM_BOUNDARY_SCALAR};
    CHECK_EQ(dm_pshift_setup(a, 1, &scalar, &plan), DM_OK);
    dm_array list[1] = {a};
    if (dmtest::mistakes_return()) {
        CHECK_EQ(dm_pshift_execute(plan, list, list, nullptr), DM_ERR_ARG);  // the scalar is missing
        CHECK(std::string(dm_last_error_message()).find("boundary is missing") != std::string::npos);
    }
    CHECK_EQ(dm_pshift_free(&plan), DM_OK);
    if (dmtest::bad_handles_return()) {
        CHECK_EQ(dm_pshift_execute(plan, list, list, nullptr), DM_ERR_STATE);  // used after free
        CHECK(std::string(dm_last_error_message()).find("dm_pshift_setup") != std::string::npos);
    }
    CHECK_EQ(dm_pshift_free(&plan), DM_OK);  // freeing NULL is a no-op
    dm_array_free(&a);
    dm_grid_free(&grid);
}

namespace {

// Every storage element of a periodic 2-d array, ghosts included, holds the global
// element at its position (ghosts wider than the axis wrap around more than once).
void check_periodic_halo(dm_grid grid, const std::int64_t shape[2], const int ghost[2], dm_halo *halo_out,
                         dm_array *array_out) {
    dm_array a = nullptr;
    CHECK_EQ(dm_array_create(grid, DM_INT64, 2, shape, nullptr, ghost, &a), DM_OK);
    const std::int64_t total = shape[0] * shape[1];
    std::vector<std::int64_t> x(static_cast<size_t>(total));
    for (std::int64_t i = 0; i < total; ++i) x[i] = 100 + i;
    CHECK_EQ(dm_array_scatter(a, x.data(), DM_ALL_RANKS), DM_OK);
    dm_halo halo = nullptr;
    CHECK_EQ(dm_halo_setup(a, 1, &halo), DM_OK);
    CHECK_EQ(dm_halo_exchange(halo, a), DM_OK);
    void *data = nullptr;
    std::int64_t ext[2], storage[2];
    int coords[2], dims[2];
    dm_array_local(a, nullptr, ext, nullptr);
    dm_array_storage(a, &data, storage);
    dm_grid_coords(grid, coords);
    dm_grid_dims(grid, dims);
    dm_dist dists[2];
    dm_array_dists(a, dists);
    if (ext[0] > 0 && ext[1] > 0) {
        std::int64_t g0[2];
        for (int axis = 0; axis < 2; ++axis) dm_dist_to_global(dists[axis], shape[axis], dims[axis], coords[axis], 0, &g0[axis]);
        const auto *s = static_cast<const std::int64_t *>(data);
        for (std::int64_t i = 0; i < storage[0]; ++i)
            for (std::int64_t j = 0; j < storage[1]; ++j) {
                const std::int64_t gi = ((g0[0] + i - ghost[0]) % shape[0] + shape[0]) % shape[0];
                const std::int64_t gj = ((g0[1] + j - ghost[1]) % shape[1] + shape[1]) % shape[1];
                CHECK_EQ(s[i * storage[1] + j], x[gi * shape[1] + gj]);
            }
    }
    *halo_out = halo;
    *array_out = a;
}

}  // namespace

DM_TEST(halo_fills_periodic_faces_through_the_c_api) {
    dm_grid grid = nullptr;
    int periods[2] = {1, 1};
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, periods, DM_ORDER_NEWS, &grid), DM_OK);
    dm_halo wide_halo = nullptr;
    dm_array wide = nullptr;
    const std::int64_t small[2] = {2, 3};
    const int wide_ghost[2] = {5, 7};
    check_periodic_halo(grid, small, wide_ghost, &wide_halo, &wide);
    dm_halo_free(&wide_halo);
    dm_array_free(&wide);
    const std::int64_t shape[2] = {6, 5};
    const int ghost[2] = {1, 1};
    dm_halo halo = nullptr;
    dm_array a = nullptr;
    check_periodic_halo(grid, shape, ghost, &halo, &a);
    CHECK_EQ(dm_halo_free(&halo), DM_OK);
    CHECK(halo == nullptr);
    if (dmtest::bad_handles_return()) CHECK_EQ(dm_halo_exchange(halo, a), DM_ERR_STATE);
    dm_array_free(&a);
    dm_grid_free(&grid);
}
