#include "bench/cm5.hpp"

#include "bench/common.hpp"
#include "bench/patterns.hpp"
#include "core/error.hpp"

#include <chrono>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>
#include <type_traits>

namespace dm::bench {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void check_reps(int reps, int warmup) {
    if (reps < 1 || warmup < 0) fail(DM_ERR_ARG, "bench: reps must be positive, warmup non-negative");
}

// ---------------------------------------------------------------------------
// Table 1: scalar arithmetic
// ---------------------------------------------------------------------------

enum class Arith { add, subtract, multiply, divide, madd };
enum class Operands { registers, array_scalars, three_arrays, two_arrays_scalar };

const char *const kArithNames[] = {"add", "subtract", "multiply", "divide", "madd"};
const char *const kOperandNames[] = {"registers", "a&s1&s2", "a&b&c", "a&b&s"};

Arith arith_of(const std::string &op) {
    for (int i = 0; i < 5; ++i)
        if (op == kArithNames[i]) return static_cast<Arith>(i);
    fail(DM_ERR_ARG, "bench: unknown scalar operation '", op, "' (add, subtract, multiply, divide, madd)");
}

Operands operands_of(const std::string &operands) {
    for (int i = 0; i < 4; ++i)
        if (operands == kOperandNames[i]) return static_cast<Operands>(i);
    fail(DM_ERR_ARG, "bench: unknown operands '", operands, "' (registers, a&s1&s2, a&b&c, a&b&s)");
}

// Integer add, subtract and multiply run in the unsigned type of the promoted
// operands: the same instructions, with wrap-around instead of undefined overflow.
template <class T, bool = std::is_integral_v<T>>
struct WideOf {
    using type = T;
};
template <class T>
struct WideOf<T, true> {
    using type = std::make_unsigned_t<decltype(T() + T())>;
};
template <class T>
using Wide = typename WideOf<T>::type;

// x = y op z, or x = x + y * z for madd.
template <class T, Arith O>
inline T statement(T x, T y, T z) {
    using W = Wide<T>;
    if constexpr (O == Arith::add) return static_cast<T>(W(y) + W(z));
    else if constexpr (O == Arith::subtract) return static_cast<T>(W(y) - W(z));
    else if constexpr (O == Arith::multiply) return static_cast<T>(W(y) * W(z));
    else if constexpr (O == Arith::divide) return static_cast<T>(y / z);  // operands positive: no overflow
    else return static_cast<T>(W(x) + W(y) * W(z));
}

// A chain step x = x op y (x + y * z for madd): each result feeds the next.
template <class T, Arith O>
inline T chain(T x, T y, T z) {
    return O == Arith::madd ? statement<T, O>(x, y, z) : statement<T, O>(x, x, y);
}

// Makes x opaque to the optimiser while leaving it in a register, so a chain of
// steps is neither folded into one (x += y, n times, into x += n y) nor
// vectorised across chains.
template <class T>
inline void opaque(T &x) {
#if defined(__GNUC__)
    if constexpr (std::is_integral_v<T>) {
        asm volatile("" : "+r"(x));
    } else {
#if defined(__x86_64__) || defined(__i386__)
        asm volatile("" : "+x"(x));
#elif defined(__aarch64__)
        asm volatile("" : "+w"(x));
#else
        asm volatile("" : "+m"(x));
#endif
    }
#else
    volatile T sink = x;
    x = sink;
#endif
}

template <class T>
void escape(T *p) {
#if defined(__GNUC__)
    asm volatile("" : : "g"(p) : "memory");
#else
    static volatile T *sink;
    sink = p;
#endif
}

// The sweeps are never inlined (the timing loop stays outside) and are compiled
// without auto-vectorisation, like the paper's SPARC code: GCC takes the
// optimize attribute per function, Clang a pragma per loop.
#if defined(__clang__)
#define DM_CM5_SCALAR __attribute__((noinline))
#define DM_CM5_LOOP _Pragma("clang loop vectorize(disable) interleave(disable)")
#elif defined(__GNUC__)
#define DM_CM5_SCALAR __attribute__((noinline, optimize("no-tree-vectorize")))
#define DM_CM5_LOOP
#else
#define DM_CM5_SCALAR
#define DM_CM5_LOOP
#endif

template <class T, Arith O>
DM_CM5_SCALAR void register_sweep(std::size_t n, T *state, T y, T z) {
    T x0 = state[0], x1 = state[1], x2 = state[2], x3 = state[3];
    DM_CM5_LOOP for (std::size_t i = 0; i < n; i += 4) {
        x0 = chain<T, O>(x0, y, z);
        x1 = chain<T, O>(x1, y, z);
        x2 = chain<T, O>(x2, y, z);
        x3 = chain<T, O>(x3, y, z);
        opaque(x0);
        opaque(x1);
        opaque(x2);
        opaque(x3);
    }
    state[0] = x0, state[1] = x1, state[2] = x2, state[3] = x3;
}

template <class T, Arith O>
DM_CM5_SCALAR void array_scalars_sweep(std::size_t n, T *a, const volatile T *s1, const volatile T *s2) {
    DM_CM5_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = statement<T, O>(a[i], *s1, *s2);
}

template <class T, Arith O>
DM_CM5_SCALAR void three_arrays_sweep(std::size_t n, T *a, const T *b, const T *c) {
    DM_CM5_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = statement<T, O>(a[i], b[i + 1], c[i + 2]);
}

template <class T, Arith O>
DM_CM5_SCALAR void two_arrays_scalar_sweep(std::size_t n, T *a, const T *b, const volatile T *s) {
    DM_CM5_LOOP for (std::size_t i = 0; i < n; ++i) a[i] = statement<T, O>(a[i], b[i], *s);
}

#undef DM_CM5_SCALAR
#undef DM_CM5_LOOP

template <class T, Arith O>
std::vector<double> run_scalar(Operands form, std::size_t n, int reps, int warmup, int iters) {
    // Operand values keep every result finite and every division exact and
    // non-zero; the register chains multiply and divide by 1, which the compiler
    // cannot know (the values come through volatile reads).
    volatile T one = T(1), six = T(6), three = T(3);
    std::vector<T> a(n, T(1)), b(n + 2, T(six)), c(n + 2, T(three)), state(4, T(one));
    const T y = one, z = one;
    auto sweep = [&] {
        switch (form) {
            case Operands::registers: register_sweep<T, O>(n, state.data(), y, z); escape(state.data()); break;
            case Operands::array_scalars: array_scalars_sweep<T, O>(n, a.data(), &six, &three); break;
            case Operands::three_arrays: three_arrays_sweep<T, O>(n, a.data(), b.data(), c.data()); break;
            case Operands::two_arrays_scalar: two_arrays_scalar_sweep<T, O>(n, a.data(), b.data(), &three); break;
        }
        escape(a.data());
    };
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        const double t0 = now();
        for (int i = 0; i < iters; ++i) sweep();
        const double t = (now() - t0) / (static_cast<double>(iters) * static_cast<double>(n));
        if (rep >= 0) samples.push_back(t);
    }
    return samples;
}

