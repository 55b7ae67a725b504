// Segment descriptors (mke_fov, len_fos, cpy_wus, siz_fos) and the library's store of
// their element sides.
#include "vector/segdes.hpp"

#include "vector/exchange.hpp"

#include <cvl.h>

#include <algorithm>
#include <climits>
#include <cstring>

namespace dm::vector {

namespace {

// Word counts of a descriptor's segment side in vector memory and of the bound on its
// element side on every rank (segdes.hpp).
struct Sides {
    int64_t seg_words, elem_words;
};

Sides sides(const Context &c, int64_t n, int64_t m) {
    const int64_t bn = c.block(n).max_count(), bm = c.block(m).max_count();
    return Sides{m > 0 ? bm + 1 : 0, n > 0 ? std::min(2 * std::min(bn, m) + 2, bn + 2) : 0};
}

constexpr int64_t kHeaderWords = 2;  // check, identity

// The check word of a descriptor for (n, m): "CVSD" mixed with (n, m) by the splitmix64
// finalizer, so that a descriptor made for other lengths, or memory that holds none, is
// caught (the chance of a false match is 2^-32).
uint32_t check_word(int64_t n, int64_t m) {
    uint64_t z = (static_cast<uint64_t>(n) << 32 | static_cast<uint64_t>(m)) + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return static_cast<uint32_t>(z) ^ 0x44535643u;
}

struct Triple {
    int64_t j, start, len;
};

// Collective. The element side of a descriptor for (n, m) from the segment sides
// `bound` of every rank: its form word, then the records in the sparse or dense form.
// Every nonempty segment tells each rank holding one of its elements about itself (one
// count and one variable exchange). Uses slots kSend, kRecv, kMisc.
std::vector<int32_t> build_elements(Context &c, const int32_t *bound, int64_t n, int64_t m) {
    const BlockRule nb = c.block(n), mb = c.block(m);
    const int64_t e0 = nb.begin(c.rank), cnt = nb.count(c.rank);
    const int64_t s0 = mb.begin(c.rank), scnt = m > 0 ? mb.count(c.rank) : 0;
    zero(c.scount);
    int64_t nsend = 0;
    for (int64_t t = 0; t < scnt; ++t) {
        if (bound[t + 1] == bound[t]) continue;
        const int r0 = nb.owner(bound[t]), r1 = nb.owner(bound[t + 1] - 1);
        for (int r = r0; r <= r1; ++r) ++c.scount[r];
        nsend += r1 - r0 + 1;
    }
    exchange_counts(c, nullptr);
    Triple *send = c.ws.get<Triple>(kSend, static_cast<std::size_t>(nsend));
    int64_t *cursor = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks));
    for (int r = 0, at = 0; r < c.nranks; at += c.scount[r], ++r) cursor[r] = at;
    for (int64_t t = 0; t < scnt; ++t) {
        if (bound[t + 1] == bound[t]) continue;
        const int r0 = nb.owner(bound[t]), r1 = nb.owner(bound[t + 1] - 1);
        for (int r = r0; r <= r1; ++r) send[cursor[r]++] = Triple{s0 + t, bound[t], int64_t{bound[t + 1]} - bound[t]};
    }
    int64_t nrecv = 0;
    for (int r = 0; r < c.nranks; ++r) nrecv += c.rcount[r];
    Triple *recv = c.ws.get<Triple>(kRecv, static_cast<std::size_t>(nrecv));
    exchange(c, send, c.scount, recv, c.rcount, sizeof(Triple));

    if (cnt > 0 && nrecv == 0) fatal(c.call(), "internal error: no segment covers a local element");
    const int64_t last_end = nrecv > 0 ? recv[nrecv - 1].start + recv[nrecv - 1].len : 0;
    const bool dense = n > 0 && 2 * nrecv + 2 > sides(c, n, m).elem_words;  // then nrecv > 0
    std::vector<int32_t> w;
    if (dense) {
        w.resize(static_cast<std::size_t>(3 + cnt));
        w[0] = 1;
        w[1] = static_cast<int32_t>(recv[0].start);
        w[2] = static_cast<int32_t>(last_end);
        int32_t *seg = w.data() + 3;
        for (int64_t k = 0; k < nrecv; ++k) {
            const Triple &s = recv[k];
            const int64_t lo = std::max(s.start, e0) - e0, hi = std::min(s.start + s.len, e0 + cnt) - e0;
            for (int64_t i = lo; i < hi; ++i) seg[i] = static_cast<int32_t>(s.j);
        }
    } else {
        w.resize(static_cast<std::size_t>(3 + 2 * nrecv));
        w[0] = 0;
        w[1] = static_cast<int32_t>(nrecv);
        for (int64_t k = 0; k < nrecv; ++k) {
            w[2 + 2 * k] = static_cast<int32_t>(recv[k].j);
            w[3 + 2 * k] = static_cast<int32_t>(recv[k].start);
        }
        w[2 + 2 * nrecv] = static_cast<int32_t>(last_end);
    }
    return w;
}

}  // namespace

