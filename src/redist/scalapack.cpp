// ScaLAPACK-style submatrix copies (p?gemr2d) on redistribution plans, with
// process grids described by contexts in place of BLACS.
#include <datamotion/redist.h>

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "exchange/collective.hpp"
#include "redist/plan.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <utility>
#include <tuple>
#include <vector>

namespace dm::redist {
namespace {

struct Context {
    int nprow, npcol;
    std::vector<int> ranks;  // row-major over the grid
};

std::mutex contexts_lock;
std::vector<Context> &contexts() {
    static std::vector<Context> all;
    return all;
}

Context context_of(int ctxt) {
    std::lock_guard<std::mutex> hold(contexts_lock);
    if (ctxt < 0 || ctxt >= static_cast<int>(contexts().size()))
        fail(DM_ERR_ARG, "gemr2d: context ", ctxt, " was not made by dm_redist_context");
    return contexts()[static_cast<std::size_t>(ctxt)];
}

// Recently used gemr2d plans of one communicator, most recent first; freed with
// the communicator (an MPI attribute), so a plan never outlives its ranks.
class PlanCache {
public:
    std::shared_ptr<const RedistPlan> find(const std::vector<std::int64_t> &key) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                auto plan = it->second;
                entries_.splice(entries_.begin(), entries_, it);
                return plan;
            }
        return nullptr;
    }
    void insert(std::vector<std::int64_t> key, std::shared_ptr<const RedistPlan> plan) {
        for (auto it = entries_.begin(); it != entries_.end(); ++it)
            if (it->first == key) {
                entries_.erase(it);
                break;
            }
        entries_.emplace_front(std::move(key), std::move(plan));
        if (entries_.size() > kCapacity) entries_.pop_back();
    }

private:
    static constexpr std::size_t kCapacity = 16;
    std::list<std::pair<std::vector<std::int64_t>, std::shared_ptr<const RedistPlan>>> entries_;
};

int delete_cache(MPI_Comm, int, void *value, void *) {
    delete static_cast<PlanCache *>(value);
    return MPI_SUCCESS;
}

PlanCache &cache_of(MPI_Comm comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    {
        std::lock_guard<std::mutex> hold(contexts_lock);
        if (keyval == MPI_KEYVAL_INVALID)
            check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_cache, &keyval, nullptr),
                      "MPI_Comm_create_keyval");
    }
    void *value = nullptr;
    int found = 0;
    check_mpi(MPI_Comm_get_attr(comm, keyval, &value, &found), "MPI_Comm_get_attr");
    if (found) return *static_cast<PlanCache *>(value);
    auto *cache = new PlanCache;
    check_mpi(MPI_Comm_set_attr(comm, keyval, cache), "MPI_Comm_set_attr");
    return *cache;
}

enum Field { kDtype, kCtxt, kM, kN, kMb, kNb, kRsrc, kCsrc, kLld };

bool on_grid(const dm_grid_place &p) { return p.myrow >= 0 && p.mycol >= 0; }

// What every rank must know of one matrix, whether or not it is on its grid:
// M, N, MB, NB, RSRC, CSRC and the grid extents (a rank off the grid knows none).
std::vector<std::int64_t> description(const int *desc, const dm_grid_place &place) {
    if (!on_grid(place)) return {};
    if (place.nprow < 1 || place.npcol < 1 || place.myrow >= place.nprow || place.mycol >= place.npcol)
        fail(DM_ERR_ARG, "gemr2d: row ", place.myrow, ", column ", place.mycol, " is not on a ", place.nprow, " x ",
             place.npcol, " grid");
    return {desc[kM], desc[kN], desc[kMb], desc[kNb], desc[kRsrc], desc[kCsrc], place.nprow, place.npcol};
}