template <class T>
std::vector<double> scalar_of(Arith op, Operands form, std::size_t n, int reps, int warmup, int iters) {
    switch (op) {
        case Arith::add: return run_scalar<T, Arith::add>(form, n, reps, warmup, iters);
        case Arith::subtract: return run_scalar<T, Arith::subtract>(form, n, reps, warmup, iters);
        case Arith::multiply: return run_scalar<T, Arith::multiply>(form, n, reps, warmup, iters);
        case Arith::divide: return run_scalar<T, Arith::divide>(form, n, reps, warmup, iters);
        default: return run_scalar<T, Arith::madd>(form, n, reps, warmup, iters);
    }
}

// ---------------------------------------------------------------------------
// Table 4: reductions and scans
// ---------------------------------------------------------------------------

enum class Reduce { sum, prod, max, min, band, bor, bxor, land, lor };
const char *const kReduceNames[] = {"sum", "prod", "max", "min", "band", "bor", "bxor", "land", "lor"};

Reduce reduce_of(const std::string &op) {
    for (int i = 0; i < 9; ++i)
        if (op == kReduceNames[i]) return static_cast<Reduce>(i);
    fail(DM_ERR_ARG, "bench: unknown reduction operator '", op, "' (sum, prod, max, min, band, bor, bxor, land, lor)");
}

MPI_Op mpi_op(Reduce op) {
    switch (op) {
        case Reduce::sum: return MPI_SUM;
        case Reduce::prod: return MPI_PROD;
        case Reduce::max: return MPI_MAX;
        case Reduce::min: return MPI_MIN;
        case Reduce::band: return MPI_BAND;
        case Reduce::bor: return MPI_BOR;
        case Reduce::bxor: return MPI_BXOR;
        case Reduce::land: return MPI_LAND;
        default: return MPI_LOR;
    }
}

template <class T>
MPI_Datatype mpi_type() {
    if constexpr (std::is_same_v<T, std::int32_t>) return MPI_INT32_T;
    else if constexpr (std::is_same_v<T, std::uint32_t>) return MPI_UINT32_T;
    else if constexpr (std::is_same_v<T, std::int64_t>) return MPI_INT64_T;
    else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
    else return MPI_DOUBLE;
}

