// PBLAS's p?tran, p?tranu and p?tranc over datamotion's transforming
// redistribution: C(ic.., jc..) (m x n) = beta C + alpha op(A(ia.., ja..)), A
// n x m, both on one BLACS grid (dm_redist_transform_placed).
#include <datamotion/scalapack.h>

#include "blacs.hpp"

#include <dlfcn.h>

#include <complex>
#include <string>

namespace dm::scalapack {
namespace {

enum { kDtype = 0, kCtxt = 1 };
constexpr int kBlockCyclic2d = 1;  // DTYPE of ScaLAPACK's 9-entry descriptor

using TranEntry = void(int *, int *, void *, void *, int *, int *, int *, void *, void *, int *, int *, int *);

// PBLAS's own definition of an entry: the next one after this library's in the
// process (the program's ScaLAPACK), or null.
TranEntry *pblas_entry(const char *symbol) { return reinterpret_cast<TranEntry *>(dlsym(RTLD_NEXT, symbol)); }

template <class T>
bool is_zero(const T *x) {
    return *x == T();
}

template <class T>
bool is_one(const T *x) {
    return *x == T(1);
}

template <class T>
void tran(const char *name, const char *symbol, dm_dtype dtype, dm_redist_op op, int m, int n, const T *alpha,
          const void *a, int ia, int ja, const int *desca, const T *beta, void *c, int ic, int jc, const int *descc) {
    // PBLAS also takes 11-entry descriptors (DTYPE 2: a first block of its own
    // size), which no datamotion distribution describes: those go to PBLAS's own.
    if ((desca && desca[kDtype] != kBlockCyclic2d) || (descc && descc[kDtype] != kBlockCyclic2d)) {
        if (TranEntry *own = pblas_entry(symbol)) {
            own(&m, &n, const_cast<T *>(alpha), const_cast<void *>(a), &ia, &ja, const_cast<int *>(desca),
                const_cast<T *>(beta), c, &ic, &jc, const_cast<int *>(descc));
            return;
        }
        const int ictxt = desca ? desca[kCtxt] : -1, info = desca && desca[kDtype] != kBlockCyclic2d ? 701 : 1201;
        pxerbla_(&ictxt, name, &info, std::char_traits<char>::length(name));
        return;
    }
    const int ictxt = desca ? desca[kCtxt] : -1;
    const dm_grid_place pa = place_of(desca), pc = place_of(descc);
    if (pa.myrow < 0) return;  // not on the grid: PBLAS reports DESCA(CTXT_) there and stops
    const MPI_Comm comm = communicator_of(ictxt);
    // M, N, ALPHA, A, IA, JA, DESCA, BETA, C, IC, JC, DESCC: arguments 1 to 12.
    int info = m < 0 ? 1 : n < 0 ? 2 : 0;
    if (!info) info = bad_argument(n, m, a, ia, ja, desca, pa, 7);
    if (!info && (pc.myrow < 0 || descc[kCtxt] != ictxt)) info = 1200 + kCtxt + 1;
    if (!info) info = bad_argument(m, n, c, ic, jc, descc, pc, 12);
    int offsets[4] = {ia, ja, ic, jc};
    if (agree_arguments(name, ictxt, comm, info, pa, pc, offsets)) return;
    if (m == 0 || n == 0 || (is_zero(alpha) && is_one(beta))) return;  // PBLAS's quick return
    end_on_failure(name,
                   dm_redist_transform_placed(dtype, op, m, n, alpha, a, offsets[0], offsets[1], desca, pa, beta, c,
                                              offsets[2], offsets[3], descc, pc, comm),
                   ictxt, comm);
}

}  // namespace
}  // namespace dm::scalapack

using dm::scalapack::tran;
using scomplex = std::complex<float>;
using dcomplex = std::complex<double>;

// The Fortran entries of PBLAS (by reference, as PBLAS's own are called from C
// too): p?tran for every type (for complex ones a plain transpose, like p?tranu),
// p?tranu and p?tranc for the complex ones.
#define DM_TRAN_ENTRY(entry, NAME, arg, type, dtype, op)                                                           \
    DM_SCALAPACK_API void entry(int *m, int *n, arg *alpha, arg *a, int *ia, int *ja, int *desca, arg *beta, arg *c, \
                                int *ic, int *jc, int *descc) {                                                    \
        tran<type>(NAME, #entry, dtype, op, *m, *n, static_cast<const type *>(alpha), a, *ia, *ja, desca,          \
                   static_cast<const type *>(beta), c, *ic, *jc, descc);                                           \
    }

DM_TRAN_ENTRY(pstran_, "PSTRAN", float, float, DM_FLOAT32, DM_REDIST_TRANSPOSE)
DM_TRAN_ENTRY(pdtran_, "PDTRAN", double, double, DM_FLOAT64, DM_REDIST_TRANSPOSE)
DM_TRAN_ENTRY(pctranu_, "PCTRANU", void, scomplex, DM_COMPLEX64, DM_REDIST_TRANSPOSE)
DM_TRAN_ENTRY(pztranu_, "PZTRANU", void, dcomplex, DM_COMPLEX128, DM_REDIST_TRANSPOSE)
DM_TRAN_ENTRY(pctranc_, "PCTRANC", void, scomplex, DM_COMPLEX64, DM_REDIST_CONJUGATE_TRANSPOSE)
DM_TRAN_ENTRY(pztranc_, "PZTRANC", void, dcomplex, DM_COMPLEX128, DM_REDIST_CONJUGATE_TRANSPOSE)
