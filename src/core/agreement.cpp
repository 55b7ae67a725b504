#include "core/agreement.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace dm {
namespace {
thread_local const char *t_call = nullptr;
thread_local int t_depth = 0;

std::int64_t text_hash(const char *text) {
    std::uint64_t h = 1469598103934665603ull;
    for (; *text; ++text) h = (h ^ static_cast<unsigned char>(*text)) * 1099511628211ull;
    return static_cast<std::int64_t>(h >> 1);  // non-negative, so that negation cannot overflow
}

// The words of an agreement step. Each is reduced with its negation under one
// MPI_MAX, which yields its maximum and its minimum over the ranks.
enum Word { kFailing, kCall, kCheck, kLength, kHash1, kHash2, kWords };

const char *call_label(const char *call) { return *call ? call : "a datamotion call"; }

int rank_in(MPI_Comm comm) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    return rank;
}

int size_of(MPI_Comm comm) {
    int size = 1;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    return size;
}

[[noreturn]] void deadline_passed(const char *call, double waited) {
    int rank = -1, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.0f", waited);
    end_job(DM_ERR_STATE, std::string("datamotion: error on rank ") + std::to_string(rank) + " of " +
                              std::to_string(size) + ": " + call_label(call) + ": waited " + seconds +
                              " s for the other ranks to reach this collective call (DATAMOTION_TIMEOUT): some rank "
                              "is in another call, still computing or stopped [DM_ERR_STATE]; ending the job");
}

// MPI_Allreduce(MPI_MAX) of n words, waiting at most agreement_timeout() seconds.
void max_over_ranks(MPI_Comm comm, const std::int64_t *in, std::int64_t *out, int n, const char *call) {
    const double timeout = agreement_timeout();
    if (timeout <= 0) {
        check_mpi(MPI_Allreduce(in, out, n, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
        return;
    }
    MPI_Request request = MPI_REQUEST_NULL;
    check_mpi(MPI_Iallreduce(in, out, n, MPI_INT64_T, MPI_MAX, comm, &request), "MPI_Iallreduce");
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        int done = 0;
        check_mpi(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) return;
        const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (waited >= timeout) deadline_passed(call, waited);
        // Poll at once while the others are about to arrive; then yield the core to
        // ranks that are still computing (at most 1 ms late).
        if (waited > 1e-3) std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000L, long(waited * 1e4))));
    }
}

