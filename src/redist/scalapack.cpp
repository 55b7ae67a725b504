// ScaLAPACK-style submatrix copies (p?gemr2d) on redistribution plans, with
// process grids described by contexts in place of BLACS.
#include <datamotion/redist.h>

#include "core/checked.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
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

// What every rank must know of one matrix, whether or not it is on its grid:
// M, N, MB, NB, RSRC, CSRC, the grid extents and its ranks.
std::vector<std::int64_t> description(const int *desc, bool member) {
    if (!member) return {};
    const Context c = context_of(desc[kCtxt]);
    std::vector<std::int64_t> d = {desc[kM], desc[kN], desc[kMb], desc[kNb], desc[kRsrc], desc[kCsrc], c.nprow,
                                   c.npcol};
    d.insert(d.end(), c.ranks.begin(), c.ranks.end());
    return d;
}

// One matrix as a redistribution side; axes (column, row) so that both sides
// enumerate elements in column-major order, the order of their storage.
Side side_of(const std::vector<std::int64_t> &d, const int *desc, int first_row, int first_col, int me,
             std::size_t elsize) {
    const int nprow = static_cast<int>(d[6]), npcol = static_cast<int>(d[7]);
    Side s;
    s.maps = {layout::AxisMap(dm_dist_block_cyclic(d[3], static_cast<int>(d[5])), d[1], npcol),
              layout::AxisMap(dm_dist_block_cyclic(d[2], static_cast<int>(d[4])), d[0], nprow)};
    s.offset = {first_col - 1, first_row - 1};
    s.dims = {npcol, nprow};
    s.ranks.resize(static_cast<std::size_t>(nprow) * npcol);
    for (int row = 0; row < nprow; ++row)
        for (int col = 0; col < npcol; ++col) {
            const int rank = static_cast<int>(d[8 + static_cast<std::size_t>(row) * npcol + col]);
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

void check_matrix(const std::vector<std::int64_t> &d, const int *desc, bool member, int rows, int cols, int first_row,
                  int first_col, const Side &side, const void *data, const char *which) {
    const std::int64_t M = d[0], N = d[1];
    if (first_row < 1 || first_col < 1 || first_row - 1 + std::int64_t(rows) > M ||
        first_col - 1 + std::int64_t(cols) > N)
        fail(DM_ERR_ARG, "gemr2d: the ", rows, " x ", cols, " submatrix at (", first_row, ", ", first_col,
             ") does not fit in ", which, " (", M, " x ", N, ")");
    if (!member) return;
    if (desc[kDtype] != 1) fail(DM_ERR_ARG, "gemr2d: ", which, " is not a dense matrix (DTYPE ", desc[kDtype], ")");
    const std::int64_t local_rows = side.maps[1].extent(side.coords[1]), local_cols = side.maps[0].extent(side.coords[0]);
    if (desc[kLld] < std::max<std::int64_t>(1, local_rows))
        fail(DM_ERR_ARG, "gemr2d: LLD ", desc[kLld], " of ", which, " is less than its local rows (", local_rows, ")");
    if (!data && local_rows > 0 && local_cols > 0) fail(DM_ERR_ARG, "gemr2d: ", which, " is NULL");
}

// dtype_code: a dm_dtype value, taken as an integer so that any value is checked.
void gemr2d(int dtype_code, int m, int n, const void *a, int ia, int ja, const int *desca, void *b, int ib, int jb,
            const int *descb, MPI_Comm comm) {
    require_mpi_initialized();
    int me = 0;
    check_mpi(MPI_Comm_rank(comm, &me), "MPI_Comm_rank");
    std::vector<std::int64_t> da, db;
    std::size_t elsize = 0;
    dm_dtype dtype = DM_FLOAT64;
    collective(comm, [&] {
        require_pointer(desca, "gemr2d: desca");
        require_pointer(descb, "gemr2d: descb");
        dtype = checked_dtype(dtype_code);
        elsize = dtype_size(dtype);
        if (m < 0 || n < 0) fail(DM_ERR_ARG, "gemr2d: m and n must be non-negative (", m, ", ", n, ")");
    });
    require_same(comm, {dtype, m, n, ia, ja, ib, jb}, "gemr2d: dtype, m, n, ia, ja, ib, jb");
    const bool in_a = desca[kCtxt] >= 0, in_b = descb[kCtxt] >= 0;
    std::vector<std::int64_t> mine_a, mine_b;
    collective(comm, [&] {
        mine_a = description(desca, in_a);
        mine_b = description(descb, in_b);
    });
    da = share_description(comm, mine_a, "A");
    db = share_description(comm, mine_b, "B");
    Side sa, sb;
    collective(comm, [&] {
        check_description(da, "A");
        check_description(db, "B");
        sa = side_of(da, desca, ia, ja, me, elsize);
        sb = side_of(db, descb, ib, jb, me, elsize);
        for (auto [member, side, which] : {std::tuple(in_a, &sa, "A"), std::tuple(in_b, &sb, "B")})
            if (member == side->coords.empty())
                fail(DM_ERR_ARG, "gemr2d: rank ", me, member ? " is not on the grid of " : " is on the grid of ", which,
                     member ? " but passes its context" : " but passes CTXT -1");
        check_matrix(da, desca, in_a, m, n, ia, ja, sa, a, "A");
        check_matrix(db, descb, in_b, m, n, ib, jb, sb, b, "B");
    });
    if (m == 0 || n == 0) return;
    // A plan depends on the shared descriptions, the arguments and this rank's
    // leading dimensions; programs repeat the same copy, so plans are cached on
    // the communicator. Every rank must agree to reuse (one allreduce).
    std::vector<std::int64_t> key = {dtype, m, n, ia, ja, ib, jb, in_a ? desca[kLld] : -1, in_b ? descb[kLld] : -1};
    key.insert(key.end(), da.begin(), da.end());
    key.push_back(-2);  // separates the two descriptions
    key.insert(key.end(), db.begin(), db.end());
    PlanCache &cache = cache_of(comm);
    std::shared_ptr<const RedistPlan> plan = cache.find(key);
    int hit = plan != nullptr, all_hit = 0;
    check_mpi(MPI_Allreduce(&hit, &all_hit, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (!all_hit) {
        plan = std::make_shared<const RedistPlan>(comm, sa, sb, std::vector<std::int64_t>{n, m}, dtype, DM_REDIST_AUTO);
        cache.insert(std::move(key), plan);
    }
    plan->execute(a, b);
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

int dm_redist_gemr2d(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib,
                     int jb, const int descb[9], MPI_Comm comm) {
    return dm::c_boundary(
        __func__, [&] { dm::redist::gemr2d(dm::enum_value(dtype), m, n, a, ia, ja, desca, b, ib, jb, descb, comm); });
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
