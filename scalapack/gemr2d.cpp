// ScaLAPACK's p?gemr2d entry points over datamotion's redistribution: the BLACS
// grids of the program are read where each process sits on them, the arguments
// checked as ScaLAPACK numbers them, and the copy handed to
// dm_redist_gemr2d_placed. Only public datamotion headers and BLACS's C
// interface are used: the library sits above everything else.
#include <datamotion/scalapack.h>

#include "blacs.hpp"

namespace dm::scalapack {
namespace {

// B(ib.., jb..) = A(ia.., ja..) over comm, for ScaLAPACK's routine `name`.
void gemr2d(const char *name, dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int *desca, void *b,
            int ib, int jb, const int *descb, int ictxt, MPI_Comm comm) {
    if (m == 0 || n == 0) return;  // ScaLAPACK returns before any check or message
    const dm_grid_place pa = place_of(desca), pb = place_of(descb);
    int info = m < 0 ? 1 : n < 0 ? 2 : 0;  // M, A, IA, JA, DESCA, B, ... are arguments 1, 3, 4, 5, 6, 7, ...
    if (!info && pa.myrow >= 0) info = bad_argument(m, n, a, ia, ja, desca, pa, 6);
    if (!info && pb.myrow >= 0) info = bad_argument(m, n, b, ib, jb, descb, pb, 10);
    int offsets[4] = {ia, ja, ib, jb};
    if (agree_arguments(name, ictxt, comm, info, pa, pb, offsets)) return;
    end_on_failure(name,
                   dm_redist_gemr2d_placed(dtype, m, n, a, offsets[0], offsets[1], desca, pa, b, offsets[2], offsets[3],
                                           descb, pb, comm),
                   ictxt, comm);
}

}  // namespace
}  // namespace dm::scalapack

using dm::scalapack::communicator_of;
using dm::scalapack::every_process;
using dm::scalapack::gemr2d;

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