// Element i of `rank`'s input: small values, so sums and products of floats are
// exact in any order and every operator's result depends on every rank.
template <class T>
T reduce_input(Reduce op, int rank, std::size_t i) {
    const auto r = static_cast<std::int64_t>(rank), k = static_cast<std::int64_t>(i % 1024);
    switch (op) {
        case Reduce::prod: return T((r + k) % 2 + 1);
        case Reduce::band: case Reduce::bor: case Reduce::bxor: return T((r * 37 + k * 11 + 5) & 0x7f);
        case Reduce::land: case Reduce::lor: return T((r + k) % 3 != 0);
        default: return T((r * 7 + k * 3) % 11 + 1);
    }
}

template <class T>
T reduce_combine(Reduce op, T a, T b) {
    using W = Wide<T>;
    switch (op) {
        case Reduce::sum: return static_cast<T>(W(a) + W(b));
        case Reduce::prod: return static_cast<T>(W(a) * W(b));
        case Reduce::max: return a < b ? b : a;
        case Reduce::min: return b < a ? b : a;
        case Reduce::land: return T(a != T(0) && b != T(0));
        case Reduce::lor: return T(a != T(0) || b != T(0));
        default: break;
    }
    if constexpr (std::is_integral_v<T>) {
        if (op == Reduce::band) return a & b;
        if (op == Reduce::bor) return a | b;
        return a ^ b;
    }
    fail(DM_ERR_INTERNAL, "bitwise reduction of a floating-point type");
}