// The ranks of comm at each position of the two grids, row-major, from every
// rank's place on them (one allgather): every position held by exactly one rank.
std::pair<std::vector<int>, std::vector<int>> grid_ranks(MPI_Comm comm, const dm_grid_place &pa, const dm_grid_place &pb,
                                                         const std::vector<std::int64_t> &da,
                                                         const std::vector<std::int64_t> &db) {
    int size = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    const std::int64_t mine[4] = {on_grid(pa) ? pa.myrow : -1, on_grid(pa) ? pa.mycol : -1,
                                  on_grid(pb) ? pb.myrow : -1, on_grid(pb) ? pb.mycol : -1};
    std::vector<std::int64_t> places(static_cast<std::size_t>(size) * 4);
    exchange::gather_rows(comm, mine, places.data(), 4);
    std::pair<std::vector<int>, std::vector<int>> ranks;
    collective(comm, [&] {
        for (int g = 0; g < 2; ++g) {
            const std::vector<std::int64_t> &d = g ? db : da;
            const char *which = g ? "B" : "A";
            std::vector<int> &at = g ? ranks.second : ranks.first;
            at.assign(static_cast<std::size_t>(d[6] * d[7]), -1);
            for (int r = 0; r < size; ++r) {
                const std::int64_t row = places[4 * r + 2 * g], col = places[4 * r + 2 * g + 1];
                if (row < 0) continue;
                int &slot = at[static_cast<std::size_t>(row * d[7] + col)];
                if (slot >= 0)
                    fail(DM_ERR_ARG, "gemr2d: ranks ", slot, " and ", r, " both sit at row ", row, ", column ", col,
                         " of the grid of ", which);
                slot = r;
            }
            for (std::size_t i = 0; i < at.size(); ++i)
                if (at[i] < 0)
                    fail(DM_ERR_ARG, "gemr2d: no rank of the communicator sits at row ", i / d[7], ", column ",
                         i % d[7], " of the ", d[6], " x ", d[7], " grid of ", which);
        }
    });
    return ranks;
}

// One matrix as a redistribution side; axes (column, row) so that both sides
// enumerate elements in column-major order, the order of their storage.
Side side_of(const std::vector<std::int64_t> &d, const std::vector<int> &grid, const int *desc, int first_row,
             int first_col, int me, std::size_t elsize) {
    const int nprow = static_cast<int>(d[6]), npcol = static_cast<int>(d[7]);
    Side s;
    s.maps = {layout::AxisMap(dm_dist_block_cyclic(d[3], static_cast<int>(d[5])), d[1], npcol),
              layout::AxisMap(dm_dist_block_cyclic(d[2], static_cast<int>(d[4])), d[0], nprow)};
    s.offset = {first_col - 1, first_row - 1};
    s.dims = {npcol, nprow};
    s.ranks.resize(static_cast<std::size_t>(nprow) * npcol);
    for (int row = 0; row < nprow; ++row)
        for (int col = 0; col < npcol; ++col) {
            const int rank = grid[static_cast<std::size_t>(row) * npcol + col];
            s.ranks[static_cast<std::size_t>(col) * nprow + row] = rank;
            if (rank == me) s.coords = {col, row};
        }
    if (!s.coords.empty()) s.byte_strides = {static_cast<std::int64_t>(desc[kLld]) * static_cast<std::int64_t>(elsize),
                                             static_cast<std::int64_t>(elsize)};
    return s;
}

void check_description(const std::vector<std::int64_t> &d, const char *which) {
    const std::int64_t M = d[0], N = d[1], MB = d[2], NB = d[3], RSRC = d[4], CSRC = d[5], nprow = d[6],
                       npcol = d[7];
    if (M < 0 || N < 0 || MB < 1 || NB < 1 || RSRC < 0 || RSRC >= nprow || CSRC < 0 || CSRC >= npcol)
        fail(DM_ERR_ARG, "gemr2d: the descriptor of ", which, " is inconsistent (M ", M, ", N ", N, ", MB ", MB,
             ", NB ", NB, ", RSRC ", RSRC, ", CSRC ", CSRC, " on a ", nprow, " x ", npcol, " grid)");
}

