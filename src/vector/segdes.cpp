// Segment descriptors (mke_fov, len_fos, cpy_wus, siz_fos).
#include "vector/segdes.hpp"

#include "vector/exchange.hpp"

#include <cvl.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace dm::vector {

namespace {

// Word counts of the two sides of a descriptor on every rank (segdes.hpp).
struct Sides {
    int64_t seg_words, elem_words;
};

Sides sides(const Context &c, int64_t n, int64_t m) {
    const int64_t bn = c.block(n).max_count(), bm = c.block(m).max_count();
    return Sides{m > 0 ? bm + 1 : 0, n > 0 ? std::min(2 * std::min(bn, m) + 2, bn + 2) : 0};
}

constexpr uint32_t kDenseBit = 1;

// The check word of a descriptor for (n, m), dense bit clear: "CVSD" mixed with (n, m)
// by the splitmix64 finalizer, so that a descriptor made for other lengths, or memory
// that holds none, is caught (the chance of a false match is 2^-31).
uint32_t check_word(int64_t n, int64_t m) {
    uint64_t z = (static_cast<uint64_t>(n) << 32 | static_cast<uint64_t>(m)) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return (static_cast<uint32_t>(z) ^ 0x44535643u) & ~kDenseBit;
}

}  // namespace

int64_t descriptor_units(const Context &c, int64_t n, int64_t m) {
    const Sides s = sides(c, n, m);
    const int64_t words = 1 + s.seg_words + s.elem_words;
    return (words * int64_t{sizeof(int32_t)} + kUnit - 1) / kUnit;
}

Descriptor::Descriptor(const Context &c, Handle sd, int64_t n, int64_t m, const char *what)
    : handle_(sd), n_(n), m_(m), nb_(c.block(n)), mb_(c.block(m)) {
    require_length(n, "n");
    require_length(m, "m");
    c.memory->require(sd, descriptor_units(c, n, m) * kUnit, descriptor_units(c, n, m) * kUnit, what);
    const int32_t *w = c.local<int32_t>(sd);
    // The check word differs by rank only in its dense bit, so the verdict is the
    // same everywhere.
    const uint32_t check = static_cast<uint32_t>(w[0]);
    if ((check & ~kDenseBit) != check_word(n, m))
        fail(DM_ERR_ARG, what, " (handle ", sd, ") is not a segment descriptor made by mke_fov for n = ", n,
             ", m = ", m);
    dense_ = (check & kDenseBit) != 0;
    bound_ = w + 1;
    elem_ = bound_ + sides(c, n, m).seg_words;
    e0_ = nb_.begin(c.rank);
    cnt_ = nb_.count(c.rank);
    s0_ = mb_.begin(c.rank);
    scnt_ = mb_.count(c.rank);
    if (cnt_ > 0) last_end_ = dense_ ? elem_[1] : elem_[1 + 2 * int64_t{elem_[0]}];
}

const SegRecord *Descriptor::records(Context &c, int64_t *count) const {
    int64_t nrec = 0;
    SegRecord *recs = nullptr;
    if (cnt_ == 0) {
        recs = c.ws.get<SegRecord>(kRecords, 1);
    } else if (!dense_) {
        nrec = elem_[0];
        recs = c.ws.get<SegRecord>(kRecords, static_cast<std::size_t>(nrec));
        const int32_t *pair = elem_ + 1;
        for (int64_t t = 0; t < nrec; ++t) {
            const int64_t start = pair[2 * t + 1];
            recs[t] = SegRecord{pair[2 * t], start, 0, start > e0_ ? start - e0_ : 0, 0};
        }
    } else {
        // A record begins wherever the segment number changes.
        const int32_t *seg = elem_ + 2;
        recs = c.ws.get<SegRecord>(kRecords, static_cast<std::size_t>(cnt_));
        recs[nrec++] = SegRecord{seg[0], elem_[0], 0, 0, 0};
        for (int64_t k = 1; k < cnt_; ++k)
            if (seg[k] != seg[k - 1]) recs[nrec++] = SegRecord{seg[k], e0_ + k, 0, k, 0};
    }
    // Each record ends where the next begins; the last one where the descriptor says.
    for (int64_t t = 0; t + 1 < nrec; ++t) {
        recs[t].hi = recs[t + 1].lo;
        recs[t].len = recs[t + 1].start - recs[t].start;
    }
    if (nrec > 0) {
        recs[nrec - 1].hi = cnt_;
        recs[nrec - 1].len = last_end_ - recs[nrec - 1].start;
    }
    *count = nrec;
    return recs;
}

