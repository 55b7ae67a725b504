// The two data-dependent movements behind permutations, extract/replace and ranking.
//
// scatter: every local source element k with target[k] >= 0 is written to global
//   position target[k] of the destination. Elements are grouped per destination rank
//   as (local offset, value) records: one MPI_Alltoall of counts (which also agrees on
//   faults, so a bad index fails every rank before anything moves) and one
//   MPI_Alltoallv. Records arrive in source order, so with duplicate targets the
//   highest source position wins.
// gather: every local destination element k with target[k] >= 0 reads global
//   position target[k] of the source: one MPI_Alltoall of counts (with the fault
//   agreement), one MPI_Alltoallv of requests and one of replies.
//
// `prepare()` runs after the agreement and before any destination element is written
// (default permutations copy their default vector there).
#pragma once

#include "vector/exchange.hpp"
#include "vector/state.hpp"

namespace dm::vector {

template <class T>
struct Placed {
    int64_t offset;  // local position at the receiving rank
    T value;
};

// Uses slots kOwner, kSend, kRecv, kMisc.
template <class T, class Prepare>
void scatter(Context &c, const int64_t *target, const T *values, int64_t nsrc, T *dst, const Block &dst_block,
             const LocalFault &fault, Prepare prepare) {
    int *owner = c.ws.get<int>(kOwner, static_cast<std::size_t>(nsrc));
    zero(c.scount);
    int64_t nsend = 0;
    for (int64_t k = 0; k < nsrc; ++k) {
        if (target[k] < 0) {
            owner[k] = -1;
            continue;
        }
        owner[k] = dst_block.owner(target[k]);
        ++c.scount[owner[k]];
        ++nsend;
    }
    exchange_counts(c, &fault);
    if (c.nranks == 1) {  // nothing to move: write directly, in source order
        prepare();
        for (int64_t k = 0; k < nsrc; ++k)
            if (target[k] >= 0) dst[target[k]] = values[k];
        return;
    }
    int64_t *cursor = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks));
    int64_t nrecv = 0;
    for (int r = 0, at = 0; r < c.nranks; at += c.scount[r], ++r) {
        cursor[r] = at;
        nrecv += c.rcount[r];
    }
    Placed<T> *send = c.ws.get<Placed<T>>(kSend, static_cast<std::size_t>(nsend));
    for (int64_t k = 0; k < nsrc; ++k) {
        const int r = owner[k];
        if (r >= 0) send[cursor[r]++] = Placed<T>{target[k] - dst_block.begin(r), values[k]};
    }
    Placed<T> *recv = c.ws.get<Placed<T>>(kRecv, static_cast<std::size_t>(nrecv));
    exchange(c, send, c.scount, recv, c.rcount, sizeof(Placed<T>));
    prepare();
    for (int64_t k = 0; k < nrecv; ++k) dst[recv[k].offset] = recv[k].value;
}

// Uses slots kOwner, kSend, kRecv, kReply, kOrder, kMisc. Destination elements with
// target < 0 get `fill`.
template <class T, class Prepare>
void gather(Context &c, const int64_t *target, int64_t ndst, T *dst, const T *src, const Block &src_block, T fill,
            const LocalFault &fault, Prepare prepare) {
    int *owner = c.ws.get<int>(kOwner, static_cast<std::size_t>(ndst));
    zero(c.scount);
    int64_t nreq = 0;
    for (int64_t k = 0; k < ndst; ++k) {
        if (target[k] < 0) {
            owner[k] = -1;
            continue;
        }
        owner[k] = src_block.owner(target[k]);
        ++c.scount[owner[k]];
        ++nreq;
    }
    exchange_counts(c, &fault);
    if (c.nranks == 1) {  // read directly (the destination is written only after all reads)
        T *got = c.ws.get<T>(kReply, static_cast<std::size_t>(ndst));
        for (int64_t k = 0; k < ndst; ++k) got[k] = target[k] >= 0 ? src[target[k]] : fill;
        prepare();
        for (int64_t k = 0; k < ndst; ++k) dst[k] = got[k];
        return;
    }
    int64_t *cursor = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks));
    int64_t nserve = 0;
    for (int r = 0, at = 0; r < c.nranks; at += c.scount[r], ++r) {
        cursor[r] = at;
        nserve += c.rcount[r];
    }
    int64_t *request = c.ws.get<int64_t>(kSend, static_cast<std::size_t>(nreq));
    int64_t *order = c.ws.get<int64_t>(kOrder, static_cast<std::size_t>(nreq));
    for (int64_t k = 0; k < ndst; ++k) {
        const int r = owner[k];
        if (r < 0) continue;
        const int64_t at = cursor[r]++;
        request[at] = target[k] - src_block.begin(r);
        order[at] = k;
    }
    int64_t *served = c.ws.get<int64_t>(kRecv, static_cast<std::size_t>(nserve));
    exchange(c, request, c.scount, served, c.rcount, sizeof(int64_t));
    T *reply = c.ws.get<T>(kReply, static_cast<std::size_t>(nserve));
    for (int64_t t = 0; t < nserve; ++t) reply[t] = src[served[t]];
    T *got = c.ws.get<T>(kSend, static_cast<std::size_t>(nreq));  // the requests are no longer needed
    exchange(c, reply, c.rcount, got, c.scount, sizeof(T));
    prepare();
    for (int64_t k = 0; k < ndst; ++k)
        if (owner[k] < 0) dst[k] = fill;
    for (int64_t t = 0; t < nreq; ++t) dst[order[t]] = got[t];
}

}  // namespace dm::vector