// DTYPE is not read: ScaLAPACK's p?gemr2d does not read it either (its own tester
// leaves it unset on one rank). An LLD of 0 is enough where a rank holds no rows.
void check_matrix(const std::vector<std::int64_t> &d, const int *desc, bool member, int rows, int cols, int first_row,
                  int first_col, const Side &side, const void *data, const char *which) {
    const std::int64_t M = d[0], N = d[1];
    if (first_row < 1 || first_col < 1 || first_row - 1 + std::int64_t(rows) > M ||
        first_col - 1 + std::int64_t(cols) > N)
        fail(DM_ERR_ARG, "gemr2d: the ", rows, " x ", cols, " submatrix at (", first_row, ", ", first_col,
             ") does not fit in ", which, " (", M, " x ", N, ")");
    if (!member) return;
    const std::int64_t local_rows = side.maps[1].extent(side.coords[1]), local_cols = side.maps[0].extent(side.coords[0]);
    if (desc[kLld] < local_rows || desc[kLld] < 0)
        fail(DM_ERR_ARG, "gemr2d: LLD ", desc[kLld], " of ", which, " is less than its local rows (", local_rows, ")");
    if (!data && local_rows > 0 && local_cols > 0) fail(DM_ERR_ARG, "gemr2d: ", which, " is NULL");
}

// B(ib.., jb..) (m x n) = alpha op(A(ia.., ja..)) + beta B, A m x n (op none) or
// n x m. dtype_code, op_code: dm_dtype and dm_redist_op values, taken as integers
// so that any value is checked.
void transform(int dtype_code, int op_code, const Scale &scale, int m, int n, const void *a, int ia, int ja,
               const int *desca, dm_grid_place pa, void *b, int ib, int jb, const int *descb, dm_grid_place pb,
               MPI_Comm comm) {
    require_mpi_initialized();
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    const bool in_a = on_grid(pa), in_b = on_grid(pb);
    std::size_t elsize = 0;
    dm_dtype dtype = DM_FLOAT64;
    std::vector<std::int64_t> mine_a, mine_b;
    collective(comm, [&] {
        if (in_a) require_pointer(desca, "gemr2d: desca");
        if (in_b) require_pointer(descb, "gemr2d: descb");
        dtype = checked_dtype(dtype_code);
        elsize = dtype_size(dtype);
        if (m < 0 || n < 0) fail(DM_ERR_ARG, "gemr2d: m and n must be non-negative (", m, ", ", n, ")");
        if (op_code < DM_REDIST_NO_TRANSPOSE || op_code > DM_REDIST_CONJUGATE_TRANSPOSE)
            fail(DM_ERR_ARG, "gemr2d: unknown transposition ", op_code);
        if (dtype == DM_BOOL && !scale.none()) fail(DM_ERR_TYPE, "gemr2d: bool values cannot be scaled");
        mine_a = description(desca, pa);
        mine_b = description(descb, pb);
    });
    require_same(comm, {dtype, op_code, m, n, ia, ja, ib, jb, scale.alpha == std::complex<double>(0.0)},
                 "gemr2d: dtype, transposition, m, n, ia, ja, ib, jb, whether alpha is 0");
    const bool transposed = op_code != DM_REDIST_NO_TRANSPOSE;
    const int a_rows = transposed ? n : m, a_cols = transposed ? m : n;  // of A's submatrix
    const std::vector<std::int64_t> da = share_description(comm, mine_a, "A"), db = share_description(comm, mine_b, "B");
    collective(comm, [&] {
        check_description(da, "A");
        check_description(db, "B");
    });
    const std::pair<std::vector<int>, std::vector<int>> grids = grid_ranks(comm, pa, pb, da, db);
    const std::vector<int> &grid_a = grids.first, &grid_b = grids.second;  // lambdas cannot capture bindings
    Side sa, sb;
    collective(comm, [&] {
        sa = side_of(da, grid_a, desca, ia, ja, me, elsize);
        sb = side_of(db, grid_b, descb, ib, jb, me, elsize);
        check_matrix(da, desca, in_a, a_rows, a_cols, ia, ja, sa, a, "A");
        check_matrix(db, descb, in_b, m, n, ib, jb, sb, b, "B");
    });
    if (m == 0 || n == 0) return;
    if (scale.alpha == std::complex<double>(0.0)) {  // A is not read (as PBLAS): B = beta B
        if (in_b) apply(window_of(sb.maps, sb.coords, sb.offset, {n, m}, sb.byte_strides, 0, dtype), scale, b, b);
        return;
    }
    // B's axes are (column, row); B(i, j) = A(j, i) pairs them with A's (row, column).
    if (transposed) sa = sa.transposed();
    // A plan depends on the shared descriptions, the grids, the arguments and this
    // rank's leading dimensions; programs repeat the same copy, so plans are cached
    // on the communicator. Every rank must agree to reuse (one allreduce).
    std::vector<std::int64_t> key = {dtype, transposed, m, n, ia, ja, ib, jb, in_a ? desca[kLld] : -1,
                                     in_b ? descb[kLld] : -1};
    for (const auto *part : {&da, &db}) {
        key.insert(key.end(), part->begin(), part->end());
        key.push_back(-2);  // separates the parts
    }
    key.insert(key.end(), grid_a.begin(), grid_a.end());
    key.push_back(-2);
    key.insert(key.end(), grid_b.begin(), grid_b.end());
    PlanCache &cache = cache_of(comm);
    std::shared_ptr<const RedistPlan> plan = cache.find(key);
    int hit = plan != nullptr, all_hit = 0;
    check_mpi(MPI_Allreduce(&hit, &all_hit, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (!all_hit) {
        plan = std::make_shared<const RedistPlan>(comm, sa, sb, std::vector<std::int64_t>{n, m}, dtype, DM_REDIST_AUTO);
        cache.insert(std::move(key), plan);
    }
    Scale values = scale;
    values.conjugate = op_code == DM_REDIST_CONJUGATE_TRANSPOSE && (dtype == DM_COMPLEX64 || dtype == DM_COMPLEX128);
    plan->execute(a, b, values);
}

// Where this rank of comm sits on the grid a dm_redist_context describes: off it
// where the descriptor's CTXT is -1 (a rank of the grid that says so leaves its
// position empty, which grid_ranks reports).
dm_grid_place place_on(const int *desc, int me, const char *which) {
    dm_grid_place p{-1, -1, -1, -1};
    if (!desc || desc[kCtxt] < 0) return p;
    const Context c = context_of(desc[kCtxt]);
    p.nprow = c.nprow, p.npcol = c.npcol;
    for (std::size_t i = 0; i < c.ranks.size(); ++i)
        if (c.ranks[i] == me) p.myrow = static_cast<int>(i) / c.npcol, p.mycol = static_cast<int>(i) % c.npcol;
    if (p.myrow < 0) fail(DM_ERR_ARG, "gemr2d: rank ", me, " is not on the grid of ", which, " but passes its context");
    return p;
}

// alpha and beta as the C API takes them: values of the element type, or NULL for
// 1 and 0.
Scale scale_of(dm_dtype dtype, const void *alpha, const void *beta) {
    const dm_dtype type = checked_dtype(enum_value(dtype));
    Scale scale;
    scale.alpha = number_at(type, alpha, 1.0);
    scale.beta = number_at(type, beta, 0.0);
    return scale;
}

}  // namespace
}  // namespace dm::redist

