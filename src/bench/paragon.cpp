#include "bench/paragon.hpp"

#include "bench/common.hpp"
#include "core/error.hpp"

#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace dm::bench {
namespace {

constexpr int kTag = 13;
constexpr std::size_t kPage = 4096;  // the paper aligns every array to the Paragon's page

// The seed of message `m` that rank `from` sends in repetition `rep`.
int seed_of(int from, int m, int rep) { return (rep * 1009 + from) * 31 + m; }

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// Keeps the compiler from removing copies whose result is never read.
void escape(void *p) { asm volatile("" : : "g"(p) : "memory"); }

unsigned char guard_byte(std::size_t i) { return static_cast<unsigned char>(0x5a ^ (i * 3)); }

struct FreeDeleter {
    void operator()(unsigned char *p) const { std::free(p); }
};
using PageBuffer = std::unique_ptr<unsigned char, FreeDeleter>;

PageBuffer page_aligned(std::size_t bytes) {
    const std::size_t rounded = (bytes + kPage - 1) / kPage * kPage;
    auto *p = static_cast<unsigned char *>(std::aligned_alloc(kPage, rounded));
    if (!p) fail(DM_ERR_MEMORY, "bench memcpy_offsets: cannot allocate ", rounded, " bytes");
    std::memset(p, 0, rounded);  // first touch outside the timed copies
    return PageBuffer(p);
}

}  // namespace

std::vector<double> chain_exchange(MPI_Comm comm, int pairs, int messages, const PatternOptions &o) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    collective(comm, [&] {
        if (o.reps < 1 || o.warmup < 0) fail(DM_ERR_ARG, "bench chain_exchange: reps must be positive, warmup non-negative");
        if (pairs < 1 || pairs > size / 2)
            fail(DM_ERR_ARG, "bench chain_exchange: ", pairs, " pair(s) need ", 2 * pairs, " ranks; there are ", size);
        if (messages < 1) fail(DM_ERR_ARG, "bench chain_exchange: messages must be positive, got ", messages);
        if (o.bytes > static_cast<std::size_t>(INT32_MAX)) fail(DM_ERR_ARG, "bench chain_exchange: message too large");
        if (o.bytes * static_cast<std::size_t>(messages) > (std::size_t{1} << 31))
            fail(DM_ERR_ARG, "bench chain_exchange: ", messages, " messages of ", o.bytes, " bytes exceed 2 GiB");
    });
    const int chain = 2 * pairs;
    const bool member = rank < chain;
    const int partner = chain - 1 - rank;
    const auto count = static_cast<std::size_t>(messages);
    const std::size_t bytes = member ? o.bytes : 0;
    const int n = static_cast<int>(o.bytes);
    // One buffer per message each way, so a message landing in the wrong place shows.
    std::vector<unsigned char> out(count * bytes), in(count * bytes);
    std::vector<MPI_Request> requests(2 * count, MPI_REQUEST_NULL);
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -o.warmup; rep < o.reps; ++rep) {
        if (member) {
            if (o.validate)
                for (std::size_t m = 0; m < count; ++m)
                    detail::fill(out.data() + m * bytes, bytes, seed_of(rank, static_cast<int>(m), rep));
            for (std::size_t m = 0; m < count; ++m)
                check_mpi(MPI_Irecv(in.data() + m * bytes, n, MPI_BYTE, partner, kTag, comm, &requests[m]),
                          "MPI_Irecv");
        }
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");  // every receive is posted before any send
        const double t0 = MPI_Wtime();
        if (member) {
            for (std::size_t m = 0; m < count; ++m)
                check_mpi(MPI_Isend(out.data() + m * bytes, n, MPI_BYTE, partner, kTag, comm, &requests[count + m]),
                          "MPI_Isend");
            check_mpi(MPI_Waitall(static_cast<int>(2 * count), requests.data(), MPI_STATUSES_IGNORE), "MPI_Waitall");
        }
        const double t = detail::slowest(comm, member ? MPI_Wtime() - t0 : 0.0);
        if (rep >= 0) samples.push_back(t);
        if (!o.validate || !member || failure) continue;
        try {  // same tag and partner: MPI's non-overtaking order puts message m in buffer m
            for (std::size_t m = 0; m < count; ++m)
                detail::verify(in.data() + m * bytes, bytes, seed_of(partner, static_cast<int>(m), rep),
                               "chain_exchange");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

std::vector<double> memcpy_offsets(std::size_t bytes, int src_offset, int dst_offset, int reps, int warmup, int iters,
                                   bool validate) {
    if (reps < 1 || warmup < 0 || iters < 1)
        fail(DM_ERR_ARG, "bench memcpy_offsets: reps and iters must be positive, warmup non-negative");
    if (src_offset < 0 || dst_offset < 0 || src_offset >= static_cast<int>(kPage) ||
        dst_offset >= static_cast<int>(kPage))
        fail(DM_ERR_ARG, "bench memcpy_offsets: offsets must be in 0 .. ", kPage - 1, ", got ", src_offset, " and ",
             dst_offset);
    if (bytes > (std::size_t{1} << 34)) fail(DM_ERR_ARG, "bench memcpy_offsets: ", bytes, " bytes is too large");
    const std::size_t extent = bytes + kPage;  // room for the largest offset and the guard after the copy
    PageBuffer src = page_aligned(extent), dst = page_aligned(extent);
    unsigned char *from = src.get() + src_offset, *to = dst.get() + dst_offset;
    std::vector<double> samples;
    for (int rep = -warmup; rep < reps; ++rep) {
        if (validate) {
            detail::fill(from, bytes, rep + 1000);
            for (std::size_t i = 0; i < extent; ++i) dst.get()[i] = guard_byte(i);
        }
        const double t0 = now();
        for (int i = 0; i < iters; ++i) {
            std::memcpy(to, from, bytes);
            escape(to);
        }
        const double t = (now() - t0) / iters;
        if (rep >= 0) samples.push_back(t);
        if (!validate) continue;
        detail::verify(to, bytes, rep + 1000, "memcpy_offsets");
        for (std::size_t i = 0; i < extent; ++i) {
            const bool copied = i >= static_cast<std::size_t>(dst_offset) && i < dst_offset + bytes;
            if (!copied && dst.get()[i] != guard_byte(i))
                fail(DM_ERR_INTERNAL, "memcpy_offsets: byte ", i, " of the destination page(s), outside the copy, "
                     "was overwritten");
        }
    }
    return samples;
}

}  // namespace dm::bench