const std::vector<int32_t> *ElementSides::find(uint32_t id, int64_t n, int64_t m) {
    auto it = entries_.find(id);
    if (it == entries_.end() || it->second.n != n || it->second.m != m) return nullptr;
    recent_.splice(recent_.begin(), recent_, it->second.used);
    return &it->second.words;
}

const std::vector<int32_t> *ElementSides::keep(uint32_t id, int64_t n, int64_t m, int64_t bound,
                                               std::vector<int32_t> &words) {
    if (auto old = entries_.find(id); old != entries_.end()) {  // made 2^32 descriptors ago
        words_ -= old->second.bound;
        recent_.erase(old->second.used);
        entries_.erase(old);
    }
    if (bound > kMaxWords) return nullptr;
    while (!recent_.empty() && std::next(recent_.begin()) != recent_.end() &&
           (words_ + bound > kMaxWords || static_cast<int64_t>(entries_.size()) >= kMaxEntries)) {
        auto oldest = entries_.find(recent_.back());
        words_ -= oldest->second.bound;
        entries_.erase(oldest);
        recent_.pop_back();
    }
    if (words_ + bound > kMaxWords || static_cast<int64_t>(entries_.size()) >= kMaxEntries) return nullptr;
    recent_.push_front(id);
    words_ += bound;
    return &entries_.emplace(id, Entry{n, m, bound, std::move(words), recent_.begin()}).first->second.words;
}

int64_t descriptor_units(const Context &c, int64_t n, int64_t m) {
    const int64_t words = kHeaderWords + sides(c, n, m).seg_words;
    return (words * int64_t{sizeof(int32_t)} + kUnit - 1) / kUnit;
}

Descriptor::Descriptor(const Context &c, Handle sd, int64_t n, int64_t m, const char *what)
    : handle_(sd), n_(n), m_(m), nb_(c.block(n)), mb_(c.block(m)) {
    require_length(n, "n");
    require_length(m, "m");
    c.memory->require(sd, descriptor_units(c, n, m) * kUnit, descriptor_units(c, n, m) * kUnit, what);
    const int32_t *w = c.local<int32_t>(sd);
    if (static_cast<uint32_t>(w[0]) != check_word(n, m))
        fail(DM_ERR_ARG, what, " (handle ", sd, ") is not a segment descriptor made by mke_fov for n = ", n,
             ", m = ", m);
    id_ = static_cast<uint32_t>(w[1]);
    bound_ = w + kHeaderWords;
    e0_ = nb_.begin(c.rank);
    cnt_ = nb_.count(c.rank);
    s0_ = mb_.begin(c.rank);
    scnt_ = mb_.count(c.rank);
}

void Descriptor::load_elements(Context &c) const {
    if (elem_ || n_ == 0) return;
    const std::vector<int32_t> *kept = c.element_sides.find(id_, n_, m_);
    if (!kept) {
        own_ = build_elements(c, bound_, n_, m_);
        kept = c.element_sides.keep(id_, n_, m_, sides(c, n_, m_).elem_words, own_);
        if (!kept) kept = &own_;
    }
    dense_ = (*kept)[0] != 0;
    elem_ = kept->data() + 1;
    if (cnt_ > 0) last_end_ = dense_ ? elem_[1] : elem_[1 + 2 * int64_t{elem_[0]}];
}

const SegRecord *Descriptor::records(Context &c, int64_t *count) const {
    load_elements(c);
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

void make_descriptor(Context &c, Handle sd, Handle lengths, int64_t n, int64_t m) {
    require_length(n, "n");
    require_length(m, "m");
    c.memory->require(sd, descriptor_units(c, n, m) * kUnit, descriptor_units(c, n, m) * kUnit, "descriptor sd");
    c.require_vector<int>(lengths, m, "lengths l");
    const BlockRule mb = c.block(m);
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

    // The segment side (the lengths were copied, so l may overlap sd), then the element
    // side from it, kept by the library under the new descriptor's identity.
    int32_t *w = c.local<int32_t>(sd);
    int32_t *bound = w + kHeaderWords;
    if (m > 0) {
        int64_t g = base;
        for (int64_t t = 0; t < scnt; g += len[t], ++t) bound[t] = static_cast<int32_t>(g);
        bound[scnt] = static_cast<int32_t>(g);
    }
    const uint32_t id = c.element_sides.next_id();
    w[0] = static_cast<int32_t>(check_word(n, m));
    w[1] = static_cast<int32_t>(id);
    if (n > 0) {
        std::vector<int32_t> elements = build_elements(c, bound, n, m);
        c.element_sides.keep(id, n, m, sides(c, n, m).elem_words, elements);
    }
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
