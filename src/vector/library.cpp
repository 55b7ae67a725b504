// Library functions (l): index vectors, pack, rank (stable sort positions).
#include "vector/permute.hpp"
#include "vector/scan.hpp"
#include "vector/segdes.hpp"
#include "vector/sort.hpp"

#include <cvl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

using namespace dm::vector;

namespace {

using cvl_b = cvl_bool_t;

inline int index_value(int init, int64_t k, int stride) {
    return static_cast<int>(static_cast<unsigned>(init) +
                            static_cast<unsigned>(static_cast<std::uint64_t>(k) * static_cast<unsigned>(stride)));
}

// ------------------------------------------------------------------- pack

// Collective. Keeps the flagged elements of src (this rank's ns elements) in order as
// the dest_len elements of dst. One gather of counts (so every rank knows where
// every other rank's kept elements go, and both sides compute the message sizes) and
// one variable exchange straight into the destination block.
template <class T>
void pack(Context &c, const T *src, const cvl_b *flags, int64_t ns, T *dst, int64_t dest_len) {
    int64_t kept = 0;
    for (int64_t k = 0; k < ns; ++k) kept += flags[k] != 0;
    const int64_t *all = gather_checked(c, &kept, 1, LocalFault{});
    int64_t base = 0, total = 0;
    for (int r = 0; r < c.nranks; ++r) {
        if (r < c.rank) base += all[r];
        total += all[r];
    }
    if (total != dest_len)
        dm::fail(DM_ERR_ARG, "the destination length ", dest_len, " differs from the number of true flags, ", total);
    const BlockRule db = c.block(dest_len);
    const int64_t d0 = db.begin(c.rank), d1 = d0 + db.count(c.rank);
    for (int r = 0; r < c.nranks; ++r) {
        // my kept elements [base, base + kept) that land in r's destination block
        const int64_t lo = std::max(base, db.begin(r)), hi = std::min(base + kept, db.begin(r) + db.count(r));
        c.scount[r] = static_cast<int>(std::max<int64_t>(0, hi - lo));
    }
    int64_t at = 0;
    for (int r = 0; r < c.nranks; at += all[r], ++r) {
        // r's kept elements [at, at + all[r]) that land in my block
        const int64_t lo = std::max(at, d0), hi = std::min(at + all[r], d1);
        c.rcount[r] = static_cast<int>(std::max<int64_t>(0, hi - lo));
    }
    T *send = c.ws.get<T>(kSend, static_cast<std::size_t>(kept));
    for (int64_t k = 0, at = 0; k < ns; ++k)
        if (flags[k]) send[at++] = src[k];
    exchange(c, send, c.scount, dst, c.rcount, sizeof(T));
}

template <class T>
void pack_unsegmented(const char *name, vec_p d, vec_p s, vec_p f, int src_len, int dest_len) {
    entry(name, {{"d", d}, {"s", s}, {"f", f}, {"src_len", src_len}, {"dest_len", dest_len}}, [&](Context &c) {
        LocalFault fault;
        const bool ok = local_checks(c, fault, [&] {
            require_length(src_len, "source length");
            require_length(dest_len, "destination length");
            c.require_vector<T>(d, dest_len, "destination d");
            c.require_vector<T>(s, src_len, "source s");
            c.require_vector<cvl_b>(f, src_len, "flag vector f");
        });
        if (!ok) gather_checked(c, nullptr, 0, fault);  // throws on every rank
        pack<T>(c, c.local<T>(s), c.local<cvl_b>(f), c.block(src_len).count(c.rank), c.local<T>(d), dest_len);
    });
}

template <class T>
void pack_segmented(const char *name, vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d,
                    int m_d) {
    collective_entry(name, {{"d", d}, {"s", s}, {"f", f}, {"sd_s", sd_s}, {"n_s", n_s}, {"m_s", m_s}, {"sd_d", sd_d},
                            {"n_d", n_d}, {"m_d", m_d}},
          [&](Context &c) {
        const DescriptorPair pair(c, sd_s, n_s, m_s, sd_d, n_d, m_d);
        const Descriptor &src = pair.src;  // pair.dst is checked; the pack needs only the source side
        c.require_vector<T>(d, n_d, "destination d");
        c.require_vector<T>(s, n_s, "source s");
        c.require_vector<cvl_b>(f, n_s, "flag vector f");
        // Packing keeps the order, so segment boundaries follow: the segmented pack is
        // the unsegmented one (sd_d describes the per-segment counts).
        pack<T>(c, c.local<T>(s), c.local<cvl_b>(f), src.elem_count(), c.local<T>(d), n_d);
    });
}

// ------------------------------------------------------------------- rank

// A tuning limit of the rank functions, which an environment variable overrides (the
// tests force each path with it).
int64_t sort_limit(const char *env_name, int64_t fallback) {
    const char *env = std::getenv(env_name);
    return env ? std::strtoll(env, nullptr, 10) : fallback;
}

// Vectors up to this length are ranked by gathering all keys on every rank (one
// collective); longer ones by a parallel sample sort.
int64_t sort_gather_max() {
    static const int64_t value = sort_limit("CVL_SORT_GATHER_MAX", 1024);
    return value;
}

// Up to this many ranks, a rank merges the sorted runs its bucket arrives in; with more
// it sorts the bucket again.
int64_t sort_merge_max() {
    static const int64_t value = sort_limit("CVL_SORT_MERGE_MAX", 8);
    return value;
}

// sort_positions with few items: every rank gathers and sorts all of them.
template <class Key>
void sort_gathered(Context &c, Keyed<Key> *mine, int64_t cnt, int64_t n, int *pos) {
    using Item = Keyed<Key>;
    const BlockRule nb = c.block(n);
    const int64_t e0 = nb.begin(c.rank);
    int64_t *counts = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(2 * c.nranks));
    int64_t *displs = counts + c.nranks;
    Item *all = mine;
    if (c.nranks > 1) {
        all = c.ws.get<Item>(kSortA, static_cast<std::size_t>(n));
        for (int r = 0; r < c.nranks; ++r) {
            counts[r] = nb.count(r);
            displs[r] = nb.begin(r);
        }
        dm::exchange::gather_variable(c.comm, mine, all, counts, displs, sizeof(Item));
    }
    const Item *sorted = radix_sort(all, c.ws.get<Item>(kSortB, static_cast<std::size_t>(n)),
                                    static_cast<std::size_t>(n));
    for (int64_t t = 0; t < n; ++t) {
        const int64_t k = static_cast<int64_t>(sorted[t].idx) - e0;
        if (k >= 0 && k < cnt) pos[k] = static_cast<int>(t);
    }
}

