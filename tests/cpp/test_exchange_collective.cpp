// The exchange engine's small collectives and its shared MPI pieces
// (src/exchange/collective.hpp, mpi_bytes.hpp, tags.hpp): rows to every rank, split
// phase; a row from every rank; a gather of uneven parts, by one collective and
// point to point with messages split; byte datatypes beyond INT_MAX; the tag policy.
// On WORLD, SELF and a split communicator; every word is a function of where it
// came from and where it goes.
#include "harness.hpp"

#include "core/error.hpp"
#include "exchange/collective.hpp"
#include "exchange/mpi_bytes.hpp"
#include "exchange/tags.hpp"

#include <climits>
#include <cstdint>
#include <utility>
#include <vector>

namespace {

using dm::exchange::GatherLimits;
using dm::exchange::Lane;

std::vector<MPI_Comm> communicators() {
    MPI_Comm split = MPI_COMM_NULL;
    const int rank = dmtest::world_rank();
    MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0, -rank, &split);
    return {MPI_COMM_WORLD, MPI_COMM_SELF, split};
}

void free_communicators(std::vector<MPI_Comm> &comms) { MPI_Comm_free(&comms[2]); }

std::int64_t word_of(int from, int to, int at) { return from * 1000003LL + to * 1009LL + at; }

std::byte byte_of(int from, std::int64_t at) {
    return static_cast<std::byte>((from * 37 + at * 11 + (at >> 7)) & 0xff);
}

}  // namespace

DM_TEST(row_exchange_sends_row_r_to_rank_r) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1, rank = 0;
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &rank);
        for (int words : {1, 5}) {
            std::vector<std::int64_t> send(static_cast<std::size_t>(p * words)), recv(send.size(), -1);
            for (int r = 0; r < p; ++r)
                for (int w = 0; w < words; ++w) send[static_cast<std::size_t>(r * words + w)] = word_of(rank, r, w);
            dm::exchange::RowExchange x(comm, send.data(), recv.data(), words);
            CHECK(x.pending());
            x.wait();
            CHECK(!x.pending());
            x.wait();  // nothing left to wait for
            bool right = true;
            for (int r = 0; r < p; ++r)
                for (int w = 0; w < words; ++w)
                    right = right && recv[static_cast<std::size_t>(r * words + w)] == word_of(r, rank, w);
            CHECK(right);
        }
        // Moved while pending, then left to the destructor (as after an error).
        std::vector<std::int64_t> send(static_cast<std::size_t>(p), rank), recv(send.size(), -1);
        {
            dm::exchange::RowExchange x(comm, send.data(), recv.data(), 1);
            dm::exchange::RowExchange y = std::move(x);
            CHECK(!x.pending());
            CHECK(y.pending());
        }
        bool right = true;
        for (int r = 0; r < p; ++r) right = right && recv[static_cast<std::size_t>(r)] == r;
        CHECK(right);
    }
    free_communicators(comms);
}

DM_TEST(gather_rows_like_allgather) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1, rank = 0;
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &rank);
        const int words = 3;
        std::vector<std::int64_t> row(words), rows(static_cast<std::size_t>(p * words), -1);
        for (int w = 0; w < words; ++w) row[static_cast<std::size_t>(w)] = word_of(rank, -1, w);
        dm::exchange::gather_rows(comm, row.data(), rows.data(), words);
        bool right = true;
        for (int r = 0; r < p; ++r)
            for (int w = 0; w < words; ++w)
                right = right && rows[static_cast<std::size_t>(r * words + w)] == word_of(r, -1, w);
        CHECK(right);
    }
    free_communicators(comms);
}

