#include "vector/exchange.hpp"

#include <cstring>

namespace dm::vector {

int64_t prefix_sums(const std::vector<int> &counts, std::vector<int> &displs) {
    int64_t total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        displs[r] = static_cast<int>(total);
        total += counts[r];
    }
    if (total > INT32_MAX) fail(DM_ERR_ARG, "an exchange of ", total, " records is too large");
    return total;
}

void exchange_counts(Context &c, const LocalFault *fault) {
    const bool bad = fault && fault->bad;
    if (c.nranks == 1) {
        if (bad) throw dm::Error(DM_ERR_ARG, fault->message);
        c.rcount[0] = c.scount[0];
        return;
    }
    for (int r = 0; r < c.nranks; ++r) c.hdr_send[r] = bad ? -1 : c.scount[r];
    check_mpi(MPI_Alltoall(c.hdr_send.data(), 1, MPI_INT64_T, c.hdr_recv.data(), 1, MPI_INT64_T, c.comm),
              "MPI_Alltoall");
    // Every failing rank sent -1 to every rank, so all ranks see the same failing set.
    for (int r = 0; r < c.nranks; ++r)
        if (c.hdr_recv[r] < 0) raise_fault(c, r, fault ? *fault : LocalFault{});
    for (int r = 0; r < c.nranks; ++r) c.rcount[r] = static_cast<int>(c.hdr_recv[r]);
}

void exchange(Context &c, const void *send, const std::vector<int> &scount, void *recv,
              const std::vector<int> &rcount, std::size_t bytes) {
    if (c.nranks == 1) {
        if (scount[0] != rcount[0]) fatal("exchange", "internal error: send and receive counts differ");
        if (scount[0] > 0) std::memmove(recv, send, static_cast<std::size_t>(scount[0]) * bytes);
        return;
    }
    prefix_sums(scount, c.sdispl);
    prefix_sums(rcount, c.rdispl);
    MPI_Datatype type = c.bytes_type(bytes);
    check_mpi(MPI_Alltoallv(send, scount.data(), c.sdispl.data(), type, recv, rcount.data(), c.rdispl.data(), type,
                            c.comm),
              "MPI_Alltoallv");
}

}  // namespace dm::vector
