#include "blacs.hpp"

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace dm::scalapack {
namespace {

enum Field { kDtype, kCtxt, kM, kN, kMb, kNb, kRsrc, kCsrc, kLld };
constexpr int kBlacsSystemContext = 0, kBlacsGridCommunicator = 10;  // Cblacs_get's WHAT values

std::int64_t local_extent(int n, int block, int coord, int src, int nprocs) {
    if (n <= 0 || block <= 0 || nprocs <= 0) return 0;
    return dm_numroc(n, block, coord, src, nprocs);
}

}  // namespace

MPI_Comm communicator_of(int ictxt) {
    int handle = -1;
    Cblacs_get(ictxt, kBlacsGridCommunicator, &handle);
    return Cblacs2sys_handle(handle);
}

MPI_Comm every_process() {
    int handle = -1;
    Cblacs_get(0, kBlacsSystemContext, &handle);
    return Cblacs2sys_handle(handle);
}

dm_grid_place place_of(const int *desc) {
    dm_grid_place p{-1, -1, -1, -1};
    if (desc) Cblacs_gridinfo(desc[kCtxt], &p.nprow, &p.npcol, &p.myrow, &p.mycol);
    if (p.myrow < 0 || p.mycol < 0 || p.myrow >= p.nprow || p.mycol >= p.npcol) p = {-1, -1, -1, -1};
    return p;
}

int bad_argument(int rows, int cols, const void *data, int i, int j, const int *desc, const dm_grid_place &p,
                 int position) {
    if (!desc) return position;
    const int d = 100 * position;
    if (desc[kM] < 0) return d + kM + 1;
    if (desc[kN] < 0) return d + kN + 1;
    if (desc[kMb] < 1) return d + kMb + 1;
    if (desc[kNb] < 1) return d + kNb + 1;
    if (desc[kRsrc] < 0 || desc[kRsrc] >= p.nprow) return d + kRsrc + 1;
    if (desc[kCsrc] < 0 || desc[kCsrc] >= p.npcol) return d + kCsrc + 1;
    if (i < 1 || std::int64_t(i) - 1 + rows > desc[kM]) return position - 2;
    if (j < 1 || std::int64_t(j) - 1 + cols > desc[kN]) return position - 1;
    const std::int64_t local_rows = local_extent(desc[kM], desc[kMb], p.myrow, desc[kRsrc], p.nprow);
    const std::int64_t local_cols = local_extent(desc[kN], desc[kNb], p.mycol, desc[kCsrc], p.npcol);
    if (desc[kLld] < local_rows || desc[kLld] < 0) return d + kLld + 1;
    if (!data && local_rows > 0 && local_cols > 0) return position - 3;
    return 0;
}

int agree_arguments(const char *name, int ictxt, MPI_Comm comm, int info, const dm_grid_place &a,
                    const dm_grid_place &b, int offsets[4]) {
    // One allreduce: the first bad argument, and the offsets of A's and B's grids.
    const bool on[4] = {a.myrow >= 0, a.myrow >= 0, b.myrow >= 0, b.myrow >= 0};
    int mine[5] = {info ? info : INT_MAX}, agreed[5];
    for (int k = 0; k < 4; ++k) mine[k + 1] = on[k] ? -offsets[k] : INT_MAX;
    MPI_Allreduce(mine, agreed, 5, MPI_INT, MPI_MIN, comm);
    if (agreed[0] != INT_MAX) {
        if (info) pxerbla_(&ictxt, name, &info, std::strlen(name));
        return agreed[0];
    }
    for (int k = 0; k < 4; ++k)
        if (agreed[k + 1] != INT_MAX) offsets[k] = -agreed[k + 1];
    return 0;
}

void end_on_failure(const char *name, int status, int ictxt, MPI_Comm comm) {
    if (status == DM_OK) return;
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0) std::fprintf(stderr, "%s (datamotion): %s\n", name, dm_last_error_message());
    Cblacs_abort(ictxt, 1);
}

}  // namespace dm::scalapack
