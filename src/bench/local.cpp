#include "bench/local.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace dm::bench {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

template <class Body>
std::vector<double> timed(int reps, int warmup, int iters, Body &&body) {
    if (reps < 1 || warmup < 0 || iters < 1) fail(DM_ERR_ARG, "bench: reps and iters must be positive");
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        const double t0 = now();
        for (int i = 0; i < iters; ++i) body();
        const double t = (now() - t0) / iters;
        if (rep >= 0) samples.push_back(t);
    }
    return samples;
}

// Keeps the compiler from removing a loop whose result is never read.
template <class T>
void escape(T *p) {
    asm volatile("" : : "g"(p) : "memory");
}

// N_v compares two variants of each operation: the loop as the compiler
// vectorises it, and the same loop with auto-vectorisation switched off. Both are
// separate, never-inlined functions, so both pay the same call and dispatch and
// only the loops differ; for GCC this is also what makes its optimize attribute
// stick (it holds per function, and inlining into a vectorising caller would
// undo it). Clang takes a pragma per loop instead. Other compilers may
// vectorise the scalar variant too.
#if defined(__clang__)
#define DM_VECTOR_FUNCTION __attribute__((noinline))
#define DM_SCALAR_FUNCTION __attribute__((noinline))
#define DM_SCALAR_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#elif defined(__GNUC__)
#define DM_VECTOR_FUNCTION __attribute__((noinline))
#define DM_SCALAR_FUNCTION __attribute__((noinline, optimize("no-tree-vectorize")))
#define DM_SCALAR_LOOP
#else
#define DM_VECTOR_FUNCTION
#define DM_SCALAR_FUNCTION
#define DM_SCALAR_LOOP
#endif

template <class T>
DM_VECTOR_FUNCTION void vector_sweep(int op, std::size_t n, T *a, const T *b, const T *c, const T *d, const T *e,
                                     T s) {
    switch (op) {
        case 0: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s; break;
        case 1: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + c[i]; break;
        case 2: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * s; break;
        case 3: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * c[i]; break;
        case 4: for (std::size_t i = 0; i < n; ++i) a[i] = s * b[i] + c[i]; break;
        default: for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * c[i] + d[i] * e[i]; break;
    }
}

template <class T>
DM_SCALAR_FUNCTION void scalar_sweep(int op, std::size_t n, T *a, const T *b, const T *c, const T *d, const T *e,
                                     T s) {
    switch (op) {
        case 0: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + s; break;
        case 1: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + c[i]; break;
        case 2: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * s; break;
        case 3: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * c[i]; break;
        case 4: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = s * b[i] + c[i]; break;
        default: DM_SCALAR_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = b[i] * c[i] + d[i] * e[i]; break;
    }
}

#undef DM_VECTOR_FUNCTION
#undef DM_SCALAR_FUNCTION
#undef DM_SCALAR_LOOP

// Arrays each operation reads or writes (a, b, c, d, e in order; b+s and b*s use a, b).
const int kArrays[] = {2, 3, 2, 3, 3, 5};

template <class T>
std::vector<double> run_op(int op, bool scalar, std::size_t n, int reps, int warmup, int iters,
                           std::size_t working_set) {
    // With a working set larger than one sweep's arrays, successive sweeps take the next
    // of `copies` stretches of every array, so the data of one sweep has left the cache
    // levels smaller than the working set by the time it comes round again.
    const std::size_t sweep = static_cast<std::size_t>(kArrays[op]) * n * sizeof(T);
    const std::size_t copies = sweep > 0 ? std::max<std::size_t>(1, working_set / sweep) : 1;
    const std::size_t len = n * copies;
    // Only the arrays the operation touches are spread; the others stay one sweep long.
    auto length = [&](int array) { return array < kArrays[op] ? len : n; };
    std::vector<T> a(length(0)), b(length(1), T(1.5)), c(length(2), T(2.5));
    std::vector<T> d(length(3), T(0.5)), e(length(4), T(3.0));
    const T s = T(1.25);
    std::size_t next = 0;
    auto body = [&](bool novec) {
        const std::size_t at = next * n;
        next = next + 1 == copies ? 0 : next + 1;
        auto at_of = [&](std::vector<T> &v) { return v.data() + (v.size() == len ? at : 0); };
        T *pa = at_of(a);
        if (novec) scalar_sweep(op, n, pa, at_of(b), at_of(c), at_of(d), at_of(e), s);
        else vector_sweep(op, n, pa, at_of(b), at_of(c), at_of(d), at_of(e), s);
        escape(pa);
    };
    return timed(reps, warmup, iters, [&] { body(scalar); });
}

