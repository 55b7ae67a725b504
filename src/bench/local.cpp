#include "bench/local.hpp"

#include "core/error.hpp"

#include <chrono>
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

template <class T>
std::vector<double> run_op(int op, bool scalar, std::size_t n, int reps, int warmup, int iters) {
    std::vector<T> a(n), b(n, T(1.5)), c(n, T(2.5)), d(n, T(0.5)), e(n, T(3.0));
    const T s = T(1.25);
    T *pa = a.data();
    const T *pb = b.data(), *pc = c.data(), *pd = d.data(), *pe = e.data();
    if (scalar)
        return timed(reps, warmup, iters, [&] {
            scalar_sweep(op, n, pa, pb, pc, pd, pe, s);
            escape(pa);
        });
    return timed(reps, warmup, iters, [&] {
        vector_sweep(op, n, pa, pb, pc, pd, pe, s);
        escape(pa);
    });
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
                              bool scalar) {
    const int index = op_index(op);
    return single ? run_op<float>(index, scalar, n, reps, warmup, iters)
                  : run_op<double>(index, scalar, n, reps, warmup, iters);
}

int vector_op_flops(const std::string &op) { return kFlops[op_index(op)]; }

}  // namespace dm::bench
