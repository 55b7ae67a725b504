// Handles and ranks that disagree, through the C API: a freed or never created handle
// is recognised (DM_ERR_STATE) and never read (the sanitized run would report a read
// of freed memory); a NULL output on one rank of a collective create or setup fails on
// every rank alike; in checked mode a mistake on one rank of a hot path (execute,
// exchange) is the same error on every rank. The cases that end the job by design are
// in abort_on_one_rank.c.
#include "harness.hpp"

#include <datamotion/datamotion.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace {

bool last_rank() { return dmtest::world_rank() == dmtest::world_size() - 1; }

// `status` on every rank, `text` in the message, and the same message everywhere.
void expect_everywhere(int status, int expected, const char *text) {
    CHECK_EQ(status, expected);
    const std::string message = dm_last_error_message();
    if (message.find(text) == std::string::npos) dmtest::report(__FILE__, __LINE__, message + " lacks " + text);
    const std::int64_t mine = static_cast<std::int64_t>(std::hash<std::string>{}(message) >> 1);
    std::int64_t low = 0, high = 0;
    MPI_Allreduce(&mine, &low, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&mine, &high, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    if (low != high) dmtest::report(__FILE__, __LINE__, "ranks disagree on the message: " + message);
}

void expect_stale(int status, const char *kind) {
    CHECK_EQ(status, DM_ERR_STATE);
    const std::string message = dm_last_error_message();
    if (message.find(std::string(kind) + " handle is not a live handle") == std::string::npos)
        dmtest::report(__FILE__, __LINE__, "unexpected message: " + message);
}

struct Arrays {
    dm_grid grid = nullptr;
    dm_array a = nullptr, b = nullptr, other = nullptr;  // other: a different shape
    Arrays() {
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
        const std::int64_t n = 11, m = 7;
        const int ghost = 1;
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 1, &n, nullptr, &ghost, &a), DM_OK);
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 1, &n, nullptr, &ghost, &b), DM_OK);
        CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 1, &m, nullptr, &ghost, &other), DM_OK);
    }
    ~Arrays() {
        for (dm_array *x : {&a, &b, &other}) dm_array_free(x);
        dm_grid_free(&grid);
    }
};

}  // namespace

DM_TEST(freed_handles_are_recognised_not_read) {
    Arrays s;
    // An array, its borrowed grid, and copies of both kept after the free.
    dm_array array = nullptr, copy = nullptr;
    const std::int64_t n = 5;
    CHECK_EQ(dm_array_create(s.grid, DM_INT32, 1, &n, nullptr, nullptr, &array), DM_OK);
    copy = array;
    dm_grid borrowed = nullptr;
    CHECK_EQ(dm_array_grid(array, &borrowed), DM_OK);
    int ndims = 0;
    CHECK_EQ(dm_grid_ndims(borrowed, &ndims), DM_OK);  // valid while the array lives
    CHECK_EQ(ndims, 1);
    CHECK_EQ(dm_array_free(&array), DM_OK);
    CHECK(array == nullptr);
    expect_stale(dm_array_ndims(copy, &ndims), "array");
    expect_stale(dm_grid_ndims(borrowed, &ndims), "grid");
    expect_stale(dm_array_free(&copy), "array");  // a second free through the copy

    dm_grid grid = nullptr;
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
    dm_grid grid_copy = grid;
    CHECK_EQ(dm_grid_free(&grid), DM_OK);
    expect_stale(dm_grid_ndims(grid_copy, &ndims), "grid");
    expect_stale(dm_grid_free(&grid_copy), "grid");

    const dm_shift_spec spec{DM_CSHIFT, 0, 1, DM_BOUNDARY_ZERO};
    dm_pshift pshift = nullptr;
    CHECK_EQ(dm_pshift_setup(s.a, 1, &spec, &pshift), DM_OK);
    dm_pshift pshift_copy = pshift;
    CHECK_EQ(dm_pshift_free(&pshift), DM_OK);
    int nshifts = 0;
    expect_stale(dm_pshift_nshifts(pshift_copy, &nshifts), "pshift plan");
    expect_stale(dm_pshift_free(&pshift_copy), "pshift plan");

    dm_halo halo = nullptr;
    CHECK_EQ(dm_halo_setup(s.a, 0, &halo), DM_OK);
    dm_halo halo_copy = halo;
    CHECK_EQ(dm_halo_free(&halo), DM_OK);
    expect_stale(dm_halo_volume(halo_copy, nullptr, nullptr, nullptr, nullptr), "halo plan");
    expect_stale(dm_halo_free(&halo_copy), "halo plan");

    dm_redist redist = nullptr;
    CHECK_EQ(dm_redist_setup(s.a, s.b, DM_REDIST_AUTO, &redist), DM_OK);
    dm_redist redist_copy = redist;
    CHECK_EQ(dm_redist_free(&redist), DM_OK);
    dm_redist_method method;
    expect_stale(dm_redist_method_used(redist_copy, &method), "redist plan");
    expect_stale(dm_redist_free(&redist_copy), "redist plan");
}

