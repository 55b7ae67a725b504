// Elementwise functions (w): local loops over each rank's block, generated from one
// template (map_local). A destination may be the very same handle as any source. Where
// it is disjoint from each source or is exactly it with elements of the same size (every
// call of the Python layer, most of C's), the loop vectorises with no alias checks;
// otherwise, when the destination's elements are wider than a source's the loop runs
// backwards, else forwards, so that every source element is read before its bytes are
// overwritten (the sources are compiled without strict aliasing, see CMakeLists.txt).
#include "vector/beyond_cvl.hpp"
#include "vector/ops.hpp"
#include "vector/state.hpp"

#include <cvl.h>

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

using namespace dm::vector;

namespace {

using cvl_b = cvl_bool_t;

template <class D, class... S>
constexpr bool backwards() {
    constexpr bool wider = ((sizeof(D) > sizeof(S)) || ...);
    constexpr bool narrower = ((sizeof(D) < sizeof(S)) || ...);
    static_assert(!(wider && narrower), "no safe direction for this in-place combination");
    return wider;
}

// Whether each source is disjoint from the destination or is exactly it with elements of
// the same size: then element i of the result depends on element i of the sources only.
template <class D, class... S>
bool independent(int64_t n, const D *out, const S *...x) {
    const auto o = reinterpret_cast<std::uintptr_t>(out), o_end = o + static_cast<std::uintptr_t>(n) * sizeof(D);
    auto apart = [&](std::uintptr_t p, std::size_t size) {
        return (p == o && size == sizeof(D)) || p + static_cast<std::uintptr_t>(n) * size <= o || o_end <= p;
    };
    return (apart(reinterpret_cast<std::uintptr_t>(x), sizeof(S)) && ...);
}

template <class D, class F, class... S>
DM_VECTOR_KERNEL void map_independent(int64_t n, D *out, F f, const S *...x) {
    DM_NO_CARRIED_DEPENDENCE
    for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]...);
}

// out[i] = f(x[i]...) for the n local elements: vectorised when the vectors are
// independent (above), else in the direction that reads each element before it is
// overwritten.
template <class D, class F, class... S>
void map_local(int64_t n, D *out, F f, const S *...x) {
    if (independent(n, out, x...))
        map_independent(n, out, f, x...);
    else if constexpr (backwards<D, S...>())
        for (int64_t i = n; i-- > 0;) out[i] = f(x[i]...);
    else
        for (int64_t i = 0; i < n; ++i) out[i] = f(x[i]...);
}

template <class D, class A, class F>
void map1(const char *name, vec_p d, vec_p a, int len, F f) {
    entry(name, {{"d", d}, {"s", a}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<D>(d, len, "destination d");
        c.require_vector<A>(a, len, "source s");
        map_local(c.block(len).count(c.rank), c.local<D>(d), f, c.local<A>(a));
    });
}

template <class D, class A, class B, class F>
void map2(const char *name, vec_p d, vec_p a, vec_p b, int len, F f) {
    entry(name, {{"d", d}, {"s1", a}, {"s2", b}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<D>(d, len, "destination d");
        c.require_vector<A>(a, len, "source s1");
        c.require_vector<B>(b, len, "source s2");
        map_local(c.block(len).count(c.rank), c.local<D>(d), f, c.local<A>(a), c.local<B>(b));
    });
}

template <class D, class A, class B, class C, class F>
void map3(const char *name, vec_p d, vec_p a, vec_p b, vec_p e, int len, F f) {
    entry(name, {{"d", d}, {"s1", a}, {"s2", b}, {"s3", e}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<D>(d, len, "destination d");
        c.require_vector<A>(a, len, "source s1");
        c.require_vector<B>(b, len, "source s2");
        c.require_vector<C>(e, len, "source s3");
        map_local(c.block(len).count(c.rank), c.local<D>(d), f, c.local<A>(a), c.local<B>(b), c.local<C>(e));
    });
}

template <class T>
void copy(const char *name, vec_p d, vec_p s, int len) {
    entry(name, {{"d", d}, {"s", s}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(d, len, "destination d");
        c.require_vector<T>(s, len, "source s");
        const int64_t n = c.block(len).count(c.rank);
        if (n > 0 && d != s) std::memmove(c.local<T>(d), c.local<T>(s), static_cast<std::size_t>(n) * sizeof(T));
    });
}