// Collective. The sample sort's buckets: c.scount[q] = how many of this rank's cnt
// sorted items go to bucket q, from up to nranks regular samples per rank. Bucket q
// holds the items above splitter q-1 and up to splitter q, by (key, global index):
// equal keys split between buckets in index order. Uses slots kSortB and kMisc.
template <class Key>
void split_buckets(Context &c, const Keyed<Key> *sorted, int64_t cnt, const BlockRule &nb) {
    using Item = Keyed<Key>;
    int64_t *counts = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(2 * c.nranks));
    int64_t *displs = counts + c.nranks;
    int64_t nsamples = 0;
    for (int r = 0; r < c.nranks; ++r) {
        counts[r] = std::min<int64_t>(nb.count(r), c.nranks);
        displs[r] = nsamples;
        nsamples += counts[r];
    }
    const int64_t my_samples = counts[c.rank];
    Item *samples = c.ws.get<Item>(kSortB, static_cast<std::size_t>(nsamples + my_samples));
    Item *picked = samples + nsamples;
    for (int64_t t = 0; t < my_samples; ++t) picked[t] = sorted[(2 * t + 1) * cnt / (2 * my_samples)];
    dm::exchange::gather_variable(c.comm, picked, samples, counts, displs, sizeof(Item));
    std::sort(samples, samples + nsamples, keyed_less<Key>);
    std::vector<Item> splitters;
    for (int q = 1; q < c.nranks; ++q) splitters.push_back(samples[q * nsamples / c.nranks]);
    int64_t prev = 0;
    for (int q = 0; q < c.nranks; ++q) {
        const int64_t end = q + 1 < c.nranks
                                ? std::upper_bound(sorted, sorted + cnt, splitters[q], keyed_less<Key>) - sorted
                                : cnt;
        c.scount[q] = static_cast<int>(end - prev);
        prev = end;
    }
}