extern "C" {

int dm_redist_context(int nprow, int npcol, const int ranks[], int *ctxt) {
    return dm::c_boundary(__func__, [&] {
        dm::require_pointer(ctxt, "dm_redist_context: ctxt");
        if (nprow < 1 || npcol < 1) dm::fail(DM_ERR_ARG, "dm_redist_context: grid extents must be positive");
        dm::redist::Context c{nprow, npcol, {}};
        for (int i = 0; i < nprow * npcol; ++i) {
            c.ranks.push_back(ranks ? ranks[i] : i);
            if (c.ranks.back() < 0) dm::fail(DM_ERR_ARG, "dm_redist_context: rank ", c.ranks.back(), " is negative");
        }
        auto sorted = c.ranks;
        std::sort(sorted.begin(), sorted.end());
        if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
            dm::fail(DM_ERR_ARG, "dm_redist_context: a rank appears twice on the grid");
        std::lock_guard<std::mutex> hold(dm::redist::contexts_lock);
        dm::redist::contexts().push_back(std::move(c));
        *ctxt = static_cast<int>(dm::redist::contexts().size() - 1);
    });
}

int dm_redist_context_coords(int ctxt, int rank, int *nprow, int *npcol, int *myrow, int *mycol) {
    return dm::c_boundary(__func__, [&] {
        const auto c = dm::redist::context_of(ctxt);
        int row = -1, col = -1;
        for (std::size_t i = 0; i < c.ranks.size(); ++i)
            if (c.ranks[i] == rank) row = static_cast<int>(i) / c.npcol, col = static_cast<int>(i) % c.npcol;
        if (nprow) *nprow = c.nprow;
        if (npcol) *npcol = c.npcol;
        if (myrow) *myrow = row;
        if (mycol) *mycol = col;
    });
}

int dm_redist_gemr2d_placed(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9],
                            dm_grid_place a_place, void *b, int ib, int jb, const int descb[9], dm_grid_place b_place,
                            MPI_Comm comm) {
    return dm_redist_transform_placed(dtype, DM_REDIST_NO_TRANSPOSE, m, n, nullptr, a, ia, ja, desca, a_place, nullptr, b,
                                      ib, jb, descb, b_place, comm);
}

