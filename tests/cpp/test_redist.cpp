// Redistribution through the C API: random layouts, every method, round trips
// checked element for element against the global array.
#include "c_enums.h"
#include "harness.hpp"

#include "redist/plan.hpp"

#include <datamotion/datamotion.h>

#include <algorithm>
#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
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
    CHECK(std::string(dm_last_error_message()).find("shapes differ: source (10,), destination (11,)") !=
          std::string::npos);
    CHECK_EQ(dm_redist_setup(a, c, DM_REDIST_AUTO, &plan), DM_ERR_TYPE);
    CHECK(std::string(dm_last_error_message()).find("source is float64 but destination is int32") != std::string::npos);
    for (int method : {17, -1, 1 << 30}) {  // passed as a C caller may
        CHECK_EQ(dmtest_redist_setup(a, d, method, &plan), DM_ERR_ARG);
        CHECK(std::string(dm_last_error_message()).find("unknown method " + std::to_string(method)) != std::string::npos);
    }
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
    if (dmtest::mistakes_return()) {
        CHECK_EQ(dm_redist_execute(plan, d, a), DM_ERR_ARG);  // layouts swapped
        CHECK(std::string(dm_last_error_message())
                  .find("source's layout is not the planned one: distribution (Block(),) expected, (Cyclic(),) given") !=
              std::string::npos);
        CHECK_EQ(dm_redist_execute(plan, a, a), DM_ERR_ARG);
    }
    CHECK_EQ(dm_redist_free(&plan), DM_OK);
    if (dmtest::bad_handles_return()) CHECK_EQ(dm_redist_execute(plan, a, d), DM_ERR_STATE);
    for (dm_array *x : {&a, &b, &c, &d, &e, &f}) dm_array_free(x);
    dm_grid_free(&grid);
}

namespace {

// The local column-major storage of a ScaLAPACK matrix on (myrow, mycol), filled
// from the global value function (or `fill` everywhere when value is null).
template <class T, class Value>
std::vector<T> local_matrix(const int desc[9], int myrow, int mycol, int nprow, int npcol, Value value) {
    const std::int64_t rows = dm_numroc(desc[2], desc[4], myrow, desc[6], nprow);
    const std::int64_t cols = dm_numroc(desc[3], desc[5], mycol, desc[7], npcol);
    std::vector<T> local(static_cast<size_t>(std::max<std::int64_t>(1, desc[8] * cols)));
    for (std::int64_t j = 0; j < cols; ++j)
        for (std::int64_t i = 0; i < rows; ++i) {
            std::int64_t gi = 0, gj = 0;
            dm_dist_to_global(dm_dist_block_cyclic(desc[4], desc[6]), desc[2], nprow, myrow, i, &gi);
            dm_dist_to_global(dm_dist_block_cyclic(desc[5], desc[7]), desc[3], npcol, mycol, j, &gj);
            local[static_cast<size_t>(j * desc[8] + i)] = value(gi, gj);
        }
    return local;
}

}  // namespace

namespace {

// A process grid on a random group of ranks (sizes 1 to P, any order) and a
// random M x N matrix descriptor on it, as this rank sees it.
struct GridMatrix {
    int desc[9] = {1, -1, 0, 0, 1, 1, 0, 0, 1};
    int coords[2] = {-1, -1}, dims[2] = {0, 0};
    bool member() const { return coords[0] >= 0; }
    std::int64_t rows() const { return member() ? dm_numroc(desc[2], desc[4], coords[0], desc[6], dims[0]) : 0; }
    template <class T, class Value>
    std::vector<T> local(Value value) const {
        return member() ? local_matrix<T>(desc, coords[0], coords[1], dims[0], dims[1], value) : std::vector<T>{};
    }
};

GridMatrix random_grid_matrix(int M, int N) {
    const int P = dmtest::world_size(), me = dmtest::world_rank();
    const int ranks_used = draw(1, P), first = draw(0, P - ranks_used);
    int rows = 1;
    for (int d = 1; d <= ranks_used; ++d)
        if (ranks_used % d == 0 && draw(0, 1)) rows = d;
    std::vector<int> ranks(static_cast<size_t>(ranks_used));
    for (int i = 0; i < ranks_used; ++i) ranks[i] = first + i;
    if (draw(0, 1)) std::reverse(ranks.begin(), ranks.end());  // any order of the ranks on the grid
    int ctxt = -1;
    CHECK_EQ(dm_redist_context(rows, ranks_used / rows, ranks.data(), &ctxt), DM_OK);
    GridMatrix g;
    dm_redist_context_coords(ctxt, me, &g.dims[0], &g.dims[1], &g.coords[0], &g.coords[1]);
    const int mb = draw(1, 5), nb = draw(1, 5), rsrc = draw(0, g.dims[0] - 1), csrc = draw(0, g.dims[1] - 1);
    const std::int64_t local_rows = g.member() ? dm_numroc(M, mb, g.coords[0], rsrc, g.dims[0]) : 0;
    const int lld = static_cast<int>(std::max<std::int64_t>(1, local_rows)) + draw(0, 2);
    if (g.member())
        CHECK_EQ(dm_descinit(g.desc, M, N, mb, nb, rsrc, csrc, ctxt, g.dims[0], g.dims[1], g.coords[0], lld), DM_OK);
    return g;
}

// Whether B's owned rows equal `expected` (padding below them is not B's).
template <class T>
bool same_owned(const GridMatrix &g, const std::vector<T> &b, const std::vector<T> &expected) {
    for (size_t k = 0; k < b.size(); ++k)
        if (static_cast<std::int64_t>(k % g.desc[8]) < g.rows() && !(b[k] == expected[k])) return false;
    return true;
}

template <class T>
T *data_or_null(std::vector<T> &v) {
    return v.empty() ? nullptr : v.data();
}

}  // namespace

