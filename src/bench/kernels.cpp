#include "bench/kernels.hpp"

#include "bench/common.hpp"
#include "core/error.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>

namespace dm::bench {
namespace {

constexpr int kTag = 7;

void fill(std::vector<unsigned char> &buf, int seed) { detail::fill(buf.data(), buf.size(), seed); }

// Flips the byte a test asked for (see PairOptions::corrupt_byte), then checks.
void verify(unsigned char *buf, std::size_t n, int seed, std::int64_t corrupt_byte, const char *kernel) {
    detail::corrupt(buf, n, corrupt_byte);
    detail::verify(buf, n, seed, kernel);
}

void check_counts(int reps, int warmup, int iters) {
    if (reps < 1 || iters < 1 || warmup < 0)
        fail(DM_ERR_ARG, "bench: reps and iters must be positive, warmup non-negative");
}

void check_corruption(std::int64_t corrupt_byte, std::size_t received) {
    if (corrupt_byte >= 0 && static_cast<std::uint64_t>(corrupt_byte) >= received)
        fail(DM_ERR_ARG, "bench: corrupt_byte ", corrupt_byte, " is not one of the ", received, " bytes received");
}

int check_pair(MPI_Comm comm, const PairOptions &o) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    collective(comm, [&] {
        if (o.a < 0 || o.a >= size || o.b < 0 || o.b >= size || o.a == o.b)
            fail(DM_ERR_ARG, "bench: the pair (", o.a, ", ", o.b, ") must be two distinct ranks of ", size);
        check_counts(o.reps, o.warmup, o.iters);
        if (o.window < 1) fail(DM_ERR_ARG, "bench: window must be positive");
        if (o.bytes > static_cast<std::size_t>(INT32_MAX)) fail(DM_ERR_ARG, "bench: message too large");
        check_corruption(o.corrupt_byte, o.bytes);
    });
    return rank;
}

// Runs `body(seed, count)` (count operations, returning the time per operation)
// once with o.warmup unrecorded operations, then o.reps times with o.iters,
// each after a synchronised start; returns the samples (empty off the pair).
template <class Body>
std::vector<double> run_pair(MPI_Comm comm, const PairOptions &o, int rank, Body &&body) {
    std::vector<double> samples;
    for (int rep = o.warmup > 0 ? -1 : 0; rep < o.reps; ++rep) {
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");  // synchronised start
        if (rank != o.a && rank != o.b) continue;
        const double seconds = body(rep, rep < 0 ? o.warmup : o.iters);
        if (rep >= 0) samples.push_back(seconds);
    }
    return samples;
}

}  // namespace

