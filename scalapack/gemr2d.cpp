// ScaLAPACK's p?gemr2d entry points over datamotion's redistribution: the BLACS
// grids of the program are read where each process sits on them, the arguments
// checked as ScaLAPACK numbers them, and the copy handed to
// dm_redist_gemr2d_placed. Only public datamotion headers and BLACS's C
// interface are used: the library sits above everything else.
#include <datamotion/redist.h>
#include <datamotion/scalapack.h>

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>

// BLACS's C interface and ScaLAPACK's error reporter, from the program's ScaLAPACK
// (resolved when the program links it; built with ScaLAPACK's default int).
extern "C" {
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int handle);
void Cblacs_abort(int ctxt, int error);
void pxerbla_(const int *ictxt, const char *name, const int *info, std::size_t name_length);
}

#define DM_SCALAPACK_API extern "C" __attribute__((visibility("default")))

namespace {

enum Field { kDtype, kCtxt, kM, kN, kMb, kNb, kRsrc, kCsrc, kLld };
constexpr int kBlacsSystemContext = 0, kBlacsGridCommunicator = 10;  // Cblacs_get's WHAT values

// The communicator of a BLACS context: the grid's own (every process on it).
MPI_Comm communicator_of(int ictxt) {
    int handle = -1;
    Cblacs_get(ictxt, kBlacsGridCommunicator, &handle);
    return Cblacs2sys_handle(handle);
}

// Every BLACS process: the system context BLACS was started on.
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

// Elements of one axis on coordinate `coord` (ScaLAPACK's NUMROC), 0 for bad input.
std::int64_t local_extent(int n, int block, int coord, int src, int nprocs) {
    if (n <= 0 || block <= 0 || nprocs <= 0) return 0;
    return dm_numroc(n, block, coord, src, nprocs);
}

// One matrix's arguments as ScaLAPACK checks them, on a rank of its grid: the
// first bad one's number (descriptor entries 100 * position + entry), or 0.
int bad_argument(int m, int n, const void *data, int i, int j, const int *desc, const dm_grid_place &p, int position) {
    if (!desc) return position;
    const int d = 100 * position;
    if (desc[kM] < 0) return d + kM + 1;
    if (desc[kN] < 0) return d + kN + 1;
    if (desc[kMb] < 1) return d + kMb + 1;
    if (desc[kNb] < 1) return d + kNb + 1;
    if (desc[kRsrc] < 0 || desc[kRsrc] >= p.nprow) return d + kRsrc + 1;
    if (desc[kCsrc] < 0 || desc[kCsrc] >= p.npcol) return d + kCsrc + 1;
    if (i < 1 || std::int64_t(i) - 1 + m > desc[kM]) return position - 2;  // IA (or IB)
    if (j < 1 || std::int64_t(j) - 1 + n > desc[kN]) return position - 1;  // JA (or JB)
    const std::int64_t rows = local_extent(desc[kM], desc[kMb], p.myrow, desc[kRsrc], p.nprow);
    const std::int64_t cols = local_extent(desc[kN], desc[kNb], p.mycol, desc[kCsrc], p.npcol);
    if (desc[kLld] < rows || desc[kLld] < 0) return d + kLld + 1;
    if (!data && rows > 0 && cols > 0) return position - 3;  // A (or B)
    return 0;
}

// B(ib.., jb..) = A(ia.., ja..) over comm, for ScaLAPACK's routine `name`.
void gemr2d(const char *name, dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int *desca, void *b,
            int ib, int jb, const int *descb, int ictxt, MPI_Comm comm) {
    if (m == 0 || n == 0) return;  // ScaLAPACK returns before any check or message
    const dm_grid_place pa = place_of(desca), pb = place_of(descb);
    // One allreduce agrees on the first bad argument and takes IA, JA from A's grid
    // and IB, JB from B's, as ScaLAPACK does (the others' are not read).
    int info = m < 0 ? 1 : n < 0 ? 2 : 0;
    if (!info && pa.myrow >= 0) info = bad_argument(m, n, a, ia, ja, desca, pa, 6);
    if (!info && pb.myrow >= 0) info = bad_argument(m, n, b, ib, jb, descb, pb, 10);
    int mine[5] = {info ? info : INT_MAX, pa.myrow >= 0 ? -ia : INT_MAX, pa.myrow >= 0 ? -ja : INT_MAX,
                   pb.myrow >= 0 ? -ib : INT_MAX, pb.myrow >= 0 ? -jb : INT_MAX};
    int agreed[5];
    MPI_Allreduce(mine, agreed, 5, MPI_INT, MPI_MIN, comm);
    if (agreed[0] != INT_MAX) {
        if (info) pxerbla_(&ictxt, name, &info, std::strlen(name));
        return;
    }
    const int status = dm_redist_gemr2d_placed(dtype, m, n, a, -agreed[1], -agreed[2], desca, pa, b, -agreed[3],
                                               -agreed[4], descb, pb, comm);
    if (status != DM_OK) {
        int rank = 0;
        MPI_Comm_rank(comm, &rank);
        if (rank == 0) std::fprintf(stderr, "%s (datamotion): %s\n", name, dm_last_error_message());
        Cblacs_abort(ictxt, 1);
    }
}

}  // namespace

// Each element type's four entries: C with a context, C without one, and the
// Fortran twins of both. Each calls gemr2d itself, never another exported entry:
// a call between exported names would go wherever the process binds that name
// (ScaLAPACK's own, where this library is loaded after it).
#define DM_GEMR2D_ENTRIES(letter, NAME, type, dtype)                                                               \
    DM_SCALAPACK_API void Cp##letter##gemr2d(int m, int n, type *a, int ia, int ja, int *desca, type *b, int ib,   \
                                             int jb, int *descb, int ictxt) {                                      \
        gemr2d(NAME, dtype, m, n, a, ia, ja, desca, b, ib, jb, descb, ictxt, communicator_of(ictxt));              \
    }                                                                                                              \
    DM_SCALAPACK_API void Cp##letter##gemr2do(int m, int n, type *a, int ia, int ja, int *desca, type *b, int ib,  \
                                              int jb, int *descb) {                                                \
        gemr2d(NAME, dtype, m, n, a, ia, ja, desca, b, ib, jb, descb, 0, every_process());                         \
    }                                                                                                              \
    DM_SCALAPACK_API void p##letter##gemr2d_(int *m, int *n, type *a, int *ia, int *ja, int *desca, type *b,       \
                                             int *ib, int *jb, int *descb, int *ictxt) {                           \
        gemr2d(NAME, dtype, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, *ictxt, communicator_of(*ictxt));      \
    }                                                                                                              \
    DM_SCALAPACK_API void p##letter##gemr2do_(int *m, int *n, type *a, int *ia, int *ja, int *desca, type *b,      \
                                              int *ib, int *jb, int *descb) {                                      \
        gemr2d(NAME, dtype, *m, *n, a, *ia, *ja, desca, b, *ib, *jb, descb, 0, every_process());                   \
    }

DM_GEMR2D_ENTRIES(s, "PSGEMR2D", float, DM_FLOAT32)
DM_GEMR2D_ENTRIES(d, "PDGEMR2D", double, DM_FLOAT64)
DM_GEMR2D_ENTRIES(c, "PCGEMR2D", void, DM_COMPLEX64)
DM_GEMR2D_ENTRIES(z, "PZGEMR2D", void, DM_COMPLEX128)
DM_GEMR2D_ENTRIES(i, "PIGEMR2D", int, DM_INT32)
