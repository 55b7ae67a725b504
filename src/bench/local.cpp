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

template <class T>
std::vector<double> run_op(int op, std::size_t n, int reps, int warmup, int iters) {
    std::vector<T> a(n), b(n, T(1.5)), c(n, T(2.5)), d(n, T(0.5)), e(n, T(3.0));
    const T s = T(1.25);
    T *pa = a.data();
    const T *pb = b.data(), *pc = c.data(), *pd = d.data(), *pe = e.data();
    return timed(reps, warmup, iters, [&] {
        switch (op) {
            case 0: for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] + s; break;
            case 1: for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] + pc[i]; break;
            case 2: for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] * s; break;
            case 3: for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] * pc[i]; break;
            case 4: for (std::size_t i = 0; i < n; ++i) pa[i] = s * pb[i] + pc[i]; break;
            default: for (std::size_t i = 0; i < n; ++i) pa[i] = pb[i] * pc[i] + pd[i] * pe[i]; break;
        }
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

std::vector<double> vector_op(const std::string &op, bool single, std::size_t n, int reps, int warmup, int iters) {
    const int index = op_index(op);
    return single ? run_op<float>(index, n, reps, warmup, iters) : run_op<double>(index, n, reps, warmup, iters);
}

int vector_op_flops(const std::string &op) { return kFlops[op_index(op)]; }

}  // namespace dm::bench