DM_TEST(gather_variable_by_collective_and_point_to_point) {
    auto comms = communicators();
    for (MPI_Comm comm : comms) {
        int p = 1, rank = 0;
        MPI_Comm_size(comm, &p);
        MPI_Comm_rank(comm, &rank);
        // Uneven parts, an empty one, in reverse rank order with gaps.
        for (std::int64_t record : {1, 3, 8}) {
            std::vector<std::int64_t> counts(static_cast<std::size_t>(p)), displs(counts.size());
            std::int64_t at = 0;
            for (int r = p - 1; r >= 0; --r) {
                counts[static_cast<std::size_t>(r)] = r == 1 ? 0 : 5 + 7 * r;
                displs[static_cast<std::size_t>(r)] = at;
                at += counts[static_cast<std::size_t>(r)] + 2;
            }
            std::vector<std::byte> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(rank)] * record) + 1);
            for (std::size_t b = 0; b < mine.size(); ++b) mine[b] = byte_of(rank, static_cast<std::int64_t>(b));
            // The default limits (one MPI_Allgatherv); point to point, whole; point to
            // point in messages of at most 10 bytes.
            const GatherLimits limits[] = {GatherLimits{}, GatherLimits{4, INT_MAX}, GatherLimits{4, 10}};
            for (const GatherLimits &limit : limits) {
                std::vector<std::byte> all(static_cast<std::size_t>(at * record), std::byte{0xee});
                dm::exchange::gather_variable(comm, mine.data(), all.data(), counts.data(), displs.data(),
                                              static_cast<std::size_t>(record), Lane::third, limit);
                bool right = true;
                for (int r = 0; r < p; ++r) {
                    const std::int64_t from = displs[static_cast<std::size_t>(r)] * record;
                    const std::int64_t n = counts[static_cast<std::size_t>(r)] * record;
                    for (std::int64_t b = 0; b < n; ++b)
                        right = right && all[static_cast<std::size_t>(from + b)] == byte_of(r, b);
                    // The gap after each part is untouched.
                    right = right && all[static_cast<std::size_t>(from + n)] == std::byte{0xee};
                }
                CHECK(right);
            }
        }
    }
    free_communicators(comms);
}

DM_TEST(gather_variable_refuses_negative_counts) {
    std::int64_t count = -1, displ = 0;
    char buf[1] = {};
    int code = DM_OK;
    try {
        dm::exchange::gather_variable(MPI_COMM_SELF, buf, buf, &count, &displ, 1);
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_ERR_ARG);
}

DM_TEST(bytes_type_beyond_int_max) {
    // Sizes only: no buffer of that length is needed to describe it.
    for (std::int64_t bytes : {std::int64_t(0), std::int64_t(1), std::int64_t(INT_MAX),
                               std::int64_t(INT_MAX) + 1, 3 * dm::exchange::kLargestMessage + 5}) {
        MPI_Datatype t = dm::exchange::bytes_type(bytes);
        MPI_Count size = -1, lb = -1, extent = -1;
        MPI_Type_size_x(t, &size);
        MPI_Type_get_extent_x(t, &lb, &extent);
        CHECK_EQ(static_cast<std::int64_t>(size), bytes);
        CHECK_EQ(static_cast<std::int64_t>(extent), bytes);
        CHECK_EQ(static_cast<std::int64_t>(lb), std::int64_t(0));
        MPI_Type_free(&t);
    }
    // Shared types: one per size, committed, the same handle each time.
    MPI_Datatype a = dm::exchange::shared_bytes_type(24), b = dm::exchange::shared_bytes_type(24);
    CHECK(a == b);
    int size = 0;
    MPI_Type_size(a, &size);
    CHECK_EQ(size, 24);
    char from[24], to[24] = {};
    for (int k = 0; k < 24; ++k) from[k] = static_cast<char>(k + 1);
    MPI_Sendrecv(from, 1, a, 0, 0, to, 1, a, 0, 0, MPI_COMM_SELF, MPI_STATUS_IGNORE);
    CHECK(to[23] == 24);
    int code = DM_OK;
    try {
        dm::exchange::bytes_type(-1);
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_ERR_ARG);
}

DM_TEST(tags_lanes_below_plans) {
    CHECK(dm::exchange::largest_tag(MPI_COMM_WORLD) >= 32767);
    CHECK_EQ(dm::exchange::lane_tag(Lane::first), 0);
    CHECK_EQ(dm::exchange::lane_tag(Lane::fourth), dm::exchange::kLanes - 1);
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    // A fresh communicator's plans count up from just above the lanes.
    const int first = dm::exchange::next_plan_tag(comm);
    CHECK_EQ(first, dm::exchange::kFirstPlanTag);
    CHECK_EQ(dm::exchange::next_plan_tag(comm), first + 1);
    MPI_Comm_free(&comm);
}