template <class T>
std::vector<double> run_reduction(MPI_Comm comm, const std::string &collective, Reduce op, std::size_t count, int reps,
                                  int warmup, bool validate) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    const int n = static_cast<int>(count);
    std::vector<T> in(count), out(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = reduce_input<T>(op, rank, i);
    // The result this rank must hold: the fold over every rank (or up to this one, for a scan).
    const bool checks = validate && (collective != "reduce" || rank == 0);
    std::vector<T> expected;
    if (checks) {
        const int last = collective == "scan" ? rank : size - 1;
        expected.resize(count);
        for (std::size_t i = 0; i < count; ++i) {
            T acc = reduce_input<T>(op, 0, i);
            for (int r = 1; r <= last; ++r) acc = reduce_combine<T>(op, acc, reduce_input<T>(op, r, i));
            expected[i] = acc;
        }
    }
    const MPI_Op mop = mpi_op(op);
    const MPI_Datatype type = mpi_type<T>();
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        if (checks) std::memset(static_cast<void *>(out.data()), 0x5a, count * sizeof(T));  // stale results show
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        if (collective == "reduce") check_mpi(MPI_Reduce(in.data(), out.data(), n, type, mop, 0, comm), "MPI_Reduce");
        else if (collective == "allreduce")
            check_mpi(MPI_Allreduce(in.data(), out.data(), n, type, mop, comm), "MPI_Allreduce");
        else check_mpi(MPI_Scan(in.data(), out.data(), n, type, mop, comm), "MPI_Scan");
        const double t = detail::slowest(comm, MPI_Wtime() - t0);
        if (rep >= 0) samples.push_back(t);
        if (!checks || failure) continue;
        try {
            for (std::size_t i = 0; i < count; ++i)
                if (!(out[i] == expected[i]))
                    fail(DM_ERR_INTERNAL, collective, " ", kReduceNames[static_cast<int>(op)], ": element ", i,
                         " is ", out[i], " (expected ", expected[i], ")");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

bool is_integer_type(const std::string &dtype) { return dtype == "int32" || dtype == "uint32" || dtype == "int64"; }

}  // namespace

std::vector<double> scalar_op(const std::string &dtype, const std::string &op, const std::string &operands,
                              std::size_t n, int reps, int warmup, int iters) {
    const Arith arith = arith_of(op);
    const Operands form = operands_of(operands);
    check_reps(reps, warmup);
    if (iters < 1) fail(DM_ERR_ARG, "bench: iters must be positive");
    if (n < 4 || n % 4 != 0 || n > (std::size_t(1) << 28))
        fail(DM_ERR_ARG, "bench: scalar operations need n a positive multiple of 4 (at most 2^28), got ", n);
    if (dtype == "int16") return scalar_of<std::int16_t>(arith, form, n, reps, warmup, iters);
    if (dtype == "int32") return scalar_of<std::int32_t>(arith, form, n, reps, warmup, iters);
    if (dtype == "int64") return scalar_of<std::int64_t>(arith, form, n, reps, warmup, iters);
    if (dtype == "float32") return scalar_of<float>(arith, form, n, reps, warmup, iters);
    if (dtype == "float64") return scalar_of<double>(arith, form, n, reps, warmup, iters);
    fail(DM_ERR_ARG, "bench: unknown element type '", dtype, "' (int16, int32, int64, float32, float64)");
}

int scalar_op_count(const std::string &op) { return arith_of(op) == Arith::madd ? 2 : 1; }

std::vector<double> reduction(MPI_Comm comm, const std::string &collective_name, const std::string &op,
                              const std::string &dtype, std::size_t count, int reps, int warmup, bool validate) {
    Reduce rop = Reduce::sum;
    collective(comm, [&] {
        if (collective_name != "reduce" && collective_name != "allreduce" && collective_name != "scan")
            fail(DM_ERR_ARG, "bench: unknown reduction collective '", collective_name, "' (reduce, allreduce, scan)");
        rop = reduce_of(op);
        const bool integer = is_integer_type(dtype);
        if (!integer && dtype != "float32" && dtype != "float64")
            fail(DM_ERR_ARG, "bench: unknown element type '", dtype, "' (int32, uint32, int64, float32, float64)");
        if (!integer && rop >= Reduce::band)
            fail(DM_ERR_ARG, "bench: operator '", op, "' is defined on integer types only, not ", dtype);
        check_reps(reps, warmup);
        if (count > static_cast<std::size_t>(INT32_MAX)) fail(DM_ERR_ARG, "bench: count too large");
    });
    if (dtype == "int32") return run_reduction<std::int32_t>(comm, collective_name, rop, count, reps, warmup, validate);
    if (dtype == "uint32") return run_reduction<std::uint32_t>(comm, collective_name, rop, count, reps, warmup, validate);
    if (dtype == "int64") return run_reduction<std::int64_t>(comm, collective_name, rop, count, reps, warmup, validate);
    if (dtype == "float32") return run_reduction<float>(comm, collective_name, rop, count, reps, warmup, validate);
    return run_reduction<double>(comm, collective_name, rop, count, reps, warmup, validate);
}

std::vector<double> aligned_pingpong(MPI_Comm comm, int a, int b, std::size_t bytes, std::size_t offset, int reps,
                                     int warmup, int iters, bool validate) {
    constexpr int kTag = 11;
    constexpr std::size_t kLine = 64;
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    collective(comm, [&] {
        if (a < 0 || a >= size || b < 0 || b >= size || a == b)
            fail(DM_ERR_ARG, "bench: the pair (", a, ", ", b, ") must be two distinct ranks of ", size);
        if (offset >= kLine) fail(DM_ERR_ARG, "bench: alignment offset must be 0 .. 63, got ", offset);
        check_reps(reps, warmup);
        if (iters < 1) fail(DM_ERR_ARG, "bench: iters must be positive");
        if (bytes > static_cast<std::size_t>(INT32_MAX) - 2 * kLine) fail(DM_ERR_ARG, "bench: message too large");
    });
    std::vector<unsigned char> storage(bytes + 2 * kLine);
    const auto base = reinterpret_cast<std::uintptr_t>(storage.data());
    unsigned char *buf = storage.data() + ((kLine - base % kLine) % kLine) + offset;
    const int n = static_cast<int>(bytes);
    const bool member = rank == a || rank == b;
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        if (!member) continue;
        if (validate && rank == a) detail::fill(buf, bytes, rep);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < iters; ++i) {
            if (rank == a) {
                check_mpi(MPI_Send(buf, n, MPI_BYTE, b, kTag, comm), "MPI_Send");
                check_mpi(MPI_Recv(buf, n, MPI_BYTE, b, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
            } else {
                check_mpi(MPI_Recv(buf, n, MPI_BYTE, a, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
                check_mpi(MPI_Send(buf, n, MPI_BYTE, a, kTag, comm), "MPI_Send");
            }
        }
        const double t = (MPI_Wtime() - t0) / (2.0 * iters);
        if (rep >= 0) samples.push_back(t);
        if (validate && !failure)
            try { detail::verify(buf, bytes, rep, "aligned pingpong"); } catch (...) { failure = std::current_exception(); }
    }
    agree(comm, failure);
    return samples;
}

std::vector<double> hypercube_dimension(MPI_Comm comm, int dimension, std::size_t bytes, int reps, int warmup,
                                        bool validate) {
    int size = 1;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    int cube = 1, dims = 0;
    while (cube * 2 <= size) cube *= 2, ++dims;
    collective(comm, [&] {
        if (dimension < 0 || dimension >= dims)
            fail(DM_ERR_ARG, "bench: hypercube dimension ", dimension, " is outside 0 .. ", dims - 1, " for ", size,
                 " ranks");
        check_reps(reps, warmup);
        if (bytes > static_cast<std::size_t>(INT32_MAX)) fail(DM_ERR_ARG, "bench: message too large");
    });
    // One exchange along a dimension is a matching: rank j with j xor 2^dimension, the ranks past the cube sit out.
    std::vector<int> partner(static_cast<std::size_t>(size), -1);
    for (int r = 0; r < cube; ++r) partner[static_cast<std::size_t>(r)] = r ^ (1 << dimension);
    return matching(comm, partner, {bytes, reps, warmup, validate});
}

}  // namespace dm::bench