int dm_redist_gemr2d(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib,
                     int jb, const int descb[9], MPI_Comm comm) {
    return dm_redist_transform(dtype, DM_REDIST_NO_TRANSPOSE, m, n, nullptr, a, ia, ja, desca, nullptr, b, ib, jb, descb,
                               comm);
}

int dm_redist_transform_placed(dm_dtype dtype, dm_redist_op op, int m, int n, const void *alpha, const void *a, int ia,
                               int ja, const int desca[9], dm_grid_place a_place, const void *beta, void *b, int ib,
                               int jb, const int descb[9], dm_grid_place b_place, MPI_Comm comm) {
    return dm::c_boundary(__func__, [&] {
        dm::redist::Scale scale;
        dm::collective(comm, [&] {
            scale = dm::redist::scale_of(dtype, alpha, beta);
        });
        dm::redist::transform(dm::enum_value(dtype), dm::enum_value(op), scale, m, n, a, ia, ja, desca, a_place, b, ib,
                              jb, descb, b_place, comm);
    });
}

int dm_redist_transform(dm_dtype dtype, dm_redist_op op, int m, int n, const void *alpha, const void *a, int ia, int ja,
                        const int desca[9], const void *beta, void *b, int ib, int jb, const int descb[9],
                        MPI_Comm comm) {
    return dm::c_boundary(__func__, [&] {
        dm::require_mpi_initialized();
        int me = 0;
        dm::check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
        dm_grid_place pa{}, pb{};
        dm::redist::Scale scale;
        dm::collective(comm, [&] {
            pa = dm::redist::place_on(desca, me, "A");
            pb = dm::redist::place_on(descb, me, "B");
            scale = dm::redist::scale_of(dtype, alpha, beta);
        });
        dm::redist::transform(dm::enum_value(dtype), dm::enum_value(op), scale, m, n, a, ia, ja, desca, pa, b, ib, jb,
                              descb, pb, comm);
    });
}

int dm_redist_pgemr2d(int m, int n, const double *a, int ia, int ja, const int desca[9], double *b, int ib, int jb,
                      const int descb[9], MPI_Comm comm) {
    return dm_redist_gemr2d(DM_FLOAT64, m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
}

int dm_redist_psgemr2d(int m, int n, const float *a, int ia, int ja, const int desca[9], float *b, int ib, int jb,
                       const int descb[9], MPI_Comm comm) {
    return dm_redist_gemr2d(DM_FLOAT32, m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
}

int dm_redist_pcgemr2d(int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib, int jb,
                       const int descb[9], MPI_Comm comm) {
    return dm_redist_gemr2d(DM_COMPLEX64, m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
}

int dm_redist_pzgemr2d(int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib, int jb,
                       const int descb[9], MPI_Comm comm) {
    return dm_redist_gemr2d(DM_COMPLEX128, m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
}

int dm_redist_pigemr2d(int m, int n, const int *a, int ia, int ja, const int desca[9], int *b, int ib, int jb,
                       const int descb[9], MPI_Comm comm) {
    static_assert(sizeof(int) == 4, "pigemr2d moves 32-bit integers");
    return dm_redist_gemr2d(DM_INT32, m, n, a, ia, ja, desca, b, ib, jb, descb, comm);
}

}  // extern "C"