// back[slot] = the global position (from `base`) of the key that arrived at slot of
// this rank's bucket, whose runs arrived one per source rank: a merge of the runs
// with few ranks, a radix sort of (key, slot) with many. Uses slots kSortB, kSend,
// kRecv and kMisc.
template <class Key>
std::uint32_t *arrival_positions(Context &c, const Key *keys_in, int64_t nbucket, int64_t base) {
    using Item = Keyed<Key>;
    if (c.nranks <= sort_merge_max()) {
        auto *start = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(c.nranks) + 1);
        start[0] = 0;
        for (int r = 0; r < c.nranks; ++r) start[r + 1] = start[r] + c.rcount[r];
        std::uint32_t *back = c.ws.get<std::uint32_t>(kSortB, static_cast<std::size_t>(nbucket));
        merge_positions(keys_in, start, c.nranks, static_cast<std::uint32_t>(base), back);
        return back;
    }
    Item *bucket = c.ws.get<Item>(kSortB, static_cast<std::size_t>(nbucket));
    for (int64_t t = 0; t < nbucket; ++t) bucket[t] = Item{keys_in[t], static_cast<std::uint32_t>(t)};
    const Item *ordered = radix_sort(bucket, c.ws.get<Item>(kSend, static_cast<std::size_t>(nbucket)),
                                     static_cast<std::size_t>(nbucket));
    std::uint32_t *back = c.ws.get<std::uint32_t>(kRecv, static_cast<std::size_t>(nbucket));
    for (int64_t t = 0; t < nbucket; ++t) back[ordered[t].idx] = static_cast<std::uint32_t>(base + t);
    return back;
}

// Collective. pos[k] = the position of this rank's element k (global index e0 + k) in
// the stable sort of all ranks' items by key (n < 2^31, so positions are ints). mine
// holds this rank's cnt items in index order, idx global; the call may overwrite it.
// Uses slots kSortA, kSortB, kSend, kRecv, kMisc.
template <class Key>
void sort_positions(Context &c, Keyed<Key> *mine, int64_t cnt, int64_t n, int *pos) {
    using Item = Keyed<Key>;
    if (c.nranks == 1 || n <= sort_gather_max()) return sort_gathered(c, mine, cnt, n, pos);
    const BlockRule nb = c.block(n);
    const int64_t e0 = nb.begin(c.rank);

    // Sample sort. Local sort, then buckets by regular samples.
    const Item *sorted = radix_sort(mine, c.ws.get<Item>(kSortA, static_cast<std::size_t>(cnt)),
                                    static_cast<std::size_t>(cnt));
    split_buckets(c, sorted, cnt, nb);
    exchange_counts(c, nullptr);
    int64_t nbucket = 0;
    for (int r = 0; r < c.nranks; ++r) nbucket += c.rcount[r];

    // Only keys travel. A bucket arrives as one sorted run per source rank, in rank
    // (so index) order: ranking equal keys by arrival orders them by index.
    Key *keys_out = c.ws.get<Key>(kSend, static_cast<std::size_t>(cnt));
    for (int64_t t = 0; t < cnt; ++t) keys_out[t] = sorted[t].key;
    Key *keys_in = c.ws.get<Key>(kRecv, static_cast<std::size_t>(nbucket));
    exchange(c, keys_out, c.scount, keys_in, c.rcount, sizeof(Key));
    int64_t base = 0;
    dm::check_mpi(MPI_Exscan(&nbucket, &base, 1, MPI_INT64_T, MPI_SUM, c.comm), "MPI_Exscan");
    if (c.rank == 0) base = 0;
    const std::uint32_t *back = arrival_positions(c, keys_in, nbucket, base);

    // Positions go back in arrival order, so each source rank receives them in its own
    // sorted order and needs no index with them: the counts are the key exchange's,
    // reversed.
    auto *got = c.ws.get<std::uint32_t>(kSend, static_cast<std::size_t>(cnt));
    exchange(c, back, c.rcount, got, c.scount, sizeof(std::uint32_t));
    for (int64_t t = 0; t < cnt; ++t) pos[sorted[t].idx - e0] = static_cast<int>(got[t]);
}