DM_TEST(gemr2d_copies_submatrices_between_grids_and_groups) {
    for (int trial = 0; trial < 30; ++trial) {
        const int M = draw(1, 30), N = draw(1, 30), m = draw(0, M), n = draw(0, N);
        const int ia = draw(1, M - m + 1), ja = draw(1, N - n + 1);
        const int Mdst = draw(m, M + 8), Ndst = draw(n, N + 8);  // B holds the submatrix
        const int ib = draw(1, Mdst - m + 1), jb = draw(1, Ndst - n + 1);
        const GridMatrix ga = random_grid_matrix(M, N), gb = random_grid_matrix(Mdst, Ndst);
        auto a_value = [](std::int64_t i, std::int64_t j) { return static_cast<double>(i * 1000 + j); };
        std::vector<double> a = ga.local<double>(a_value), b = gb.local<double>([](std::int64_t, std::int64_t) { return -1.0; });
        // Twice: the second call reuses the cached plan, with new data in A.
        for (double &v : a) v = -v;
        CHECK_EQ(dm_redist_pgemr2d(m, n, data_or_null(a), ia, ja, ga.desc, data_or_null(b), ib, jb, gb.desc,
                                   MPI_COMM_WORLD),
                 DM_OK);
        for (double &v : a) v = -v;
        CHECK_EQ(dm_redist_pgemr2d(m, n, data_or_null(a), ia, ja, ga.desc, data_or_null(b), ib, jb, gb.desc,
                                   MPI_COMM_WORLD),
                 DM_OK);
        const auto expected = gb.local<double>([&](std::int64_t i, std::int64_t j) {
            const std::int64_t si = i - (ib - 1), sj = j - (jb - 1);
            if (si < 0 || sj < 0 || si >= m || sj >= n) return -1.0;
            return a_value(si + ia - 1, sj + ja - 1);
        });
        if (!same_owned(gb, b, expected)) dmtest::report(__FILE__, __LINE__, "gemr2d trial " + std::to_string(trial));
    }
}