namespace {

struct Triple {
    int64_t j, start, len;
};

void make_descriptor(Context &c, Handle sd, Handle lengths, int64_t n, int64_t m) {
    require_length(n, "n");
    require_length(m, "m");
    c.memory->require(sd, descriptor_units(c, n, m) * kUnit, descriptor_units(c, n, m) * kUnit, "descriptor sd");
    c.require_vector<int>(lengths, m, "lengths l");
    const Block nb = c.block(n), mb = c.block(m);
    const int64_t e0 = nb.begin(c.rank), cnt = nb.count(c.rank);
    const int64_t s0 = mb.begin(c.rank), scnt = mb.count(c.rank);

    // Lengths, checked; their prefix sums from one row gather of (sum, fault).
    const int *l = c.local<int>(lengths);
    int64_t *len = c.ws.get<int64_t>(kPartial, static_cast<std::size_t>(scnt));
    int64_t sum = 0;
    LocalFault fault;
    for (int64_t t = 0; t < scnt; ++t) {
        len[t] = l[t];
        if (l[t] < 0) fault.set("segment length l[", s0 + t, "] = ", l[t], " is negative");
        sum += l[t];
    }
    int64_t mine[2] = {sum, fault.bad ? 1 : 0};
    int64_t *all = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(2 * c.nranks));
    if (c.nranks > 1)
        dm::exchange::gather_rows(c.comm, mine, all, 2);
    else
        std::memcpy(all, mine, sizeof mine);
    int64_t base = 0, total = 0;
    for (int r = 0; r < c.nranks; ++r) {
        if (all[2 * r + 1]) raise_fault(c, r, fault);
        if (r < c.rank) base += all[2 * r];
        total += all[2 * r];
    }
    if (total != n) fail_everywhere(DM_ERR_ARG, "the ", m, " segment lengths sum to ", total, ", not n = ", n);

