// Template definitions for segdes.hpp.
#pragma once

#include "vector/exchange.hpp"
#include "vector/segdes.hpp"

namespace dm::vector {

template <class P, class F>
const P *seg_to_elem(Context &c, const Descriptor &d, const SegRecord *recs, int64_t nrec, F payload) {
    const BlockRule &nb = d.elements(), &mb = d.segments();
    const int64_t scnt = d.seg_count();

    // Sender: segment t goes to every rank holding one of its elements.
    zero(c.scount);
    int64_t nsend = 0;
    for (int64_t t = 0; t < scnt; ++t) {
        const int64_t start = d.seg_start(t), len = d.seg_len(t);
        if (len == 0) continue;
        const int r0 = nb.owner(start), r1 = nb.owner(start + len - 1);
        for (int r = r0; r <= r1; ++r) ++c.scount[r];
        nsend += r1 - r0 + 1;
    }
    // Receiver: one payload per record, from the rank holding its segment.
    zero(c.rcount);
    for (int64_t t = 0; t < nrec; ++t) ++c.rcount[mb.owner(recs[t].j)];

    P *send = c.ws.get<P>(kSend, static_cast<std::size_t>(nsend));
    int64_t *cursor = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks));
    int64_t at = 0;
    for (int r = 0; r < c.nranks; ++r) {
        cursor[r] = at;
        at += c.scount[r];
    }
    for (int64_t t = 0; t < scnt; ++t) {
        const int64_t start = d.seg_start(t), len = d.seg_len(t);
        if (len == 0) continue;
        const P value = payload(t);
        const int r0 = nb.owner(start), r1 = nb.owner(start + len - 1);
        for (int r = r0; r <= r1; ++r) send[cursor[r]++] = value;
    }
    P *recv = c.ws.get<P>(kPayload, static_cast<std::size_t>(nrec));
    exchange(c, send, c.scount, recv, c.rcount, sizeof(P));
    return recv;
}

}  // namespace dm::vector