// Collective on comm: the lowest rank whose n words differ from rank 0's (the size of
// comm if none does). Messages show rank 0 and that rank.
int first_other(MPI_Comm comm, const std::int64_t *mine, int n) {
    std::int64_t first[kWords];
    std::copy(mine, mine + n, first);
    check_mpi(MPI_Bcast(first, n, MPI_INT64_T, 0, comm), "MPI_Bcast");
    const int size = size_of(comm);
    int candidate = std::equal(first, first + n, mine) ? size : rank_in(comm), lowest = size;
    check_mpi(MPI_Allreduce(&candidate, &lowest, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    return lowest;
}

// Digest of the values: length and two independent 64-bit hashes (non-negative).
void digest(const std::int64_t *values, std::size_t count, std::int64_t *out) {
    std::uint64_t h1 = 1469598103934665603ull, h2 = 0x9E3779B97F4A7C15ull;
    for (std::size_t i = 0; i < count; ++i) {
        auto u = static_cast<std::uint64_t>(values[i]);
        h1 = (h1 ^ u) * 1099511628211ull;  // FNV-1a over whole words
        h2 = (h2 ^ (u + 0x9E3779B97F4A7C15ull + (h2 << 6) + (h2 >> 2))) * 0xff51afd7ed558ccdull;
    }
    out[0] = static_cast<std::int64_t>(count);
    out[1] = static_cast<std::int64_t>(h1 >> 1);
    out[2] = static_cast<std::int64_t>(h2 >> 1);
}
}  // namespace

CallScope::CallScope(const char *name) noexcept {
    if (t_depth++ == 0) t_call = name;
}

CallScope::~CallScope() {
    if (--t_depth == 0) t_call = nullptr;
}

const char *current_call() noexcept { return t_call ? t_call : ""; }

double agreement_timeout() {
    static const double seconds = [] {
        const double fallback = checked_mode() ? 300.0 : 0.0;
        const char *text = std::getenv("DATAMOTION_TIMEOUT");
        if (!text || !*text) return fallback;
        char *end = nullptr;
        const double s = std::strtod(text, &end);
        if (end != text && *end == '\0' && std::isfinite(s) && s >= 0) return s;
        int rank = 0;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (rank == 0)
            std::fprintf(stderr, "datamotion: warning: DATAMOTION_TIMEOUT=%s is not a number of seconds; using %s\n",
                         text, checked_mode() ? "300 s (checked mode)" : "no deadline");
        return fallback;
    }();
    return seconds;
}

std::pair<int, int> ranks_holding(MPI_Comm comm, std::int64_t mine, std::int64_t low, std::int64_t high) {
    const int rank = rank_in(comm), size = size_of(comm);
    int in[2] = {mine == low ? rank : size, mine == high ? rank : size}, out[2];
    check_mpi(MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    return {out[0], out[1]};
}

std::pair<std::string, std::string> names_of(MPI_Comm comm, int low_rank, int high_rank, const char *mine) {
    // One character per word, under MPI_MAX: only the two named ranks write theirs.
    constexpr int kChars = 128;
    std::int64_t in[2 * kChars] = {}, out[2 * kChars];
    const int rank = rank_in(comm);
    for (int side = 0; side < 2; ++side)
        if (rank == (side == 0 ? low_rank : high_rank))
            for (int i = 0; i < kChars - 1 && mine[i]; ++i) in[side * kChars + i] = static_cast<unsigned char>(mine[i]);
    check_mpi(MPI_Allreduce(in, out, 2 * kChars, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    std::string names[2];
    for (int side = 0; side < 2; ++side)
        for (int i = 0; i < kChars && out[side * kChars + i]; ++i) names[side] += static_cast<char>(out[side * kChars + i]);
    return {names[0], names[1]};
}

StepOutcome agreement_step(MPI_Comm comm, const char *what, bool failed, const std::int64_t *values,
                           std::size_t count, const char *call) {
    if (*current_call()) call = current_call();
    const int rank = rank_in(comm), size = size_of(comm);
    if (size == 1) return {failed ? 0 : 1, -1};
    std::int64_t mine[kWords] = {failed ? -rank : -size, text_hash(call), text_hash(what)};
    digest(values, count, mine + kLength);
    std::int64_t both[2 * kWords], out[2 * kWords];
    for (int w = 0; w < kWords; ++w) {
        both[2 * w] = mine[w];
        both[2 * w + 1] = -mine[w];
    }
    max_over_ranks(comm, both, out, 2 * kWords, call);
    auto differs = [&](int w) { return out[2 * w] != -out[2 * w + 1]; };

    if (differs(kCall) || differs(kCheck)) {
        const bool calls = differs(kCall);
        const int low = 0, high = first_other(comm, mine + (calls ? kCall : kCheck), 1);
        auto [a, b] = names_of(comm, low, high, calls ? call_label(call) : what);
        if (calls)
            throw AgreedError(DM_ERR_MISMATCH, "the ranks are in different collective calls: rank " + std::to_string(low) +
                                                   " is in " + a + ", rank " + std::to_string(high) + " in " + b +
                                                   "; every rank of the communicator must make the same collective "
                                                   "calls in the same order");
        throw AgreedError(DM_ERR_MISMATCH, std::string("the ranks took different paths through ") + call_label(call) +
                                               ": rank " + std::to_string(low) + " checks " + a + ", rank " +
                                               std::to_string(high) + " checks " + b +
                                               "; every rank must pass the same arguments");
    }
    const bool values_differ = differs(kLength) || differs(kHash1) || differs(kHash2);
    return {static_cast<int>(-out[2 * kFailing]), values_differ ? first_other(comm, mine + kLength, 3) : -1};
}

std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> values_of(MPI_Comm comm, const StepOutcome &outcome,
                                                                          const std::vector<std::int64_t> &mine) {
    const int rank = rank_in(comm);
    std::vector<std::int64_t> found[2];
    const int roots[2] = {0, outcome.differing_rank};
    for (int side = 0; side < 2; ++side) {
        std::int64_t count = static_cast<std::int64_t>(mine.size());
        check_mpi(MPI_Bcast(&count, 1, MPI_INT64_T, roots[side], comm), "MPI_Bcast");
        found[side] = rank == roots[side] ? mine : std::vector<std::int64_t>(static_cast<std::size_t>(count));
        for (std::int64_t at = 0; at < count; at += INT_MAX) {  // in pieces MPI can count
            const int n = static_cast<int>(std::min<std::int64_t>(INT_MAX, count - at));
            check_mpi(MPI_Bcast(found[side].data() + at, n, MPI_INT64_T, roots[side], comm), "MPI_Bcast");
        }
    }
    return {found[0], found[1]};
}

std::string values_text(const std::vector<std::int64_t> &values) {
    return values.size() == 1 ? std::to_string(values[0]) : tuple_text(values);
}

std::string differs_text(const std::string &what, const std::string &low, int low_rank, const std::string &high,
                         int high_rank) {
    if (low_rank > high_rank) return differs_text(what, high, high_rank, low, low_rank);
    return what + " differs across ranks: " + low + " on rank " + std::to_string(low_rank) + ", " + high +
           " on rank " + std::to_string(high_rank);
}

void raise_agreed(MPI_Comm comm, int root, int code, const std::string &message) {
    const int rank = rank_in(comm);
    int header[2] = {code, 0};  // code, message length
    std::string text;
    if (rank == root) {
        text = message.size() > INT_MAX / 2 ? message.substr(0, INT_MAX / 2) : message;
        header[1] = static_cast<int>(text.size());
    }
    check_mpi(MPI_Bcast(header, 2, MPI_INT, root, comm), "MPI_Bcast");
    text.resize(static_cast<size_t>(header[1]));
    check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
    throw AgreedError(header[0], text);
}

void require_same(MPI_Comm comm, const std::vector<std::int64_t> &values, const std::string &what, ValuesText show) {
    const StepOutcome step = agreement_step(comm, what.c_str(), false, values.data(), values.size());
    if (!step.values_differ()) return;
    const auto [low, high] = values_of(comm, step, values);
    throw AgreedError(DM_ERR_MISMATCH, differs_text(what, show(low), 0, show(high), step.differing_rank));
}

}  // namespace dm