    // Every nonempty segment tells each rank holding one of its elements about itself.
    zero(c.scount);
    int64_t nsend = 0;
    {
        int64_t g = base;
        for (int64_t t = 0; t < scnt; g += len[t], ++t) {
            if (len[t] == 0) continue;
            const int r0 = nb.owner(g), r1 = nb.owner(g + len[t] - 1);
            for (int r = r0; r <= r1; ++r) ++c.scount[r];
            nsend += r1 - r0 + 1;
        }
    }
    exchange_counts(c, nullptr);
    Triple *send = c.ws.get<Triple>(kSend, static_cast<std::size_t>(nsend));
    int64_t *cursor = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks));
    for (int r = 0, at = 0; r < c.nranks; at += c.scount[r], ++r) cursor[r] = at;
    {
        int64_t g = base;
        for (int64_t t = 0; t < scnt; g += len[t], ++t) {
            if (len[t] == 0) continue;
            const int r0 = nb.owner(g), r1 = nb.owner(g + len[t] - 1);
            for (int r = r0; r <= r1; ++r) send[cursor[r]++] = Triple{s0 + t, g, len[t]};
        }
    }
    int64_t nrecv = 0;
    for (int r = 0; r < c.nranks; ++r) nrecv += c.rcount[r];
    Triple *recv = c.ws.get<Triple>(kRecv, static_cast<std::size_t>(nrecv));
    exchange(c, send, c.scount, recv, c.rcount, sizeof(Triple));

    // Write the descriptor (the lengths were copied, so l may overlap sd).
    const Sides side = sides(c, n, m);
    int32_t *w = c.local<int32_t>(sd);
    int32_t *bound = w + 1, *el = bound + side.seg_words;
    if (m > 0) {
        int64_t g = base;
        for (int64_t t = 0; t < scnt; g += len[t], ++t) bound[t] = static_cast<int32_t>(g);
        bound[scnt] = static_cast<int32_t>(g);
    }
    if (cnt > 0 && nrecv == 0) fatal("mke_fov", "internal error: no segment covers a local element");
    const int64_t last_end = nrecv > 0 ? recv[nrecv - 1].start + recv[nrecv - 1].len : 0;
    const bool dense = n > 0 && 2 * nrecv + 2 > side.elem_words;  // then nrecv > 0
    if (dense) {
        el[0] = static_cast<int32_t>(recv[0].start);
        el[1] = static_cast<int32_t>(last_end);
        int32_t *seg = el + 2;
        for (int64_t k = 0; k < nrecv; ++k) {
            const Triple &s = recv[k];
            const int64_t lo = std::max(s.start, e0) - e0, hi = std::min(s.start + s.len, e0 + cnt) - e0;
            for (int64_t i = lo; i < hi; ++i) seg[i] = static_cast<int32_t>(s.j);
        }
    } else if (n > 0) {
        el[0] = static_cast<int32_t>(nrecv);
        for (int64_t k = 0; k < nrecv; ++k) {
            el[1 + 2 * k] = static_cast<int32_t>(recv[k].j);
            el[2 + 2 * k] = static_cast<int32_t>(recv[k].start);
        }
        el[1 + 2 * nrecv] = static_cast<int32_t>(last_end);
    }
    w[0] = static_cast<int32_t>(check_word(n, m) | (dense ? kDenseBit : 0));
}

}  // namespace

DescriptorPair::DescriptorPair(const Context &c, Handle sd_s, int64_t n_s, int64_t m_s, Handle sd_d, int64_t n_d,
                               int64_t m_d)
    : src(c, sd_s, n_s, m_s, "source descriptor"), dst(c, sd_d, n_d, m_d, "destination descriptor") {
    if (m_s != m_d)
        dm::fail(DM_ERR_ARG, "source and destination have ", m_s, " and ", m_d, " segments, not the same number");
}

}  // namespace dm::vector

using namespace dm::vector;

extern "C" {

int siz_fos(int n, int m) {
    return local_entry("siz_fos", 0, [&](Context &c) {
        require_length(n, "n");
        require_length(m, "m");
        const int64_t units = descriptor_units(c, n, m);
        if (units > INT_MAX) dm::fail(DM_ERR_ARG, "a descriptor of n = ", n, ", m = ", m, " needs more than INT_MAX units");
        return static_cast<int>(units);
    });
}

void mke_fov(vec_p sd, vec_p l, int n, int m, vec_p) {
    collective_entry("mke_fov", {{"sd", sd}, {"l", l}, {"n", n}, {"m", m}},
                     [&](Context &c) { make_descriptor(c, sd, l, n, m); });
}

void len_fos(vec_p l, vec_p sd, int n, int m, vec_p) {
    entry("len_fos", {{"l", l}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        Descriptor d(c, sd, n, m, "descriptor sd");
        c.require_vector<int>(l, m, "lengths l");
        int *out = c.local<int>(l);
        for (int64_t t = 0; t < d.seg_count(); ++t) out[t] = static_cast<int>(d.seg_len(t));
    });
}

void cpy_wus(vec_p d, vec_p s, int n, int m, vec_p) {
    entry("cpy_wus", {{"d", d}, {"s", s}, {"n", n}, {"m", m}}, [&](Context &c) {
        Descriptor src(c, s, n, m, "descriptor s");
        const int64_t units = descriptor_units(c, n, m);
        c.memory->require(d, units * kUnit, units * kUnit, "destination d");
        std::memmove(c.local<char>(d), c.local<char>(s), static_cast<std::size_t>(units * kUnit));
    });
}

}  // extern "C"