template <class K>
void rank_unsegmented(const char *name, vec_p d, vec_p s, int len, bool descending) {
    collective_entry(name, {{"d", d}, {"s", s}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<int>(d, len, "destination d");
        c.require_vector<K>(s, len, "source s");
        if (len == 0) return;
        using Key = RankKey<K, false>;
        const BlockRule b = c.block(len);
        const int64_t cnt = b.count(c.rank), e0 = b.begin(c.rank);
        const K *key = c.local<K>(s);
        auto *mine = c.ws.get<Keyed<typename Key::type>>(kTarget, static_cast<std::size_t>(cnt));
        for (int64_t k = 0; k < cnt; ++k) mine[k] = {Key::make(key[k], 0, descending), static_cast<std::uint32_t>(e0 + k)};
        sort_positions(c, mine, cnt, len, c.local<int>(d));  // the keys are in mine: d may be s
    });
}

template <class K>
void rank_segmented(const char *name, vec_p d, vec_p s, vec_p sd, int n, int m, bool descending) {
    collective_entry(name, {{"d", d}, {"s", s}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<int>(d, n, "destination d");
        c.require_vector<K>(s, n, "source s");
        if (n == 0) return;
        using Key = RankKey<K, true>;
        const int64_t cnt = desc.elem_count(), e0 = desc.elem_begin();
        int64_t nrec = 0;
        const SegRecord *recs = desc.records(c, &nrec);
        const K *key = c.local<K>(s);
        auto *mine = c.ws.get<Keyed<typename Key::type>>(kTarget, static_cast<std::size_t>(cnt));
        for (int64_t t = 0; t < nrec; ++t)
            for (int64_t k = recs[t].lo; k < recs[t].hi; ++k)
                mine[k] = {Key::make(key[k], recs[t].j, descending), static_cast<std::uint32_t>(e0 + k)};
        int *out = c.local<int>(d);
        sort_positions(c, mine, cnt, n, out);
        // Sorting by segment first keeps every segment in its place: the position
        // within the segment is the global position less the segment's start.
        for (int64_t t = 0; t < nrec; ++t)
            for (int64_t k = recs[t].lo; k < recs[t].hi; ++k) out[k] -= static_cast<int>(recs[t].start);
    });
}

}  // namespace

extern "C" {

void ind_luz(vec_p d, int init, int stride, int count, vec_p) {
    entry("ind_luz", {{"d", d}, {"init", init}, {"stride", stride}, {"count", count}}, [&](Context &c) {
        require_length(count, "count");
        c.require_vector<int>(d, count, "destination d");
        const BlockRule b = c.block(count);
        const int64_t n = b.count(c.rank), e0 = b.begin(c.rank);
        int *out = c.local<int>(d);
        for (int64_t k = 0; k < n; ++k) out[k] = index_value(init, e0 + k, stride);
    });
}

void ind_lez(vec_p d, vec_p init, vec_p stride, vec_p sd, int n, int m, vec_p) {
    const Args args = {{"d", d}, {"init", init}, {"stride", stride}, {"sd", sd}, {"n", n}, {"m", m}};
    collective_entry("ind_lez", args, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<int>(d, n, "destination d");
        c.require_vector<int>(init, m, "init vector");
        c.require_vector<int>(stride, m, "stride vector");
        if (n == 0) return;
        struct Line {
            int init, stride;
        };
        int64_t nrec = 0;
        const SegRecord *recs = desc.records(c, &nrec);
        const int *a = c.local<int>(init), *b = c.local<int>(stride);
        const Line *line = seg_to_elem<Line>(c, desc, recs, nrec, [&](int64_t t) { return Line{a[t], b[t]}; });
        const int64_t e0 = desc.elem_begin();
        int *out = c.local<int>(d);
        for (int64_t t = 0; t < nrec; ++t)
            for (int64_t k = recs[t].lo; k < recs[t].hi; ++k)
                out[k] = index_value(line[t].init, e0 + k - recs[t].start, line[t].stride);
    });
}

