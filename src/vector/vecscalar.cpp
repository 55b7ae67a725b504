// Vector-scalar functions (v): extract, replace, distribute; unsegmented and segmented.
#include "vector/ops.hpp"
#include "vector/permute.hpp"
#include "vector/segdes.hpp"

#include <cvl.h>

#include <cstring>

using namespace dm::vector;

namespace {

// A scalar's bits as one word, for signatures and gathers.
template <class T>
int64_t to_word(T value) {
    static_assert(sizeof(T) <= sizeof(int64_t));
    int64_t w = 0;
    std::memcpy(&w, &value, sizeof(T));
    return w;
}
template <class T>
T from_word(int64_t w) {
    T value;
    std::memcpy(&value, &w, sizeof(T));
    return value;
}

// The owner's element reaches every rank in one MPI_Allgather that also carries the
// call's signature: an index or length that differs by rank fails on every rank.
template <class T>
T extract(const char *name, vec_p v, int i, int len) {
    return entry(name, T(0), {{"v", v}, {"i", i}, {"len", len}}, [&](Context &c) {
        LocalFault fault;
        int64_t mine = 0;
        const BlockRule b = c.block(len < 0 ? 0 : len);
        if (local_checks(c, fault, [&] {
                require_length(len, "len");
                c.require_vector<T>(v, len, "vector v");
                if (i < 0 || i >= len) dm::fail(DM_ERR_ARG, "index ", i, " is outside [0, ", len, ")");
            }) &&
            b.owner(i) == c.rank)
            mine = to_word(c.local<T>(v)[i - b.begin(c.rank)]);
        const int64_t *all = gather_checked(c, &mine, 1, fault);
        return from_word<T>(all[b.owner(i)]);
    });
}

template <class T>
void replace(const char *name, vec_p v, int i, T value, int len) {
    entry(name, {{"v", v}, {"i", i}, {"value", to_word(value)}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(v, len, "vector v");
        if (i < 0 || i >= len) dm::fail(DM_ERR_ARG, "index ", i, " is outside [0, ", len, ")");
        const BlockRule b = c.block(len);
        if (b.owner(i) == c.rank) c.local<T>(v)[i - b.begin(c.rank)] = value;
    });
}

template <class T>
void distribute(const char *name, vec_p d, T value, int len) {
    entry(name, {{"d", d}, {"value", to_word(value)}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(d, len, "destination d");
        T *out = c.local<T>(d);
        const int64_t n = c.block(len).count(c.rank);
        // Zeros (a result about to be scattered into) by memset: its string stores
        // need not read the lines they overwrite.
        const T zero{};
        if (std::memcmp(&value, &zero, sizeof(T)) == 0) {
            std::memset(static_cast<void *>(out), 0, static_cast<std::size_t>(n) * sizeof(T));
            return;
        }
        for (int64_t k = 0; k < n; ++k) out[k] = value;
    });
}

// Global positions start_j + idx[j] of this rank's segments, checked.
int64_t *segment_positions(Context &c, const Descriptor &desc, const int *idx, LocalFault &fault) {
    const int64_t scnt = desc.seg_count(), s0 = desc.seg_begin();
    int64_t *target = c.ws.get<int64_t>(kTarget, static_cast<std::size_t>(scnt));
    for (int64_t t = 0; t < scnt; ++t) {
        const int64_t v = idx[t], len = desc.seg_len(t);
        if (v < 0 || v >= len) {
            fault.set("index ", v, " for segment ", s0 + t, " is outside [0, ", len, ")");
            target[t] = -1;
        } else {
            target[t] = desc.seg_start(t) + v;
        }
    }
    return target;
}

// d[j] = s[start_j + i[j]].
template <class T>
void extract_segmented(const char *name, vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m) {
    collective_entry(name, {{"d", d}, {"s", s}, {"i", i}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, m, "destination d");
        c.require_vector<T>(s, n, "source s");
        c.require_vector<int>(i, m, "index vector i");
        if (m == 0) return;
        LocalFault fault;
        const int64_t *target = segment_positions(c, desc, c.local<int>(i), fault);
        gather<T>(c, Positions<int64_t>{target}, desc.seg_count(), c.local<T>(d), c.local<T>(s), desc.elements(), T(0),
                  fault, [] {});
    });
}

// d[start_j + s[j]] = v[j].
template <class T>
void replace_segmented(const char *name, vec_p d, vec_p s, vec_p v, vec_p sd, int n, int m) {
    collective_entry(name, {{"d", d}, {"s", s}, {"v", v}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, n, "destination d");
        c.require_vector<int>(s, m, "index vector s");
        c.require_vector<T>(v, m, "value vector v");
        if (m == 0) return;
        LocalFault fault;
        const int64_t *target = segment_positions(c, desc, c.local<int>(s), fault);
        scatter<T>(c, Positions<int64_t>{target}, c.local<T>(v), desc.seg_count(), c.local<T>(d), desc.elements(), fault,
                   [] {});
    });
}

// Every element of segment j gets v[j].
template <class T>
void distribute_segmented(const char *name, vec_p d, vec_p v, vec_p sd, int n, int m) {
    collective_entry(name, {{"d", d}, {"v", v}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, n, "destination d");
        c.require_vector<T>(v, m, "value vector v");
        if (n == 0) return;
        int64_t nrec = 0;
        const SegRecord *recs = desc.records(c, &nrec);
        const T *vals = c.local<T>(v);
        const T *value = seg_to_elem<T>(c, desc, recs, nrec, [vals](int64_t t) { return vals[t]; });
        T *out = c.local<T>(d);
        for (int64_t t = 0; t < nrec; ++t)
            for (int64_t k = recs[t].lo; k < recs[t].hi; ++k) out[k] = value[t];
    });
}

}  // namespace

#define CVL_VECSCALAR(S, T)                                                                                    \
    T ext_vu##S(vec_p v, int i, int len, vec_p) { return extract<T>("ext_vu" #S, v, i, len); }                 \
    void ext_ve##S(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p) {                                 \
        extract_segmented<T>("ext_ve" #S, d, s, i, sd, n, m);                                                  \
    }                                                                                                          \
    void rep_vu##S(vec_p v, int i, T val, int len, vec_p) { replace<T>("rep_vu" #S, v, i, val, len); }         \
    void rep_ve##S(vec_p d, vec_p s, vec_p v, vec_p sd, int n, int m, vec_p) {                                 \
        replace_segmented<T>("rep_ve" #S, d, s, v, sd, n, m);                                                  \
    }                                                                                                          \
    void dis_vu##S(vec_p d, T v, int len, vec_p) { distribute<T>("dis_vu" #S, d, v, len); }                    \
    void dis_ve##S(vec_p d, vec_p v, vec_p sd, int n, int m, vec_p) {                                          \
        distribute_segmented<T>("dis_ve" #S, d, v, sd, n, m);                                                  \
    }

extern "C" {
CVL_VECSCALAR(z, int)
CVL_VECSCALAR(b, cvl_bool)
CVL_VECSCALAR(d, double)
}
