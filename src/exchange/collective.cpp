#include "exchange/collective.hpp"

#include "core/error.hpp"
#include "exchange/variable.hpp"

#include <vector>

namespace dm::exchange {

RowExchange::RowExchange(MPI_Comm comm, const std::int64_t *send, std::int64_t *recv, int words) {
    if (words < 1) fail(DM_ERR_ARG, "row exchange: a row has at least one word, not ", words);
    check_mpi(MPI_Ialltoall(send, words, MPI_INT64_T, recv, words, MPI_INT64_T, comm, &request_), "MPI_Ialltoall");
}

RowExchange::~RowExchange() {
    if (pending()) MPI_Wait(&request_, MPI_STATUS_IGNORE);
}

RowExchange &RowExchange::operator=(RowExchange &&other) noexcept {
    if (this != &other) {
        if (pending()) MPI_Wait(&request_, MPI_STATUS_IGNORE);
        request_ = other.request_;
        other.request_ = MPI_REQUEST_NULL;
    }
    return *this;
}

void RowExchange::wait() {
    if (pending()) check_mpi(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait");
}

void gather_rows(MPI_Comm comm, const std::int64_t *row, std::int64_t *rows, int words) {
    if (words < 1) fail(DM_ERR_ARG, "row gather: a row has at least one word, not ", words);
    check_mpi(MPI_Allgather(row, words, MPI_INT64_T, rows, words, MPI_INT64_T, comm), "MPI_Allgather");
}

void gather_variable(MPI_Comm comm, const void *mine, void *all, const std::int64_t *counts,
                     const std::int64_t *displs, std::size_t record_bytes, Lane lane, const GatherLimits &limits) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (record_bytes < 1) fail(DM_ERR_ARG, "variable gather: a record has at least one byte");
    bool fits = true;
    for (int r = 0; r < size; ++r) {
        if (counts[r] < 0 || displs[r] < 0)
            fail(DM_ERR_ARG, "variable gather: rank ", r, " has count ", counts[r], " at ", displs[r]);
        fits = fits && counts[r] <= limits.largest_count && displs[r] + counts[r] <= limits.largest_count;
    }
    if (fits) {
        std::vector<int> icounts(static_cast<std::size_t>(size)), idispls(static_cast<std::size_t>(size));
        for (int r = 0; r < size; ++r) {
            icounts[static_cast<std::size_t>(r)] = static_cast<int>(counts[r]);
            idispls[static_cast<std::size_t>(r)] = static_cast<int>(displs[r]);
        }
        const MPI_Datatype record = shared_bytes_type(static_cast<std::int64_t>(record_bytes));
        check_mpi(MPI_Allgatherv(mine, icounts[static_cast<std::size_t>(rank)], record, all, icounts.data(),
                                 idispls.data(), record, comm),
                  "MPI_Allgatherv");
        return;
    }
    // Too long for int counts: every rank sends its part to every other rank, in
    // messages of at most largest_message bytes; the own part is copied.
    VariableExchange x(comm, lane, record_bytes, limits.largest_message);
    x.receive(all, counts, displs);
    for (int step = 1; step <= size; ++step) x.send_to((rank + step) % size, mine, counts[rank]);
    x.finish();
}

}  // namespace dm::exchange
