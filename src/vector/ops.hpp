// The combining operators of scans and reductions, per element type.
//
// Op<K, T> gives:
//   id()    the identity used inside the computation (a true identity: +inf for the
//           minimum of doubles, so that a segment holding +inf reduces to +inf);
//   empty() the value CVL shows for an empty prefix or segment (DBL_MAX for the
//           minimum of doubles, as the interface specifies);
//   apply(a, b) the operator; int arithmetic wraps instead of overflowing;
//   load(x) normalises an input (cvl_bool: any nonzero value is true).
//
// Pair<T> is (value, segment flag); combine() is the segmented operator
// (a, fa) . (b, fb) = (fb ? b : a op b, fa | fb), associative but not commutative,
// which MPI_Exscan applies in rank order to carry partial results across ranks; the
// pair also carries the range of the ranks' call signatures.
#pragma once

#include "vector/state.hpp"

#include <algorithm>
#include <cfloat>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>

// DM_VECTOR_KERNEL: a loop compiled for the x86-64 baseline (SSE2), for AVX2 and (GCC 12
// on) for x86-64-v4 (AVX-512), the one for the processor picked when the library loads
// (GNU ifunc). SSE2 has no narrowing of 64-bit comparison masks nor byte-mask blends:
// comparisons of doubles and selects only vectorise with AVX2; AVX-512's mask registers
// make them a fifth faster again on vectors past the cache (10^7 doubles: 8.7 -> 7.1 ms).
// Off under the sanitizers and on other targets.
#if defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__) && __GNUC__ >= 12
#define DM_VECTOR_KERNEL __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#elif defined(__x86_64__) && defined(__ELF__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_ADDRESS__)
#define DM_VECTOR_KERNEL __attribute__((target_clones("avx2", "default")))
#else
#define DM_VECTOR_KERNEL
#endif

// DM_NO_CARRIED_DEPENDENCE before a loop: no iteration reads what another writes (the
// caller checked that the destination is disjoint from each source or is exactly it,
// element for element), so the compiler vectorises without run-time alias checks.
#if defined(__clang__)
#define DM_NO_CARRIED_DEPENDENCE _Pragma("clang loop vectorize(assume_safety)")
#elif defined(__GNUC__)
#define DM_NO_CARRIED_DEPENDENCE _Pragma("GCC ivdep")
#else
#define DM_NO_CARRIED_DEPENDENCE
#endif

namespace dm::vector {

using cvl_bool_t = char;

inline int wrap_add(int a, int b) {
    return static_cast<int>(static_cast<unsigned>(a) + static_cast<unsigned>(b));
}
inline int wrap_sub(int a, int b) {
    return static_cast<int>(static_cast<unsigned>(a) - static_cast<unsigned>(b));
}
inline int wrap_mul(int a, int b) {
    return static_cast<int>(static_cast<unsigned>(a) * static_cast<unsigned>(b));
}

template <OpKind K, class T>
struct Op;

template <>
struct Op<OpKind::add, int> {
    static int id() { return 0; }
    static int empty() { return 0; }
    static int apply(int a, int b) { return wrap_add(a, b); }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::add, double> {
    static double id() { return 0.0; }
    static double empty() { return 0.0; }
    static double apply(double a, double b) { return a + b; }
    static double load(double x) { return x; }
};
template <>
struct Op<OpKind::mul, int> {
    static int id() { return 1; }
    static int empty() { return 1; }
    static int apply(int a, int b) { return wrap_mul(a, b); }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::mul, double> {
    static double id() { return 1.0; }
    static double empty() { return 1.0; }
    static double apply(double a, double b) { return a * b; }
    static double load(double x) { return x; }
};
template <>
struct Op<OpKind::min, int> {
    static int id() { return INT_MAX; }
    static int empty() { return INT_MAX; }
    static int apply(int a, int b) { return b < a ? b : a; }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::min, double> {
    static double id() { return std::numeric_limits<double>::infinity(); }
    static double empty() { return DBL_MAX; }
    static double apply(double a, double b) { return b < a ? b : a; }
    static double load(double x) { return x; }
};
template <>
struct Op<OpKind::max, int> {
    static int id() { return INT_MIN; }
    static int empty() { return INT_MIN; }
    static int apply(int a, int b) { return b > a ? b : a; }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::max, double> {
    static double id() { return -std::numeric_limits<double>::infinity(); }
    static double empty() { return -DBL_MAX; }
    static double apply(double a, double b) { return b > a ? b : a; }
    static double load(double x) { return x; }
};
template <>
struct Op<OpKind::and_, int> {
    static int id() { return ~0; }
    static int empty() { return ~0; }
    static int apply(int a, int b) { return a & b; }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::ior, int> {
    static int id() { return 0; }
    static int empty() { return 0; }
    static int apply(int a, int b) { return a | b; }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::xor_, int> {
    static int id() { return 0; }
    static int empty() { return 0; }
    static int apply(int a, int b) { return a ^ b; }
    static int load(int x) { return x; }
};
template <>
struct Op<OpKind::and_, cvl_bool_t> {
    static cvl_bool_t id() { return 1; }
    static cvl_bool_t empty() { return 1; }
    static cvl_bool_t apply(cvl_bool_t a, cvl_bool_t b) { return static_cast<cvl_bool_t>(a & b); }
    static cvl_bool_t load(cvl_bool_t x) { return x != 0; }
};
template <>
struct Op<OpKind::ior, cvl_bool_t> {
    static cvl_bool_t id() { return 0; }
    static cvl_bool_t empty() { return 0; }
    static cvl_bool_t apply(cvl_bool_t a, cvl_bool_t b) { return static_cast<cvl_bool_t>(a | b); }
    static cvl_bool_t load(cvl_bool_t x) { return x != 0; }
};
template <>
struct Op<OpKind::xor_, cvl_bool_t> {
    static cvl_bool_t id() { return 0; }
    static cvl_bool_t empty() { return 0; }
    static cvl_bool_t apply(cvl_bool_t a, cvl_bool_t b) { return static_cast<cvl_bool_t>(a ^ b); }
    static cvl_bool_t load(cvl_bool_t x) { return x != 0; }
};

template <class T>
struct Pair {
    T value;
    std::int32_t flag;  // the range this summarises contains a segment start
    // The least and greatest call signature hash over the ranks summarised: ranks
    // that passed different lengths or handles find out in the same message.
    std::int64_t sig_lo, sig_hi;
};

template <class T>
constexpr ElemKind elem_kind() {
    if constexpr (std::is_same_v<T, int>) return ElemKind::int_;
    else if constexpr (std::is_same_v<T, double>) return ElemKind::dbl;
    else return ElemKind::bool_;
}

// The MPI user function of the segmented operator: inout = in . inout.
template <OpKind K, class T>
void pair_combine(void *in, void *inout, int *len, MPI_Datatype *) {
    auto *a = static_cast<unsigned char *>(in);
    auto *b = static_cast<unsigned char *>(inout);
    for (int i = 0; i < *len; ++i, a += sizeof(Pair<T>), b += sizeof(Pair<T>)) {
        Pair<T> x, y;
        std::memcpy(&x, a, sizeof x);
        std::memcpy(&y, b, sizeof y);
        if (!y.flag) y.value = Op<K, T>::apply(x.value, y.value);
        y.flag |= x.flag;
        y.sig_lo = std::min(x.sig_lo, y.sig_lo);
        y.sig_hi = std::max(x.sig_hi, y.sig_hi);
        std::memcpy(b, &y, sizeof y);
    }
}

}  // namespace dm::vector