namespace {

template <class T>
constexpr bool is_complex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// A value of T exact in every type for small integers: complex ones get an
// imaginary part of their own, so that a missing conjugation shows.
template <class T>
T value_of(std::int64_t re, std::int64_t im) {
    if constexpr (is_complex<T>)
        return T(static_cast<typename T::value_type>(re), static_cast<typename T::value_type>(im));
    else
        return static_cast<T>(re);
}

// B = alpha op(A) + beta B over random grids and submatrices, every op, against
// the formula evaluated per element (small integers, exact in every type).
template <class T>
void check_transforms(dm_dtype dtype, const char *name) {
    for (int trial = 0; trial < 24; ++trial) {
        const dm_redist_op op = static_cast<dm_redist_op>(draw(0, 2));
        const bool transposed = op != DM_REDIST_NO_TRANSPOSE;
        const int m = draw(0, 14), n = draw(0, 14);        // B's submatrix
        const int am = transposed ? n : m, an = transposed ? m : n;  // A's
        const int MA = am + draw(0, 6), NA = an + draw(0, 6), ia = draw(1, MA - am + 1), ja = draw(1, NA - an + 1);
        const int MB = m + draw(0, 6), NB = n + draw(0, 6), ib = draw(1, MB - m + 1), jb = draw(1, NB - n + 1);
        const GridMatrix ga = random_grid_matrix(MA, NA), gb = random_grid_matrix(MB, NB);
        const T alpha = value_of<T>(draw(-3, 3), draw(-2, 2)), beta = value_of<T>(draw(0, 1) ? 0 : draw(-2, 2), draw(-2, 2));
        auto a_value = [](std::int64_t i, std::int64_t j) { return value_of<T>(i * 40 + j, j - i); };
        auto b_old = [](std::int64_t i, std::int64_t j) { return value_of<T>(j * 7 - i, i + 2); };
        std::vector<T> a = ga.local<T>(a_value), b = gb.local<T>(b_old);
        CHECK_EQ(dm_redist_transform(dtype, op, m, n, &alpha, data_or_null(a), ia, ja, ga.desc, &beta, data_or_null(b),
                                     ib, jb, gb.desc, MPI_COMM_WORLD),
                 DM_OK);
        const auto expected = gb.local<T>([&](std::int64_t i, std::int64_t j) {
            const std::int64_t si = i - (ib - 1), sj = j - (jb - 1);
            if (si < 0 || sj < 0 || si >= m || sj >= n) return b_old(i, j);
            T x = transposed ? a_value(sj + ia - 1, si + ja - 1) : a_value(si + ia - 1, sj + ja - 1);
            if constexpr (is_complex<T>)
                if (op == DM_REDIST_CONJUGATE_TRANSPOSE) x = std::conj(x);
            return beta == T() ? alpha * x : alpha * x + beta * b_old(i, j);
        });
        if (!same_owned(gb, b, expected))
            dmtest::report(__FILE__, __LINE__, std::string("transform of ") + name + ", trial " + std::to_string(trial) +
                                                   ": op " + std::to_string(op) + ", beta " +
                                                   (beta == T() ? "0" : "not 0") + ", " + std::to_string(m) + " x " +
                                                   std::to_string(n));
    }
}

}  // namespace

DM_TEST(transform_transposes_scales_and_conjugates_between_grids) {
    check_transforms<std::int32_t>(DM_INT32, "int32");
    check_transforms<std::int64_t>(DM_INT64, "int64");
    check_transforms<float>(DM_FLOAT32, "float32");
    check_transforms<double>(DM_FLOAT64, "float64");
    check_transforms<std::complex<float>>(DM_COMPLEX64, "complex64");
    check_transforms<std::complex<double>>(DM_COMPLEX128, "complex128");
    // NULL alpha and beta are 1 and 0: a plain copy; bad ops and bool values fail everywhere.
    const GridMatrix g = random_grid_matrix(6, 5);
    std::vector<double> a = g.local<double>([](std::int64_t i, std::int64_t j) { return double(i + 10 * j); });
    std::vector<double> b = g.local<double>([](std::int64_t, std::int64_t) { return -1.0; });
    CHECK_EQ(dm_redist_transform(DM_FLOAT64, DM_REDIST_NO_TRANSPOSE, 6, 5, nullptr, data_or_null(a), 1, 1, g.desc,
                                 nullptr, data_or_null(b), 1, 1, g.desc, MPI_COMM_WORLD),
             DM_OK);
    CHECK(same_owned(g, b, a));
    CHECK_EQ(dm_redist_transform(DM_FLOAT64, static_cast<dm_redist_op>(7), 6, 5, nullptr, data_or_null(a), 1, 1, g.desc,
                                 nullptr, data_or_null(b), 1, 1, g.desc, MPI_COMM_WORLD),
             DM_ERR_ARG);
    const char one = 1;
    CHECK_EQ(dm_redist_transform(DM_BOOL, DM_REDIST_TRANSPOSE, 5, 5, &one, data_or_null(a), 1, 1, g.desc, nullptr,
                                 data_or_null(b), 1, 1, g.desc, MPI_COMM_WORLD),
             DM_ERR_TYPE);
}

