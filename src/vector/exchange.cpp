#include "vector/exchange.hpp"

#include <algorithm>
#include <cstring>

namespace dm::vector {

dm::exchange::RowExchange start_count_exchange(Context &c, const LocalFault *fault, const int64_t *extra, int words) {
    // Per peer: the count (-1 for a fault), then the call's signature, so that ranks
    // which passed different arguments fail here, before any data moves; then the
    // caller's words.
    const std::size_t w = static_cast<std::size_t>(words), stride = 1 + CallSignature::kWords + w;
    const std::size_t rows = static_cast<std::size_t>(c.nranks) * stride;
    if (c.hdr_send.size() < rows) {
        c.hdr_send.resize(rows);
        c.hdr_recv.resize(rows);
    }
    const bool bad = fault && fault->bad;
    for (int r = 0; r < c.nranks; ++r) {
        int64_t *h = c.hdr_send.data() + static_cast<std::size_t>(r) * stride;
        h[0] = bad ? -1 : c.scount[r];
        c.sig.write(h + 1);
        const int64_t *mine = extra + static_cast<std::size_t>(r) * w;
        if (w > 0) std::copy(mine, mine + w, h + 1 + CallSignature::kWords);
    }
    if (c.nranks == 1) {  // the row to itself, without MPI
        std::copy(c.hdr_send.begin(), c.hdr_send.begin() + static_cast<std::ptrdiff_t>(stride), c.hdr_recv.begin());
        return {};
    }
    return dm::exchange::RowExchange(c.comm, c.hdr_send.data(), c.hdr_recv.data(), static_cast<int>(stride));
}

void finish_count_exchange(Context &c, const LocalFault *fault, dm::exchange::RowExchange &counts, int64_t *received,
                           int words) {
    const bool bad = fault && fault->bad;
    const std::size_t w = static_cast<std::size_t>(words), stride = 1 + CallSignature::kWords + w;
    if (c.nranks == 1) {
        if (bad) throw dm::Error(DM_ERR_ARG, fault->message);
        c.rcount[0] = c.scount[0];
        const int64_t *h = c.hdr_recv.data();
        if (w > 0) std::copy(h + 1 + CallSignature::kWords, h + stride, received);
        return;
    }
    counts.wait();
    c.sig.require_same_rows(c.comm, c.hdr_recv.data() + 1, stride, c.nranks);
    // Every failing rank sent -1 to every rank, so all ranks see the same failing set.
    for (int r = 0; r < c.nranks; ++r)
        if (c.hdr_recv[static_cast<std::size_t>(r) * stride] < 0) raise_fault(c, r, fault ? *fault : LocalFault{});
    for (int r = 0; r < c.nranks; ++r) {
        const int64_t *h = c.hdr_recv.data() + static_cast<std::size_t>(r) * stride;
        c.rcount[r] = h[0];
        if (w > 0) std::copy(h + 1 + CallSignature::kWords, h + stride, received + static_cast<std::size_t>(r) * w);
    }
}

void exchange_counts(Context &c, const LocalFault *fault) {
    dm::exchange::RowExchange counts = start_count_exchange(c, fault);
    finish_count_exchange(c, fault, counts);
}

const int64_t *gather_checked(Context &c, const int64_t *payload, int words, const LocalFault &fault) {
    const std::size_t p = static_cast<std::size_t>(c.nranks), w = static_cast<std::size_t>(words);
    const std::size_t stride = 1 + CallSignature::kWords + w;
    int64_t *rows = c.ws.get<int64_t>(kMisc, p * stride + stride + p * w);
    int64_t *mine = rows + p * stride, *out = mine + stride;
    if (c.nranks == 1) {
        if (fault.bad) throw dm::Error(DM_ERR_ARG, fault.message);
        std::copy(payload, payload + w, out);
        return out;
    }
    mine[0] = fault.bad;
    c.sig.write(mine + 1);
    std::copy(payload, payload + w, mine + 1 + CallSignature::kWords);
    dm::exchange::gather_rows(c.comm, mine, rows, static_cast<int>(stride));
    c.sig.require_same_rows(c.comm, rows + 1, stride, c.nranks);
    for (int r = 0; r < c.nranks; ++r)
        if (rows[static_cast<std::size_t>(r) * stride]) raise_fault(c, r, fault);
    for (std::size_t r = 0; r < p; ++r)
        std::copy(rows + r * stride + 1 + CallSignature::kWords, rows + (r + 1) * stride, out + r * w);
    return out;
}

void exchange(Context &c, const void *send, const std::vector<int64_t> &scount, void *recv,
              const std::vector<int64_t> &rcount, std::size_t bytes) {
    if (c.nranks == 1) {
        if (scount[0] != rcount[0]) fatal("exchange", "internal error: send and receive counts differ");
        if (scount[0] > 0) std::memmove(recv, send, static_cast<std::size_t>(scount[0]) * bytes);
        return;
    }
    prefix_sums(scount, c.sdispl);
    prefix_sums(rcount, c.rdispl);
    run_exchange(c, [&] {
        dm::exchange::exchange_variable(c.comm, dm::exchange::Lane::first, send, scount.data(), c.sdispl.data(), recv, rcount.data(),
                                        c.rdispl.data(), bytes);
    });
}

}  // namespace dm::vector
