#include "bench/patterns.hpp"

#include "bench/common.hpp"
#include "core/error.hpp"
#include "layout/grid.hpp"

#include <climits>
#include <cstdint>

namespace dm::bench {
namespace {

constexpr int kTag = 11;

struct Comm {
    int rank = 0, size = 1;
};

Comm ranks_of(MPI_Comm comm) {
    Comm c;
    check_mpi(MPI_Comm_rank(comm, &c.rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &c.size), "MPI_Comm_size");
    return c;
}

void check_options(const PatternOptions &o, const char *kernel) {
    if (o.reps < 1 || o.warmup < 0) fail(DM_ERR_ARG, "bench ", kernel, ": reps must be positive, warmup non-negative");
    if (o.bytes > static_cast<std::size_t>(INT32_MAX)) fail(DM_ERR_ARG, "bench ", kernel, ": message too large");
}

// The seed of the message rank `from` sends in repetition `rep`.
int seed_of(int from, int rep) { return from * 7 + rep; }

// Sends `bytes` to `to` while receiving as many from `from`.
void sendrecv(MPI_Comm comm, const unsigned char *out, unsigned char *in, std::size_t bytes, int to, int from) {
    const int n = static_cast<int>(bytes);
    check_mpi(MPI_Sendrecv(out, n, MPI_BYTE, to, kTag, in, n, MPI_BYTE, from, kTag, comm, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
}

}  // namespace

std::vector<double> hypercube(MPI_Comm comm, int dimension, const PatternOptions &o) {
    const Comm c = ranks_of(comm);
    collective(comm, [&] {
        check_options(o, "hypercube");
        if (dimension < 1 || dimension > 30 || (1 << dimension) > c.size)
            fail(DM_ERR_ARG, "bench hypercube: dimension ", dimension, " needs 2^", dimension, " ranks; there are ",
                 c.size, " (1 <= dimension <= log2 ranks)");
    });
    const bool member = c.rank < (1 << dimension);
    const auto steps = static_cast<std::size_t>(dimension);
    std::vector<unsigned char> out(member ? o.bytes : 0), in(member ? steps * o.bytes : 0);  // one inbox per step
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -o.warmup; rep < o.reps; ++rep) {
        if (o.validate && member) detail::fill(out.data(), out.size(), seed_of(c.rank, rep));
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        for (int i = 0; member && i < dimension; ++i) {
            const int peer = c.rank ^ (1 << i);
            sendrecv(comm, out.data(), in.data() + i * o.bytes, o.bytes, peer, peer);
        }
        const double t = detail::slowest(comm, member ? MPI_Wtime() - t0 : 0.0);
        if (rep >= 0) samples.push_back(t);
        if (!o.validate || !member || failure) continue;
        try {
            for (int i = 0; i < dimension; ++i)
                detail::verify(in.data() + i * o.bytes, o.bytes, seed_of(c.rank ^ (1 << i), rep), "hypercube");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

std::vector<double> matching(MPI_Comm comm, const std::vector<int> &partner, const PatternOptions &o) {
    const Comm c = ranks_of(comm);
    collective(comm, [&] {
        check_options(o, "matching");
        if (partner.size() != static_cast<std::size_t>(c.size))
            fail(DM_ERR_ARG, "bench matching: the partner vector has ", partner.size(), " entries for ", c.size,
                 " ranks");
        for (int r = 0; r < c.size; ++r) {
            const int p = partner[r];
            if (p == -1) continue;
            if (p < 0 || p >= c.size || p == r)
                fail(DM_ERR_ARG, "bench matching: partner[", r, "] = ", p, " is not another rank (or -1)");
            if (partner[p] != r)
                fail(DM_ERR_ARG, "bench matching: the partner vector is not symmetric: partner[", r, "] = ", p,
                     " but partner[", p, "] = ", partner[p]);
        }
    });
    require_same(comm, std::vector<std::int64_t>(partner.begin(), partner.end()), "bench matching: the partner vector");
    const int peer = partner[c.rank];
    std::vector<unsigned char> out(peer >= 0 ? o.bytes : 0), in(peer >= 0 ? o.bytes : 0);
    std::exception_ptr failure;
    std::vector<double> samples;
    for (int rep = -o.warmup; rep < o.reps; ++rep) {
        if (o.validate && peer >= 0) detail::fill(out.data(), out.size(), seed_of(c.rank, rep));
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        if (peer >= 0) sendrecv(comm, out.data(), in.data(), o.bytes, peer, peer);
        const double t = detail::slowest(comm, peer >= 0 ? MPI_Wtime() - t0 : 0.0);
        if (rep >= 0) samples.push_back(t);
        if (!o.validate || peer < 0 || failure) continue;
        try {
            detail::verify(in.data(), in.size(), seed_of(peer, rep), "matching");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

MeshSamples mesh_shift(MPI_Comm comm, int rows, int cols, const std::string &placement, const std::string &direction,
                       const PatternOptions &o) {
    const Comm c = ranks_of(comm);
    dm_grid_order order = DM_ORDER_SEND;
    int dr = 0, dc = 0;  // the step to the destination
    collective(comm, [&] {
        check_options(o, "mesh_shift");
        if (rows < 1 || cols < 1 || static_cast<std::int64_t>(rows) * cols != c.size)
            fail(DM_ERR_ARG, "bench mesh_shift: a ", rows, " x ", cols, " mesh does not fit ", c.size, " ranks");
        if (placement == "row-major") order = DM_ORDER_SEND;
        else if (placement == "gray") order = DM_ORDER_NEWS;
        else if (placement == "shuffle") order = DM_ORDER_SHUFFLE;
        else fail(DM_ERR_ARG, "bench mesh_shift: unknown placement '", placement, "' (row-major, gray, shuffle)");
        if (direction == "north") dr = -1;
        else if (direction == "south") dr = 1;
        else if (direction == "east") dc = 1;
        else if (direction == "west") dc = -1;
        else fail(DM_ERR_ARG, "bench mesh_shift: unknown direction '", direction, "' (north, east, west, south)");
    });
    const std::vector<int> rank_of_cell = layout::rank_assignment({rows, cols}, order);
    int cell = 0;
    while (rank_of_cell[cell] != c.rank) ++cell;
    const int r = cell / cols, col = cell % cols;
    auto rank_at = [&](int step) {  // the rank `step` moves of (dr, dc) away, with wrap-around
        const int rr = ((r + step * dr) % rows + rows) % rows, cc = ((col + step * dc) % cols + cols) % cols;
        return rank_of_cell[rr * cols + cc];
    };
    const int to = rank_at(1), from = rank_at(-1);
    std::vector<unsigned char> out(o.bytes), in(o.bytes);
    std::exception_ptr failure;
    MeshSamples samples;
    for (int rep = -o.warmup; rep < o.reps; ++rep) {
        if (o.validate) detail::fill(out.data(), out.size(), seed_of(c.rank, rep));
        check_mpi(MPI_Barrier(comm), "MPI_Barrier");
        const double t0 = MPI_Wtime();
        sendrecv(comm, out.data(), in.data(), o.bytes, to, from);
        const double t = MPI_Wtime() - t0;
        const double slowest = detail::slowest(comm, t);
        if (rep >= 0) {
            samples.slowest.push_back(slowest);
            samples.own.push_back(t);
        }
        if (!o.validate || failure) continue;
        try {
            detail::verify(in.data(), in.size(), seed_of(from, rep), "mesh_shift");
        } catch (...) {
            failure = std::current_exception();
        }
    }
    agree(comm, failure);
    return samples;
}

}  // namespace dm::bench