// C leaves these undefined; CVL on MPI defines them (docs/cvl.md). Written without
// branches so that they vectorise: x86 has no vector integer division, but for 32-bit
// operands trunc((double)a / b) is exact (a non-integer quotient lies at least 1/|b| from
// an integer, more than its rounding error |a/b| 2^-53), and doubles divide in vectors.
// All ones where the divisor b is 0 or -1, the cases C leaves undefined or that overflow.
inline int special_divisor(int b) { return -static_cast<int>(static_cast<unsigned>(b) + 1u <= 1u); }
// a / b truncated, with 1 for a special divisor (bit selects, no branch: a branch around
// a division that may trap keeps the loop from vectorising).
inline int int_quotient(int a, int b, int special) {
    const int divisor = (b & ~special) | (special & 1);
    return static_cast<int>(static_cast<double>(a) / static_cast<double>(divisor));
}
inline int int_div(int a, int b) {
    const int special = special_divisor(b);
    const int r = b == 0 ? 0 : wrap_sub(0, a);  // INT_MIN / -1 wraps to INT_MIN
    return (r & special) | (int_quotient(a, b, special) & ~special);
}
inline int int_mod(int a, int b) {
    const int special = special_divisor(b);
    const int r = b == 0 ? a : 0;
    return (r & special) | (wrap_sub(a, wrap_mul(int_quotient(a, b, special), b)) & ~special);
}
inline int shift_left(int a, int k) {
    const int v = static_cast<int>(static_cast<unsigned>(a) << (k & 31));
    return static_cast<unsigned>(k) < 32u ? v : 0;
}
inline int shift_right(int a, int k) {
    const int m = static_cast<unsigned>(k) < 32u ? k : 31;  // beyond 31: the sign fills every bit
    return a >= 0 ? a >> m : ~(~a >> m);                     // arithmetic shift
}

// Double to int: NaN gives 0, values outside int saturate. Clamped with selects, not
// branches, so that the conversion vectorises (a comparison with NaN is false: it
// passes both clamps and the last select makes it 0).
inline int to_int(double x) {
    double c = x > 2147483647.0 ? 2147483647.0 : x;
    c = c < -2147483648.0 ? -2147483648.0 : c;
    return static_cast<int>(x == x ? c : 0.0);
}

// Round to nearest, ties to even (whatever the floating-point rounding mode), from the
// truncation and selects only, so that it vectorises: past a half the magnitude grows by
// one, at exactly a half only where the truncated value is odd. Infinities and values
// past 2^52 are their own truncation (their fraction is NaN or 0); NaN stays NaN.
inline double round_half_even(double x) {
    const double t = std::trunc(x), f = std::fabs(x - t), one = std::copysign(1.0, x);
    const bool odd = std::fabs(t - 2.0 * std::trunc(0.5 * t)) == 1.0;
    return t + ((f > 0.5) | ((f == 0.5) & odd) ? one : 0.0);  // | and &: no branch
}

inline std::uint64_t mix64(std::uint64_t z) {
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

}  // namespace