DM_TEST(never_created_handles_are_recognised_not_read) {
    // Addresses that were never handles: recognised from the table, not dereferenced.
    double not_a_handle[4] = {};
    int ndims = 0;
    expect_stale(dm_array_ndims(reinterpret_cast<dm_array>(not_a_handle), &ndims), "array");
    expect_stale(dm_grid_ndims(reinterpret_cast<dm_grid>(not_a_handle), &ndims), "grid");
    Arrays s;
    // A handle of one kind passed as another.
    expect_stale(dm_grid_ndims(reinterpret_cast<dm_grid>(s.a), &ndims), "grid");
    CHECK_EQ(dm_array_ndims(nullptr, &ndims), DM_ERR_STATE);
}

DM_TEST(a_null_output_on_one_rank_fails_everywhere) {
    Arrays s;
    const std::int64_t n = 9;
    dm_array array = nullptr;
    expect_everywhere(dm_array_create(s.grid, DM_INT32, 1, &n, nullptr, nullptr, last_rank() ? nullptr : &array),
                      DM_ERR_ARG, "dm_array_create: array is NULL");
    CHECK(array == nullptr);
    const dm_shift_spec spec{DM_CSHIFT, 0, 1, DM_BOUNDARY_ZERO};
    dm_pshift pshift = nullptr;
    expect_everywhere(dm_pshift_setup(s.a, 1, &spec, last_rank() ? nullptr : &pshift), DM_ERR_ARG,
                      "dm_pshift_setup: plan is NULL");
    CHECK(pshift == nullptr);
    dm_halo halo = nullptr;
    expect_everywhere(dm_halo_setup(s.a, 0, last_rank() ? nullptr : &halo), DM_ERR_ARG, "dm_halo_setup: plan is NULL");
    CHECK(halo == nullptr);
    dm_redist redist = nullptr;
    expect_everywhere(dm_redist_setup(s.a, s.b, DM_REDIST_AUTO, last_rank() ? nullptr : &redist), DM_ERR_ARG,
                      "dm_redist_setup: plan is NULL");
    CHECK(redist == nullptr);
    expect_everywhere(dm_redist_setup_groups(MPI_COMM_WORLD, s.a, s.b, DM_REDIST_AUTO, last_rank() ? nullptr : &redist),
                      DM_ERR_ARG, "dm_redist_setup_groups: plan is NULL");
    dm_grid grid = nullptr;
    expect_everywhere(dm_grid_create(MPI_COMM_WORLD, 1, nullptr, nullptr, DM_ORDER_NEWS, last_rank() ? nullptr : &grid),
                      DM_ERR_ARG, "dm_grid_create: grid is NULL");
    CHECK(grid == nullptr);
    // A freed destination handle on one rank of a setup whose source names the grid.
    dm_array gone = nullptr;
    CHECK_EQ(dm_array_create(s.grid, DM_FLOAT64, 1, &n, nullptr, nullptr, &gone), DM_OK);
    dm_array stale = gone;
    dm_array_free(&gone);
    expect_everywhere(dm_redist_setup(s.a, last_rank() ? stale : s.b, DM_REDIST_AUTO, &redist), DM_ERR_STATE,
                      "array handle is not a live handle");
    CHECK(redist == nullptr);
}

DM_TEST(hot_path_mistakes_on_one_rank_fail_everywhere_in_checked_mode) {
    if (!dmtest::mistakes_return()) return;  // they end the job: abort_on_one_rank.c
    Arrays s;
    const dm_shift_spec spec{DM_CSHIFT, 0, 3, DM_BOUNDARY_ZERO};
    dm_pshift pshift = nullptr;
    CHECK_EQ(dm_pshift_setup(s.a, 1, &spec, &pshift), DM_OK);
    dm_array dst[1] = {s.b}, src[1] = {last_rank() ? s.other : s.a};
    expect_everywhere(dm_pshift_execute(pshift, dst, src, nullptr), DM_ERR_ARG, "differs from the prototype");
    src[0] = last_rank() ? nullptr : s.a;
    expect_everywhere(dm_pshift_execute(pshift, dst, src, nullptr), DM_ERR_STATE, "array handle is NULL");
    src[0] = s.a;
    CHECK_EQ(dm_pshift_execute(pshift, dst, src, nullptr), DM_OK);  // and it still works
    dm_pshift_free(&pshift);

    dm_halo halo = nullptr;
    CHECK_EQ(dm_halo_setup(s.a, 0, &halo), DM_OK);
    expect_everywhere(dm_halo_exchange(halo, last_rank() ? s.other : s.a), DM_ERR_ARG, "differs from the prototype");
    expect_everywhere(dm_halo_exchange(halo, last_rank() ? nullptr : s.a), DM_ERR_STATE, "array handle is NULL");
    CHECK_EQ(dm_halo_exchange(halo, s.a), DM_OK);
    dm_halo_free(&halo);

    dm_redist redist = nullptr;
    CHECK_EQ(dm_redist_setup(s.a, s.b, DM_REDIST_AUTO, &redist), DM_OK);
    expect_everywhere(dm_redist_execute(redist, s.a, last_rank() ? s.a : s.b), DM_ERR_ARG, "must be different arrays");
    CHECK_EQ(dm_redist_execute(redist, s.a, s.b), DM_OK);
    dm_redist_free(&redist);
}