// y[0:n] -= f * x[0:n], the loop of the row update as a C program writes it (restrict).
void axpy_row(double *__restrict y, const double *__restrict x, double f, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) y[k] -= f * x[k];
}

const char *const kOps[] = {"b+s", "b+c", "b*s", "b*c", "s*b+c", "b*c+d*e"};
const int kFlops[] = {1, 1, 1, 1, 2, 3};

int op_index(const std::string &op) {
    for (int i = 0; i < 6; ++i)
        if (op == kOps[i]) return i;
    fail(DM_ERR_ARG, "bench: unknown vector operation '", op, "' (b+s, b+c, b*s, b*c, s*b+c, b*c+d*e)");
}

}  // namespace

std::vector<double> memcopy(std::size_t bytes, int reps, int warmup, int iters) {
    std::vector<unsigned char> from(bytes, 1), to(bytes, 0);
    return timed(reps, warmup, iters, [&] {
        std::memcpy(to.data(), from.data(), bytes);
        escape(to.data());
    });
}

std::vector<double> vector_op(const std::string &op, bool single, std::size_t n, int reps, int warmup, int iters,
                              bool scalar, std::size_t working_set) {
    const int index = op_index(op);
    return single ? run_op<float>(index, scalar, n, reps, warmup, iters, working_set)
                  : run_op<double>(index, scalar, n, reps, warmup, iters, working_set);
}

std::vector<double> row_update(std::size_t rows, std::size_t length, int reps, int warmup, int iters,
                               std::size_t stride, std::size_t first) {
    if (rows < 1) fail(DM_ERR_ARG, "bench: row_update needs at least one row");
    if (stride == 0) stride = first + length;
    if (first + length > stride)
        fail(DM_ERR_ARG, "bench: row_update's columns first + length = ", first + length,
             " exceed the row stride ", stride);
    std::vector<double> matrix(rows * stride, 1.0), pivot(stride, 0.5), factor(rows, 1e-3);
    return timed(reps, warmup, iters, [&] {
        for (std::size_t r = 0; r < rows; ++r)
            axpy_row(matrix.data() + r * stride + first, pivot.data() + first, factor[r], length);
        escape(matrix.data());
    });
}

std::vector<double> column_pass(ColumnPass part, std::size_t rows, std::size_t stride, std::size_t column, int reps,
                                int warmup, int iters) {
    if (rows < 1) fail(DM_ERR_ARG, "bench: column_pass needs at least one row");
    if (column >= stride) fail(DM_ERR_ARG, "bench: column_pass's column ", column, " is not inside rows of ", stride);
    std::vector<double> matrix(rows * stride, 1.0), factor(rows, 0.0);
    std::vector<char> done(rows, 0);  // the program skips its pivot rows: the same test, never true here
    std::uint64_t state = 12345;      // values in [-1, 1), so the search's comparison is rarely true, as in the program
    for (std::size_t r = 0; r < rows; ++r) {
        state = state * 6364136223846793005ULL + 1442695040888963407ULL;
        matrix[r * stride + column] = static_cast<double>(state >> 11) * 0x1.0p-52 - 1.0;
    }
    const double *a = matrix.data() + column;
    if (part == ColumnPass::search)
        return timed(reps, warmup, iters, [&] {
            double best = -1.0;
            std::size_t at = rows;
            for (std::size_t r = 0; r < rows; ++r) {
                if (done[r]) continue;
                const double v = std::fabs(a[r * stride]);
                if (v > best) {
                    best = v;
                    at = r;
                }
            }
            factor[0] = best + static_cast<double>(at);
            escape(factor.data());
        });
    const double pivot = 3.0;
    return timed(reps, warmup, iters, [&] {
        for (std::size_t r = 0; r < rows; ++r)
            if (!done[r]) factor[r] = a[r * stride] / pivot;
        escape(factor.data());
    });
}

int vector_op_flops(const std::string &op) { return kFlops[op_index(op)]; }

}  // namespace dm::bench