// Each binary function once: its operation as a type (NAME##_op, which the scalar forms
// of binary_scalar use too; types have no language linkage) and CVL's entry point.
#define CVL_BINARY(NAME, D, A, EXPR)                                                                  \
    namespace {                                                                                       \
    struct NAME##_op {                                                                                \
        using Result = D;                                                                             \
        using Source = A;                                                                             \
        static constexpr const char *name = #NAME;                                                    \
        D operator()(A a, A b) const { return EXPR; }                                                 \
    };                                                                                                \
    }                                                                                                 \
    void NAME(vec_p d, vec_p s1, vec_p s2, int len, vec_p) { map2<D, A, A>(#NAME, d, s1, s2, len, NAME##_op{}); }
#define CVL_UNARY(NAME, D, A, EXPR) \
    void NAME(vec_p d, vec_p s, int len, vec_p) { map1<D, A>(#NAME, d, s, len, [](A a) -> D { return EXPR; }); }

extern "C" {

CVL_BINARY(max_wuz, int, int, a > b ? a : b)
CVL_BINARY(max_wud, double, double, a > b ? a : b)
CVL_BINARY(min_wuz, int, int, a < b ? a : b)
CVL_BINARY(min_wud, double, double, a < b ? a : b)
CVL_BINARY(add_wuz, int, int, wrap_add(a, b))
CVL_BINARY(add_wud, double, double, a + b)
CVL_BINARY(sub_wuz, int, int, wrap_sub(a, b))
CVL_BINARY(sub_wud, double, double, a - b)
CVL_BINARY(mul_wuz, int, int, wrap_mul(a, b))
CVL_BINARY(mul_wud, double, double, a * b)
CVL_BINARY(div_wuz, int, int, int_div(a, b))
CVL_BINARY(div_wud, double, double, a / b)
CVL_BINARY(mod_wuz, int, int, int_mod(a, b))
CVL_BINARY(lsh_wuz, int, int, shift_left(a, b))
CVL_BINARY(rsh_wuz, int, int, shift_right(a, b))

CVL_BINARY(grt_wuz, cvl_b, int, a > b)
CVL_BINARY(grt_wud, cvl_b, double, a > b)
CVL_BINARY(les_wuz, cvl_b, int, a < b)
CVL_BINARY(les_wud, cvl_b, double, a < b)
CVL_BINARY(geq_wuz, cvl_b, int, a >= b)
CVL_BINARY(geq_wud, cvl_b, double, a >= b)
CVL_BINARY(leq_wuz, cvl_b, int, a <= b)
CVL_BINARY(leq_wud, cvl_b, double, a <= b)
CVL_BINARY(eql_wuz, cvl_b, int, a == b)
CVL_BINARY(eql_wud, cvl_b, double, a == b)
CVL_BINARY(neq_wuz, cvl_b, int, a != b)
CVL_BINARY(neq_wud, cvl_b, double, a != b)
CVL_BINARY(eql_wub, cvl_b, cvl_b, (a != 0) == (b != 0))
CVL_BINARY(neq_wub, cvl_b, cvl_b, (a != 0) != (b != 0))

CVL_BINARY(and_wub, cvl_b, cvl_b, (a != 0) && (b != 0))
CVL_BINARY(ior_wub, cvl_b, cvl_b, (a != 0) || (b != 0))
CVL_BINARY(xor_wub, cvl_b, cvl_b, (a != 0) != (b != 0))
CVL_BINARY(and_wuz, int, int, a &b)
CVL_BINARY(ior_wuz, int, int, a | b)
CVL_BINARY(xor_wuz, int, int, a ^ b)

void sel_wuz(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p) {
    map3<int, cvl_b, int, int>("sel_wuz", d, s1, s2, s3, len, [](cvl_b f, int a, int b) { return f ? a : b; });
}
void sel_wub(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p) {
    map3<cvl_b, cvl_b, cvl_b, cvl_b>("sel_wub", d, s1, s2, s3, len,
                                     [](cvl_b f, cvl_b a, cvl_b b) -> cvl_b { return (f ? a : b) != 0; });
}
void sel_wud(vec_p d, vec_p s1, vec_p s2, vec_p s3, int len, vec_p) {
    map3<double, cvl_b, double, double>("sel_wud", d, s1, s2, s3, len,
                                        [](cvl_b f, double a, double b) { return f ? a : b; });
}

CVL_UNARY(not_wub, cvl_b, cvl_b, a == 0)
CVL_UNARY(not_wuz, int, int, ~a)
CVL_UNARY(int_wud, int, double, to_int(a))
CVL_UNARY(int_wub, int, cvl_b, a != 0)
CVL_UNARY(dbl_wuz, double, int, static_cast<double>(a))
CVL_UNARY(boo_wuz, cvl_b, int, a != 0)
CVL_UNARY(flr_wud, int, double, to_int(std::floor(a)))
CVL_UNARY(cei_wud, int, double, to_int(std::ceil(a)))
CVL_UNARY(trn_wud, int, double, to_int(a))
CVL_UNARY(rou_wud, int, double, to_int(round_half_even(a)))
CVL_UNARY(exp_wud, double, double, std::exp(a))
CVL_UNARY(log_wud, double, double, std::log(a))
CVL_UNARY(sqt_wud, double, double, std::sqrt(a))
CVL_UNARY(sin_wud, double, double, std::sin(a))
CVL_UNARY(cos_wud, double, double, std::cos(a))
CVL_UNARY(tan_wud, double, double, std::tan(a))
CVL_UNARY(asn_wud, double, double, std::asin(a))
CVL_UNARY(acs_wud, double, double, std::acos(a))
CVL_UNARY(atn_wud, double, double, std::atan(a))
CVL_UNARY(snh_wud, double, double, std::sinh(a))
CVL_UNARY(csh_wud, double, double, std::cosh(a))
CVL_UNARY(tnh_wud, double, double, std::tanh(a))

void cpy_wuz(vec_p d, vec_p s, int len, vec_p) { copy<int>("cpy_wuz", d, s, len); }
void cpy_wub(vec_p d, vec_p s, int len, vec_p) { copy<cvl_b>("cpy_wub", d, s, len); }
void cpy_wud(vec_p d, vec_p s, int len, vec_p) { copy<double>("cpy_wud", d, s, len); }

// d[i] uniform in [0, s[i]): the number for global element g depends only on the seed,
// the number of rnd_wuz calls since rnd_foz, and g, so it is the same at any rank count.
void rnd_wuz(vec_p d, vec_p s, int len, vec_p) {
    entry("rnd_wuz", {{"d", d}, {"s", s}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<int>(d, len, "destination d");
        c.require_vector<int>(s, len, "source s");
        const BlockRule b = c.block(len);
        const int64_t n = b.count(c.rank), g0 = b.begin(c.rank);
        const std::uint64_t key = mix64(c.rnd_seed ^ mix64(c.rnd_calls++ + 0x5851f42d4c957f2dull));
        int *out = c.local<int>(d);
        const int *x = c.local<int>(s);
        for (int64_t i = 0; i < n; ++i) {
            const int bound = x[i];
            const std::uint64_t h = mix64(key + static_cast<std::uint64_t>(g0 + i)) >> 32;
            out[i] = bound > 0 ? static_cast<int>((h * static_cast<std::uint64_t>(bound)) >> 32) : 0;
        }
    });
}

}  // extern "C"

namespace dm::vector {
void neg_wuz(vec_p d, vec_p s, int len, vec_p) { map1<int, int>("neg_wuz", d, s, len, [](int a) { return wrap_sub(0, a); }); }
void neg_wud(vec_p d, vec_p s, int len, vec_p) { map1<double, double>("neg_wud", d, s, len, [](double a) { return -a; }); }

namespace {

template <class Op>
void with_scalar(vec_p d, vec_p s, double x, bool scalar_first, int len) {
    using D = typename Op::Result;
    using A = typename Op::Source;
    std::int64_t bits = 0;
    std::memcpy(&bits, &x, sizeof x);
    entry(Op::name, {{"d", d}, {"s", s}, {"scalar operand (its 64 bits)", bits}, {"whether the scalar comes first", scalar_first}, {"len", len}},
          [&](Context &c) {
              require_length(len, "len");
              c.require_vector<D>(d, len, "destination d");
              c.require_vector<A>(s, len, "source s");
              const A v = static_cast<A>(x);
              const int64_t n = c.block(len).count(c.rank);
              if (scalar_first)
                  map_local(n, c.local<D>(d), [v](A a) -> D { return Op{}(v, a); }, c.local<A>(s));
              else
                  map_local(n, c.local<D>(d), [v](A a) -> D { return Op{}(a, v); }, c.local<A>(s));
          });
}

}  // namespace

const BinaryFunction *binary_function(std::string_view name) {
#define DM_BINARY(NAME) {#NAME, {&NAME, &with_scalar<NAME##_op>}}
    static const std::pair<std::string_view, BinaryFunction> functions[] = {
        DM_BINARY(max_wuz), DM_BINARY(max_wud), DM_BINARY(min_wuz), DM_BINARY(min_wud),
        DM_BINARY(add_wuz), DM_BINARY(add_wud), DM_BINARY(sub_wuz), DM_BINARY(sub_wud),
        DM_BINARY(mul_wuz), DM_BINARY(mul_wud), DM_BINARY(div_wuz), DM_BINARY(div_wud),
        DM_BINARY(mod_wuz), DM_BINARY(lsh_wuz), DM_BINARY(rsh_wuz),
        DM_BINARY(grt_wuz), DM_BINARY(grt_wud), DM_BINARY(les_wuz), DM_BINARY(les_wud),
        DM_BINARY(geq_wuz), DM_BINARY(geq_wud), DM_BINARY(leq_wuz), DM_BINARY(leq_wud),
        DM_BINARY(eql_wuz), DM_BINARY(eql_wud), DM_BINARY(neq_wuz), DM_BINARY(neq_wud),
        DM_BINARY(eql_wub), DM_BINARY(neq_wub), DM_BINARY(and_wub), DM_BINARY(ior_wub),
        DM_BINARY(xor_wub), DM_BINARY(and_wuz), DM_BINARY(ior_wuz), DM_BINARY(xor_wuz),
    };
#undef DM_BINARY
    for (const auto &[known, function] : functions)
        if (known == name) return &function;
    return nullptr;
}
}  // namespace dm::vector