DM_TEST(gemr2d_moves_every_element_type_and_rejects_bad_descriptors) {
    const int P = dmtest::world_size(), me = dmtest::world_rank();
    int ctxt = -1;
    dm_redist_context(1, P, nullptr, &ctxt);
    int desc_a[9], desc_b[9];
    CHECK_EQ(dm_descinit(desc_a, 5, 7, 2, 2, 0, 0, ctxt, 1, P, 0, 5), DM_OK);
    CHECK_EQ(dm_descinit(desc_b, 5, 7, 3, 1, 0, 0, ctxt, 1, P, 0, 5), DM_OK);
    std::vector<std::int64_t> a(5 * 7 * 2, 0), b(5 * 7 * 2, 0);  // room for the widest type
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int64_t>(i) + 1;
    CHECK_EQ(dm_redist_pigemr2d(5, 7, reinterpret_cast<int *>(a.data()), 1, 1, desc_a, reinterpret_cast<int *>(b.data()),
                                1, 1, desc_b, MPI_COMM_WORLD),
             DM_OK);
    CHECK_EQ(dm_redist_psgemr2d(5, 7, reinterpret_cast<float *>(a.data()), 1, 1, desc_a,
                                reinterpret_cast<float *>(b.data()), 1, 1, desc_b, MPI_COMM_WORLD),
             DM_OK);
    CHECK_EQ(dm_redist_pcgemr2d(5, 7, a.data(), 1, 1, desc_a, b.data(), 1, 1, desc_b, MPI_COMM_WORLD), DM_OK);
    CHECK_EQ(dm_redist_pzgemr2d(5, 7, a.data(), 1, 1, desc_a, b.data(), 1, 1, desc_b, MPI_COMM_WORLD), DM_OK);
    // A destination too small for the submatrix.
    CHECK_EQ(dm_redist_pgemr2d(5, 7, reinterpret_cast<double *>(a.data()), 1, 1, desc_a,
                               reinterpret_cast<double *>(b.data()), 2, 1, desc_b, MPI_COMM_WORLD),
             DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("does not fit in B") != std::string::npos);
    // Arguments that differ across ranks.
    if (P > 1)
        CHECK_EQ(dm_redist_pgemr2d(me == 0 ? 4 : 5, 7, reinterpret_cast<double *>(a.data()), 1, 1, desc_a,
                                   reinterpret_cast<double *>(b.data()), 1, 1, desc_b, MPI_COMM_WORLD),
                 DM_ERR_MISMATCH);
    // A descriptor that disagrees across the ranks of its grid, and block size 0.
    int odd[9];
    std::copy(desc_a, desc_a + 9, odd);
    if (me == P - 1) odd[4] = 3;
    if (P > 1)
        CHECK_EQ(dm_redist_pgemr2d(5, 7, reinterpret_cast<double *>(a.data()), 1, 1, odd,
                                   reinterpret_cast<double *>(b.data()), 1, 1, desc_b, MPI_COMM_WORLD),
                 DM_ERR_MISMATCH);
    std::copy(desc_a, desc_a + 9, odd);
    odd[4] = 0;
    CHECK_EQ(dm_redist_pgemr2d(5, 7, reinterpret_cast<double *>(a.data()), 1, 1, odd,
                               reinterpret_cast<double *>(b.data()), 1, 1, desc_b, MPI_COMM_WORLD),
             DM_ERR_ARG);
    CHECK(std::string(dm_last_error_message()).find("inconsistent") != std::string::npos);
    CHECK_EQ(dm_redist_context(0, 1, nullptr, &ctxt), DM_ERR_ARG);
}

namespace {

// A 1-d float64 layout of n elements over the world, planned without storage.
dm::redist::Side layout_of(dm_dist dist, std::int64_t n) {
    const int P = dmtest::world_size();
    dm::redist::Side s;
    s.maps = {dm::layout::AxisMap(dist, n, P)};
    s.offset = {0};
    s.dims = {P};
    for (int r = 0; r < P; ++r) s.ranks.push_back(r);
    s.coords = {dmtest::world_rank()};
    s.byte_strides = {8};
    return s;
}

}  // namespace

// DM_REDIST_AUTO, priced by the exchange model: every message in flight at once
// below the in-flight bound (64 MiB sent by a rank), the phased sendrecv past it.
// Blocks of half a rank's part: a rank sends half or all of it.
DM_TEST(redist_auto_takes_sendrecv_past_the_in_flight_bound) {
    const int P = dmtest::world_size();
    for (const std::int64_t part : {std::int64_t{1} << 10, std::int64_t{1} << 25}) {  // 8 KiB, 256 MiB a rank
        const std::int64_t n = part * P;
        const dm::redist::RedistPlan plan(MPI_COMM_WORLD, layout_of(dm_dist_block(), n),
                                          layout_of(dm_dist_block_cyclic(part / 2, 0), n), {n}, DM_FLOAT64,
                                          DM_REDIST_AUTO);
        const dm_redist_method expected = P > 1 && part > (1 << 20) ? DM_REDIST_SENDRECV : DM_REDIST_NONBLOCKING;
        CHECK_EQ(static_cast<int>(plan.method()), static_cast<int>(expected));
    }
}

