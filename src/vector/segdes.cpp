// Segment descriptors (mke_fov, len_fos, cpy_wus, siz_fos).
#include "vector/segdes.hpp"

#include "vector/exchange.hpp"

#include <cvl.h>

#include <climits>
#include <cstring>

namespace dm::vector {

int64_t descriptor_units(const Context &c, int64_t n, int64_t m) {
    return kDescriptorHeader + 2 * c.block(m).max_count() + 2 * c.block(n).max_count();
}

Descriptor::Descriptor(const Context &c, Handle sd, int64_t n, int64_t m, const char *what)
    : handle_(sd), words_(nullptr), n_(n), m_(m), bm_(c.block(m).max_count()), nb_(c.block(n)), mb_(c.block(m)) {
    require_length(n, "n");
    require_length(m, "m");
    c.memory->require(sd, descriptor_units(c, n, m) * kUnit, descriptor_units(c, n, m) * kUnit, what);
    words_ = c.local<int64_t>(sd);
    // The header words compared here are written identically on every rank, so the
    // verdict is the same everywhere.
    if (words_[0] != kDescriptorMagic)
        fail(DM_ERR_ARG, what, " (handle ", sd, ") is not a segment descriptor made by mke_fov");
    if (words_[1] != n || words_[2] != m)
        fail(DM_ERR_ARG, what, " was made for n = ", words_[1], ", m = ", words_[2], ", not n = ", n, ", m = ", m);
    e0_ = nb_.begin(c.rank);
    cnt_ = nb_.count(c.rank);
    s0_ = mb_.begin(c.rank);
    scnt_ = mb_.count(c.rank);
}

const SegRecord *Descriptor::records(Context &c, int64_t *count) const {
    const int64_t ns = nstarts();
    SegRecord *recs = c.ws.get<SegRecord>(kRecords, static_cast<std::size_t>(ns + 1));
    int64_t nrec = 0;
    if (cnt_ > 0) {
        const int64_t *st = starts();
        if (ns == 0 || st[1] != 0)  // the first element continues a segment begun earlier
            recs[nrec++] = SegRecord{words_[4], words_[5], words_[6], 0, 0};
        for (int64_t k = 0; k < ns; ++k) {
            const int64_t pos = st[2 * k + 1];
            if (nrec > 0) recs[nrec - 1].hi = pos;
            recs[nrec++] = SegRecord{st[2 * k], e0_ + pos, 0, pos, 0};
        }
        for (int64_t t = 0; t + 1 < nrec; ++t)
            if (recs[t].start >= e0_) recs[t].len = recs[t].hi - recs[t].lo;
        SegRecord &last = recs[nrec - 1];
        last.hi = cnt_;
        last.len = words_[9];
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
    const int64_t bm = mb.max_count();

    // Lengths, checked; their prefix sums from one MPI_Allgather of (sum, fault).
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
        dm::check_mpi(MPI_Allgather(mine, 2, MPI_INT64_T, all, 2, MPI_INT64_T, c.comm), "MPI_Allgather");
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
    int64_t *w = c.local<int64_t>(sd);
    int64_t *seg_start = w + kDescriptorHeader, *seg_len = seg_start + bm;
    int64_t *starts = w + kDescriptorHeader + 2 * bm;
    std::memset(w, 0, kDescriptorHeader * sizeof(int64_t));
    w[0] = kDescriptorMagic;
    w[1] = n;
    w[2] = m;
    for (int k = 4; k <= 9; ++k) w[k] = -1;
    {
        int64_t g = base;
        for (int64_t t = 0; t < scnt; g += len[t], ++t) {
            seg_start[t] = g;
            seg_len[t] = len[t];
        }
    }
    int64_t ns = 0;
    for (int64_t k = 0; k < nrecv; ++k) {
        const Triple &s = recv[k];
        if (s.start >= e0) {
            starts[2 * ns] = s.j;
            starts[2 * ns + 1] = s.start - e0;
            ++ns;
        }
    }
    w[3] = ns;
    if (cnt > 0) {
        if (nrecv == 0) fatal("mke_fov", "internal error: no segment covers a local element");
        const Triple &first = recv[0], &last = recv[nrecv - 1];
        w[4] = first.j;
        w[5] = first.start;
        w[6] = first.len;
        w[7] = last.j;
        w[8] = last.start;
        w[9] = last.len;
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
        const int64_t *len = d.seg_len();
        for (int64_t t = 0; t < d.seg_count(); ++t) out[t] = static_cast<int>(len[t]);
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