std::vector<double> pingpong(MPI_Comm comm, const PairOptions &o) {
    const int rank = check_pair(comm, o);
    // Each rank sends from `out` and receives into `in`, as osu_latency does: an echo
    // of the received buffer itself would time its transfer between the cores' caches.
    std::vector<unsigned char> out(o.bytes), in(o.bytes);
    const int n = static_cast<int>(o.bytes), peer = rank == o.a ? o.b : o.a;
    auto seed = [&](int who, int rep) { return 2 * rep + (who == o.a ? 0 : 1); };  // a wrong direction shows
    std::exception_ptr failure;
    auto samples = run_pair(comm, o, rank, [&](int rep, int count) {
        if (o.validate) fill(out, seed(rank, rep));
        const double t0 = MPI_Wtime();
        for (int i = 0; i < count; ++i) {
            if (rank == o.a) {
                check_mpi(MPI_Send(out.data(), n, MPI_BYTE, o.b, kTag, comm), "MPI_Send");
                check_mpi(MPI_Recv(in.data(), n, MPI_BYTE, o.b, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
            } else {
                check_mpi(MPI_Recv(in.data(), n, MPI_BYTE, o.a, kTag, comm, MPI_STATUS_IGNORE), "MPI_Recv");
                check_mpi(MPI_Send(out.data(), n, MPI_BYTE, o.a, kTag, comm), "MPI_Send");
            }
        }
        const double t = (MPI_Wtime() - t0) / (2.0 * count);
        if (o.validate && rep >= 0 && !failure) try {
            verify(in.data(), in.size(), seed(peer, rep), o.corrupt_byte, "pingpong");
        } catch (...) {
            failure = std::current_exception();
        }
        return t;
    });
    agree(comm, failure);
    return samples;
}

std::vector<double> exchange(MPI_Comm comm, const PairOptions &o) {
    const int rank = check_pair(comm, o);
    std::vector<unsigned char> out(o.bytes), in(o.bytes);
    const int n = static_cast<int>(o.bytes);
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -o.warmup; rep < o.reps; ++rep) {  // one exchange per warm-up operation and per sample
        const bool member = rank == o.a || rank == o.b;
        const int peer = rank == o.a ? o.b : o.a;
        MPI_Request recv = MPI_REQUEST_NULL, send = MPI_REQUEST_NULL;
        if (o.validate && member) fill(out, rep);
        if (member) check_mpi(MPI_Irecv(in.data(), n, MPI_BYTE, peer, kTag, comm, &recv), "MPI_Irecv");
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");  // every receive is posted before any send
        const double t0 = MPI_Wtime();
        if (member) {
            check_mpi(MPI_Isend(out.data(), n, MPI_BYTE, peer, kTag, comm, &send), "MPI_Isend");
            check_mpi(MPI_Wait(&send, MPI_STATUS_IGNORE), "MPI_Wait");
            check_mpi(MPI_Wait(&recv, MPI_STATUS_IGNORE), "MPI_Wait");
        }
        const double t = MPI_Wtime() - t0;
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        if (member && rep >= 0) samples.push_back(t);
        if (member && o.validate && rep >= 0 && !failure) try {
            verify(in.data(), in.size(), rep, o.corrupt_byte, "exchange");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

namespace {
std::vector<double> windowed(MPI_Comm comm, const PairOptions &o, bool both_ways, const char *name) {
    const int rank = check_pair(comm, o);
    const int n = static_cast<int>(o.bytes);
    const auto window = static_cast<std::size_t>(o.window);
    std::vector<unsigned char> out(o.bytes);
    // osu_bw receives the whole window into one buffer, which stays in cache; we do the
    // same so that the two read alike. Checking every message needs a buffer for each.
    // Left uninitialised: the warm-up's messages touch it first.
    const std::size_t stride = o.validate ? o.bytes : 0;
    std::unique_ptr<unsigned char[]> in(new unsigned char[o.validate ? window * o.bytes : std::max<std::size_t>(o.bytes, 1)]);
    std::vector<MPI_Request> requests(2 * window);
    unsigned char ack = 0;
    std::exception_ptr failure;
    auto samples = run_pair(comm, o, rank, [&](int rep, int count) {
        const int peer = rank == o.a ? o.b : o.a;
        const bool sends = rank == o.a || both_ways, receives = rank == o.b || both_ways;
        if (o.validate && sends) fill(out, rep);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < count; ++i) {
            int posted = 0;
            for (std::size_t w = 0; receives && w < window; ++w)
                check_mpi(MPI_Irecv(in.get() + w * stride, n, MPI_BYTE, peer, kTag, comm, &requests[posted++]),
                          "MPI_Irecv");
            for (std::size_t w = 0; sends && w < window; ++w)
                check_mpi(MPI_Isend(out.data(), n, MPI_BYTE, peer, kTag, comm, &requests[posted++]), "MPI_Isend");
            check_mpi(MPI_Waitall(posted, requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
            // A one-byte acknowledgement closes the window: a's time includes the delivery.
            if (rank == o.b) check_mpi(MPI_Send(&ack, 1, MPI_BYTE, o.a, kTag + 1, comm), "MPI_Send");
            else check_mpi(MPI_Recv(&ack, 1, MPI_BYTE, o.b, kTag + 1, comm, MPI_STATUS_IGNORE), "MPI_Recv");
        }
        const double t = (MPI_Wtime() - t0) / (static_cast<double>(count) * o.window);
        if (o.validate && receives && rep >= 0 && !failure) try {
            for (std::size_t w = 0; w < window; ++w)
                verify(in.get() + w * o.bytes, o.bytes, rep, w == 0 ? o.corrupt_byte : -1, name);
        } catch (...) {
            failure = std::current_exception();
        }
        return t;
    });
    agree(comm, failure);
    return samples;
}
}  // namespace

std::vector<double> stream(MPI_Comm comm, const PairOptions &o) { return windowed(comm, o, false, "stream"); }
std::vector<double> bidirectional(MPI_Comm comm, const PairOptions &o) { return windowed(comm, o, true, "bidir"); }

std::vector<double> barrier(MPI_Comm comm, int reps, int warmup, int iters) {
    collective(comm, [&] { check_counts(reps, warmup, iters); });
    std::vector<double> samples;
    for (int rep = warmup > 0 ? -1 : 0; rep < reps; ++rep) {
        const int count = rep < 0 ? warmup : iters;
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");  // synchronised start
        const double t0 = MPI_Wtime();
        for (int i = 0; i < count; ++i) check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double mean = detail::mean_over_ranks(comm, (MPI_Wtime() - t0) / count);
        if (rep >= 0) samples.push_back(mean);
    }
    return samples;
}

namespace {

// The buffers of one collective's benchmark: bytes out and in, doubles out and in.
struct CollectiveBuffers {
    std::vector<unsigned char> out, in;
    std::vector<double> dout, din;
};

// One call of collective `op` on n bytes (or count_doubles doubles, summed).
void run_collective(MPI_Comm comm, const std::string &op, int rank, int n, int count_doubles, CollectiveBuffers &b) {
    if (op == "bcast") check_mpi(MPI_Bcast(rank == 0 ? b.out.data() : b.in.data(), n, MPI_BYTE, 0, comm), "MPI_Bcast");
    else if (op == "reduce")
        check_mpi(MPI_Reduce(b.dout.data(), b.din.data(), count_doubles, MPI_DOUBLE, MPI_SUM, 0, comm), "MPI_Reduce");
    else if (op == "allreduce")
        check_mpi(MPI_Allreduce(b.dout.data(), b.din.data(), count_doubles, MPI_DOUBLE, MPI_SUM, comm),
                  "MPI_Allreduce");
    else if (op == "scan")
        check_mpi(MPI_Scan(b.dout.data(), b.din.data(), count_doubles, MPI_DOUBLE, MPI_SUM, comm), "MPI_Scan");
    else if (op == "exscan")
        check_mpi(MPI_Exscan(b.dout.data(), b.din.data(), count_doubles, MPI_DOUBLE, MPI_SUM, comm), "MPI_Exscan");
    else if (op == "allgather")
        check_mpi(MPI_Allgather(b.out.data(), n, MPI_BYTE, b.in.data(), n, MPI_BYTE, comm), "MPI_Allgather");
    else check_mpi(MPI_Alltoall(b.out.data(), n, MPI_BYTE, b.in.data(), n, MPI_BYTE, comm), "MPI_Alltoall");
}

// Throws DM_ERR_INTERNAL at the first wrong result of repetition `rep`, whose inputs
// collective_op seeds: bytes by rank (and peer), doubles rank + 1.
void check_collective(const std::string &op, int rank, int size, std::size_t bytes, int rep,
                      const CollectiveBuffers &b) {
    const double total = size * (size + 1) / 2.0, prefix = (rank + 1) * (rank + 2) / 2.0;
    auto expect_doubles = [&](double value) {
        for (double d : b.din)
            if (d != value) fail(DM_ERR_INTERNAL, op, ": wrong result ", d, " (expected ", value, ")");
    };
    auto expect_byte = [&](std::size_t index, int from, std::size_t i) {
        if (b.in[index] != static_cast<unsigned char>(i * 7 + from * 31 + rep))
            fail(DM_ERR_INTERNAL, op, ": wrong byte ", index, " from rank ", from);
    };
    if (op == "bcast" && rank != 0)
        for (std::size_t i = 0; i < bytes; ++i) expect_byte(i, 0, i);
    if ((op == "reduce" && rank == 0) || op == "allreduce") expect_doubles(total);
    if (op == "scan") expect_doubles(prefix);
    if (op == "exscan" && rank > 0) expect_doubles(prefix - (rank + 1));
    if (op == "allgather")
        for (int r = 0; r < size; ++r)
            for (std::size_t i = 0; i < bytes; ++i) expect_byte(r * bytes + i, r, i);
    if (op == "alltoall")  // block `rank` of every sender's buffer
        for (int r = 0; r < size; ++r)
            for (std::size_t i = 0; i < bytes; ++i) expect_byte(r * bytes + i, r, rank * bytes + i);
}

}  // namespace

std::vector<double> collective_op(MPI_Comm comm, const std::string &op, const CollectiveOptions &o) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    static const char *const known[] = {"bcast", "reduce", "allreduce", "scan", "exscan", "allgather", "alltoall"};
    const std::size_t bytes = o.bytes, doubles = bytes / 8;
    const bool reduces = op == "reduce" || op == "allreduce" || op == "scan" || op == "exscan";
    collective(comm, [&] {
        bool ok = false;
        for (const char *k : known) ok = ok || op == k;
        if (!ok) fail(DM_ERR_ARG, "bench: unknown collective '", op, "'");
        check_counts(o.reps, o.warmup, o.iters);
        if (bytes * static_cast<std::size_t>(size) > static_cast<std::size_t>(INT32_MAX))
            fail(DM_ERR_ARG, "bench: message too large");
        check_corruption(o.corrupt_byte, reduces ? doubles * 8 : bytes);
    });
    const int n = static_cast<int>(bytes), count_doubles = static_cast<int>(doubles);
    const bool gathers = op == "allgather" || op == "alltoall";
    CollectiveBuffers b{std::vector<unsigned char>(op == "alltoall" ? bytes * size : bytes),
                        std::vector<unsigned char>(gathers ? bytes * size : bytes), std::vector<double>(doubles),
                        std::vector<double>(doubles)};
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = o.warmup > 0 ? -1 : 0; rep < o.reps; ++rep) {
        const int count = rep < 0 ? o.warmup : o.iters;
        // Inputs that make every result checkable: bytes seeded by rank (and peer), doubles = rank + 1.
        for (std::size_t i = 0; i < b.out.size(); ++i) b.out[i] = static_cast<unsigned char>(i * 7 + rank * 31 + rep);
        for (auto &d : b.dout) d = rank + 1;
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        double busy = 0;
        for (int i = 0; i < count; ++i) {
            const double t0 = MPI_Wtime();
            run_collective(comm, op, rank, n, count_doubles, b);
            busy += MPI_Wtime() - t0;
            check_mpi(MPI_Barrier(comm), "MPI_Barrier");  // untimed, as in osu_allreduce
        }
        const double mean = detail::mean_over_ranks(comm, busy / count);
        if (rep < 0) continue;
        samples.push_back(mean);
        if (!o.validate || failure) continue;
        try {
            if (reduces) detail::corrupt(reinterpret_cast<unsigned char *>(b.din.data()), doubles * 8, o.corrupt_byte);
            else detail::corrupt(b.in.data(), bytes, o.corrupt_byte);
            check_collective(op, rank, size, bytes, rep, b);
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

namespace {

enum class ScanOp { add, max, min };

// One rank's contribution to the scan across ranks: op over its elements since
// its last segment start (over all of them when none starts there).
template <class T>
struct Carry {
    T value;
    std::int64_t starts;  // 1 if a segment starts among the elements
};

template <class T, ScanOp Op>
T apply(T a, T b) {
    if constexpr (Op == ScanOp::add) return a + b;
    else if constexpr (Op == ScanOp::max) return a < b ? b : a;
    else return b < a ? b : a;
}

template <class T, ScanOp Op>
T identity() {
    using limits = std::numeric_limits<T>;
    if constexpr (Op == ScanOp::add) return T(0);
    else if constexpr (Op == ScanOp::max) return limits::has_infinity ? -limits::infinity() : limits::lowest();
    else return limits::has_infinity ? limits::infinity() : limits::max();
}

// The segmented operator, earlier operand `in`, later `inout`: a segment start in
// the later one discards the earlier value. Associative, not commutative (MPI
// combines in rank order).
template <class T, ScanOp Op>
void combine(void *in, void *inout, int *len, MPI_Datatype *) {
    for (int i = 0; i < *len; ++i) {
        Carry<T> a, b;  // copied: MPI's temporary buffers need not be aligned for Carry
        std::memcpy(&a, static_cast<const char *>(in) + i * sizeof a, sizeof a);
        std::memcpy(&b, static_cast<char *>(inout) + i * sizeof b, sizeof b);
        if (!b.starts) b.value = apply<T, Op>(a.value, b.value);
        b.starts |= a.starts;
        std::memcpy(static_cast<char *>(inout) + i * sizeof b, &b, sizeof b);
    }
}

// Element g of the input: small integers, so float64 sums are exact in any order.
template <class T>
T scan_input(std::int64_t g) {
    return static_cast<T>((g * 37 + 11) % 101 - 50);
}

// Frees the pair datatype and the operator however the kernel ends.
struct ScanHandles {
    MPI_Datatype pair = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    ScanHandles() = default;
    ScanHandles(const ScanHandles &) = delete;
    ScanHandles &operator=(const ScanHandles &) = delete;
    ~ScanHandles() {
        if (op != MPI_OP_NULL) MPI_Op_free(&op);
        if (pair != MPI_DATATYPE_NULL) MPI_Type_free(&pair);
    }
};

template <class T, ScanOp Op>
std::vector<double> run_segscan(MPI_Comm comm, int rank, std::int64_t m, std::int64_t length, int reps, int warmup,
                                bool validate) {
    static_assert(sizeof(Carry<T>) == 2 * sizeof(std::int64_t), "Carry travels as two 64-bit integers");
    const T none = identity<T, Op>();
    const std::int64_t first = rank * m;  // global index of this rank's first element
    std::vector<T> in(static_cast<std::size_t>(m)), out(static_cast<std::size_t>(m)), expected;
    for (std::int64_t i = 0; i < m; ++i) in[i] = scan_input<T>(first + i);
    if (validate) {  // serially, from the start of the segment of this rank's first element
        expected.resize(static_cast<std::size_t>(m));
        T run = none;
        for (std::int64_t g = first / length * length; g < first + m; ++g) {
            if (g % length == 0) run = none;
            if (g >= first) expected[g - first] = run;
            run = apply<T, Op>(run, scan_input<T>(g));
        }
    }
    // The carry runs from the last segment start inside the block, or over all of it.
    const std::int64_t last_start = m > 0 ? (first + m - 1) / length * length : first;
    const bool starts = m > 0 && last_start >= first;
    const std::int64_t from = starts ? last_start - first : 0;
    ScanHandles h;
    check_mpi(MPI_Type_contiguous(2, MPI_INT64_T, &h.pair), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&h.pair), "MPI_Type_commit");
    check_mpi(MPI_Op_create(&combine<T, Op>, 0, &h.op), "MPI_Op_create");
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        if (validate) std::fill(out.begin(), out.end(), T(12345));  // a result left unwritten shows
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        Carry<T> mine{none, starts ? 1 : 0}, before{none, 0};
        for (std::int64_t i = from; i < m; ++i) mine.value = apply<T, Op>(mine.value, in[i]);
        check_mpi(MPI_Exscan(&mine, &before, 1, h.pair, h.op, comm), "MPI_Exscan");
        T run = rank == 0 ? none : before.value;  // Exscan leaves rank 0's result undefined
        std::int64_t position = first % length;   // within the segment, without a division per element
        for (std::int64_t i = 0; i < m; ++i) {
            if (position == 0) run = none;
            out[i] = run;
            run = apply<T, Op>(run, in[i]);
            if (++position == length) position = 0;
        }
        const double t = detail::slowest(comm, MPI_Wtime() - t0);
        if (rep >= 0) samples.push_back(t);
        if (!validate || failure) continue;
        try {
            for (std::int64_t i = 0; i < m; ++i)
                if (!(out[i] == expected[i]))
                    fail(DM_ERR_INTERNAL, "segscan: element ", first + i, " is ", out[i], " (expected ", expected[i],
                         ")");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

template <class T>
std::vector<double> segscan_of(const std::string &op, MPI_Comm comm, int rank, std::int64_t m, std::int64_t length,
                               int reps, int warmup, bool validate) {
    if (op == "add") return run_segscan<T, ScanOp::add>(comm, rank, m, length, reps, warmup, validate);
    if (op == "max") return run_segscan<T, ScanOp::max>(comm, rank, m, length, reps, warmup, validate);
    return run_segscan<T, ScanOp::min>(comm, rank, m, length, reps, warmup, validate);
}

}  // namespace

std::vector<double> segmented_scan(MPI_Comm comm, const std::string &dtype, const std::string &op, std::size_t bytes,
                                   std::int64_t segment_length, int reps, int warmup, bool validate) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    collective(comm, [&] {
        if (dtype != "int64" && dtype != "float64")
            fail(DM_ERR_ARG, "bench: unknown element type '", dtype, "' for a segmented scan (int64, float64)");
        if (op != "add" && op != "max" && op != "min")
            fail(DM_ERR_ARG, "bench: unknown scan operator '", op, "' (add, max, min)");
        if (segment_length < 1) fail(DM_ERR_ARG, "bench: segment_length must be positive, got ", segment_length);
        if (reps < 1 || warmup < 0) fail(DM_ERR_ARG, "bench: reps must be positive, warmup non-negative");
        if (bytes / 8 > static_cast<std::size_t>(INT64_MAX / size)) fail(DM_ERR_ARG, "bench: vector too long");
    });
    const auto m = static_cast<std::int64_t>(bytes / 8);
    if (dtype == "int64") return segscan_of<std::int64_t>(op, comm, rank, m, segment_length, reps, warmup, validate);
    return segscan_of<double>(op, comm, rank, m, segment_length, reps, warmup, validate);
}

}  // namespace dm::bench