int pk1_luv(vec_p f, int len, vec_p) {
    return entry("pk1_luv", 0, {{"f", f}, {"len", len}}, [&](Context &c) {
        LocalFault fault;
        int64_t mine = 0;
        if (local_checks(c, fault, [&] {
                require_length(len, "len");
                c.require_vector<cvl_b>(f, len, "flag vector f");
            })) {
            const cvl_b *flags = c.local<cvl_b>(f);
            for (int64_t k = 0, n = c.block(len).count(c.rank); k < n; ++k) mine += flags[k] != 0;
        }
        // The counts travel with the call's signature: one row gather.
        const int64_t *all = gather_checked(c, &mine, 1, fault);
        int64_t total = 0;
        for (int r = 0; r < c.nranks; ++r) total += all[r];
        return static_cast<int>(total);
    });
}

void pk1_lev(vec_p d, vec_p f, vec_p sd, int n, int m, vec_p) {
    collective_entry("pk1_lev", {{"d", d}, {"f", f}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<int>(d, m, "destination d");
        c.require_vector<cvl_b>(f, n, "flag vector f");
        int *out = c.local<int>(d);
        if (n == 0) {
            for (int64_t t = 0; t < desc.seg_count(); ++t) out[t] = 0;
            return;
        }
        const cvl_b *flags = c.local<cvl_b>(f);
        reduce_segments<OpKind::add, int>(c, desc, [flags](int64_t i) { return flags[i] != 0 ? 1 : 0; }, out);
    });
}

void pk2_luz(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p) {
    pack_unsegmented<int>("pk2_luz", d, s, f, src_len, dest_len);
}
void pk2_lub(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p) {
    pack_unsegmented<cvl_b>("pk2_lub", d, s, f, src_len, dest_len);
}
void pk2_lud(vec_p d, vec_p s, vec_p f, int src_len, int dest_len, vec_p) {
    pack_unsegmented<double>("pk2_lud", d, s, f, src_len, dest_len);
}
void pk2_lez(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p) {
    pack_segmented<int>("pk2_lez", d, s, f, sd_s, n_s, m_s, sd_d, n_d, m_d);
}
void pk2_leb(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p) {
    pack_segmented<cvl_b>("pk2_leb", d, s, f, sd_s, n_s, m_s, sd_d, n_d, m_d);
}
void pk2_led(vec_p d, vec_p s, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p) {
    pack_segmented<double>("pk2_led", d, s, f, sd_s, n_s, m_s, sd_d, n_d, m_d);
}

void rku_luz(vec_p d, vec_p s, int len, vec_p) { rank_unsegmented<int>("rku_luz", d, s, len, false); }
void rkd_luz(vec_p d, vec_p s, int len, vec_p) { rank_unsegmented<int>("rkd_luz", d, s, len, true); }
void rku_lud(vec_p d, vec_p s, int len, vec_p) { rank_unsegmented<double>("rku_lud", d, s, len, false); }
void rkd_lud(vec_p d, vec_p s, int len, vec_p) { rank_unsegmented<double>("rkd_lud", d, s, len, true); }
void rku_lez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {
    rank_segmented<int>("rku_lez", d, s, sd, n, m, false);
}
void rkd_lez(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {
    rank_segmented<int>("rkd_lez", d, s, sd, n, m, true);
}
void rku_led(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {
    rank_segmented<double>("rku_led", d, s, sd, n, m, false);
}
void rkd_led(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {
    rank_segmented<double>("rkd_led", d, s, sd, n, m, true);
}

}  // extern "C"
