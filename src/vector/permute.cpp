// Permutations (p): smp, bck, fpm, bfp, dpe, dfp; unsegmented and segmented; int,
// cvl_bool and double.
//
// Segmented forms turn segment-relative indices into global ones and then run the
// unsegmented engine. The start and length of each element's segment come from the
// element's own descriptor when the index is relative to it (smp_pe?), otherwise from
// the other descriptor's segment side through seg_to_elem (one more variable exchange
// of small records), or locally again when both descriptors are the same handle.
#include "vector/permute.hpp"

#include "vector/ops.hpp"
#include "vector/segdes.hpp"

#include <cvl.h>

#include <cstring>
#include <optional>

using namespace dm::vector;

namespace {

using cvl_b = cvl_bool_t;
using Opt = std::optional<vec_p>;  // an optional vector argument (flags, default)

struct SegSpan {
    int64_t start, len;
};

// t(k) of unsegmented indices: idx[k] where the flag is set (every k without flags),
// checked against [0, bound); a bad index becomes the call's fault (naming its global
// position first + k) and moves nothing.
template <bool Flagged>
struct IndexTargets {
    const int *idx;
    const cvl_b *flags;
    int64_t bound, first;
    LocalFault *fault;
    int64_t operator()(int64_t k) const {
        if (Flagged && !flags[k]) return -1;
        const int64_t v = idx[k];
        if (static_cast<std::uint64_t>(v) < static_cast<std::uint64_t>(bound)) return v;
        bad(v, k);
        return -1;
    }
    // Records the first bad index of [0, n) in the fault: one branch-free pass (which
    // the compiler vectorises), and the search for the first only when there is one.
    void check(int64_t n) const {
        // The largest index as unsigned (negative ones are huge): a maximum the compiler vectorises.
        std::uint32_t most = 0;
        for (int64_t k = 0; k < n; ++k)
            most = std::max(most, (!Flagged || flags[k]) ? static_cast<std::uint32_t>(idx[k]) : std::uint32_t(0));
        const bool any = most >= static_cast<std::uint32_t>(bound);
        for (int64_t k = 0; any && k < n && !fault->bad; ++k) (*this)(k);
    }
    [[gnu::noinline, gnu::cold]] void bad(int64_t v, int64_t k) const {
        fault->set("index ", v, " at position ", first + k, " is outside [0, ", bound, ")");
    }
};

// Calls body(targets) with the IndexTargets of idx (with or without flags).
template <class F>
void with_index_targets(const int *idx, const cvl_b *flags, int64_t bound, int64_t first, LocalFault &fault, F &&body) {
    if (flags)
        body(IndexTargets<true>{idx, flags, bound, first, &fault});
    else
        body(IndexTargets<false>{idx, nullptr, bound, first, &fault});
}

// Global targets for segment-relative indices of the elements of `elems`: the index of
// element k refers to segment j of `other` (the same segment number as k's segment).
// Global positions fit an int32: every CVL length is an int.
Positions<int32_t> segmented_targets(Context &c, const Descriptor &elems, const Descriptor &other, const int *idx,
                                     const cvl_b *flags, LocalFault &fault) {
    int64_t nrec = 0;
    const SegRecord *recs = elems.records(c, &nrec);
    const bool same = elems.handle() == other.handle() && elems.n() == other.n();
    const SegSpan *span = nullptr;
    if (!same) {
        span = seg_to_elem<SegSpan>(c, elems, recs, nrec,
                                    [&](int64_t t) { return SegSpan{other.seg_start(t), other.seg_len(t)}; });
    }
    const int64_t e0 = elems.elem_begin();
    int32_t *target = c.ws.get<int32_t>(kTarget, static_cast<std::size_t>(elems.elem_count()));
    for (int64_t t = 0; t < nrec; ++t) {
        const SegRecord &r = recs[t];
        const SegSpan s = same ? SegSpan{r.start, r.len} : span[t];
        for (int64_t k = r.lo; k < r.hi; ++k) {
            if (flags && !flags[k]) {
                target[k] = -1;
                continue;
            }
            const int64_t v = idx[k];
            if (v < 0 || v >= s.len) {
                fault.set("index ", v, " at position ", e0 + k, " is outside segment ", r.j, " (length ", s.len, ")");
                target[k] = -1;
                continue;
            }
            target[k] = static_cast<int32_t>(s.start + v);
        }
    }
    return Positions<int32_t>{target};
}

template <class T>
void copy_default(T *d, const T *v, int64_t count) {
    if (count > 0 && d != v) std::memmove(d, v, static_cast<std::size_t>(count) * sizeof(T));
}

// ---- unsegmented

// smp, fpm, dpe, dfp: scatter from s (len_src) into d (len_dest).
template <class T>
void scatter_unsegmented(const char *name, vec_p d, vec_p s, vec_p i, Opt f, Opt v, int len_src, int len_dest) {
    entry(name, {{"d", d}, {"s", s}, {"i", i}, {"f", f.value_or(0)}, {"v", v.value_or(0)}, {"len_src", len_src},
                 {"len_dest", len_dest}},
          [&](Context &c) {
        LocalFault fault;
        if (!local_checks(c, fault, [&] {
                require_length(len_src, "source length");
                require_length(len_dest, "destination length");
                c.require_vector<T>(d, len_dest, "destination d");
                c.require_vector<T>(s, len_src, "source s");
                c.require_vector<int>(i, len_src, "index vector i");
                if (f) c.require_vector<cvl_b>(*f, len_src, "flag vector f");
                if (v) c.require_vector<T>(*v, len_dest, "default vector v");
            }))
            fail_in_count_exchange(c, fault);
        const BlockRule sb = c.block(len_src), db = c.block(len_dest);
        const int64_t ns = sb.count(c.rank), nd = db.count(c.rank);
        T *dst = c.local<T>(d);
        with_index_targets(c.local<int>(i), f ? c.local<cvl_b>(*f) : nullptr, len_dest, sb.begin(c.rank), fault,
                           [&](auto target) {
            scatter<T>(c, target, c.local<T>(s), ns, dst, db, fault, [&] {
                if (v) copy_default(dst, c.local<T>(*v), nd);
            });
        });
    });
}

// bck, bfp: gather from s (len_src) into d (len_dest).
template <class T>
void gather_unsegmented(const char *name, vec_p d, vec_p s, vec_p i, Opt f, int len_src, int len_dest) {
    entry(name, {{"d", d}, {"s", s}, {"i", i}, {"f", f.value_or(0)}, {"len_src", len_src}, {"len_dest", len_dest}},
          [&](Context &c) {
        LocalFault fault;
        if (!local_checks(c, fault, [&] {
                require_length(len_src, "source length");
                require_length(len_dest, "destination length");
                c.require_vector<T>(d, len_dest, "destination d");
                c.require_vector<T>(s, len_src, "source s");
                c.require_vector<int>(i, len_dest, "index vector i");
                if (f) c.require_vector<cvl_b>(*f, len_dest, "flag vector f");
            }))
            fail_in_count_exchange(c, fault);
        const BlockRule sb = c.block(len_src), db = c.block(len_dest);
        const int64_t nd = db.count(c.rank);
        with_index_targets(c.local<int>(i), f ? c.local<cvl_b>(*f) : nullptr, len_src, db.begin(c.rank), fault,
                           [&](auto target) {
            gather<T>(c, target, nd, c.local<T>(d), c.local<T>(s), sb, T(0), fault, [] {});
        });
    });
}

// ---- segmented

template <class T>
void scatter_segmented(const char *name, vec_p d, vec_p s, vec_p i, Opt f, Opt v, vec_p sd_s, int n_s, int m_s,
                       vec_p sd_d, int n_d, int m_d) {
    collective_entry(name, {{"d", d}, {"s", s}, {"i", i}, {"f", f.value_or(0)}, {"v", v.value_or(0)}, {"sd_s", sd_s},
                 {"n_s", n_s}, {"m_s", m_s}, {"sd_d", sd_d}, {"n_d", n_d}, {"m_d", m_d}},
          [&](Context &c) {
        const DescriptorPair pair(c, sd_s, n_s, m_s, sd_d, n_d, m_d);
        const Descriptor &src = pair.src, &dst_desc = pair.dst;
        c.require_vector<T>(d, n_d, "destination d");
        c.require_vector<T>(s, n_s, "source s");
        c.require_vector<int>(i, n_s, "index vector i");
        if (f) c.require_vector<cvl_b>(*f, n_s, "flag vector f");
        if (v) c.require_vector<T>(*v, n_d, "default vector v");
        const BlockRule db = c.block(n_d);
        T *dst = c.local<T>(d);
        LocalFault fault;
        const auto target =
            segmented_targets(c, src, dst_desc, c.local<int>(i), f ? c.local<cvl_b>(*f) : nullptr, fault);
        scatter<T>(c, target, c.local<T>(s), src.elem_count(), dst, db, fault, [&] {
            if (v) copy_default(dst, c.local<T>(*v), db.count(c.rank));
        });
    });
}

template <class T>
void gather_segmented(const char *name, vec_p d, vec_p s, vec_p i, Opt f, vec_p sd_s, int n_s, int m_s, vec_p sd_d,
                      int n_d, int m_d) {
    collective_entry(name, {{"d", d}, {"s", s}, {"i", i}, {"f", f.value_or(0)}, {"sd_s", sd_s}, {"n_s", n_s},
                            {"m_s", m_s},
                 {"sd_d", sd_d}, {"n_d", n_d}, {"m_d", m_d}},
          [&](Context &c) {
        const DescriptorPair pair(c, sd_s, n_s, m_s, sd_d, n_d, m_d);
        const Descriptor &src = pair.src, &dst_desc = pair.dst;
        c.require_vector<T>(d, n_d, "destination d");
        c.require_vector<T>(s, n_s, "source s");
        c.require_vector<int>(i, n_d, "index vector i");
        if (f) c.require_vector<cvl_b>(*f, n_d, "flag vector f");
        LocalFault fault;
        const auto target =
            segmented_targets(c, dst_desc, src, c.local<int>(i), f ? c.local<cvl_b>(*f) : nullptr, fault);
        gather<T>(c, target, dst_desc.elem_count(), c.local<T>(d), c.local<T>(s), c.block(n_s), T(0), fault, [] {});
    });
}

}  // namespace

#define CVL_PERMUTE(S, T)                                                                                          \
    void smp_pu##S(vec_p d, vec_p s, vec_p i, int len, vec_p) {                                                    \
        scatter_unsegmented<T>("smp_pu" #S, d, s, i, std::nullopt, std::nullopt, len, len);                                              \
    }                                                                                                              \
    void smp_pe##S(vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m, vec_p) {                                     \
        scatter_segmented<T>("smp_pe" #S, d, s, i, std::nullopt, std::nullopt, sd, n, m, sd, n, m);                                      \
    }                                                                                                              \
    void bck_pu##S(vec_p d, vec_p s, vec_p i, int s_len, int d_len, vec_p) {                                       \
        gather_unsegmented<T>("bck_pu" #S, d, s, i, std::nullopt, s_len, d_len);                                              \
    }                                                                                                              \
    void bck_pe##S(vec_p d, vec_p s, vec_p i, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, vec_p) { \
        gather_segmented<T>("bck_pe" #S, d, s, i, std::nullopt, sd_s, n_s, m_s, sd_d, n_d, m_d);                              \
    }                                                                                                              \
    void fpm_pu##S(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p) {                         \
        scatter_unsegmented<T>("fpm_pu" #S, d, s, i, f, std::nullopt, len_src, len_dest);                                     \
    }                                                                                                              \
    void fpm_pe##S(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, \
                   vec_p) {                                                                                        \
        scatter_segmented<T>("fpm_pe" #S, d, s, i, f, std::nullopt, sd_s, n_s, m_s, sd_d, n_d, m_d);                          \
    }                                                                                                              \
    void bfp_pu##S(vec_p d, vec_p s, vec_p i, vec_p f, int len_src, int len_dest, vec_p) {                         \
        gather_unsegmented<T>("bfp_pu" #S, d, s, i, f, len_src, len_dest);                                         \
    }                                                                                                              \
    void bfp_pe##S(vec_p d, vec_p s, vec_p i, vec_p f, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, \
                   vec_p) {                                                                                        \
        gather_segmented<T>("bfp_pe" #S, d, s, i, f, sd_s, n_s, m_s, sd_d, n_d, m_d);                              \
    }                                                                                                              \
    void dpe_pu##S(vec_p d, vec_p s, vec_p i, vec_p v, int len_src, int len_dest, vec_p) {                         \
        scatter_unsegmented<T>("dpe_pu" #S, d, s, i, std::nullopt, v, len_src, len_dest);                                     \
    }                                                                                                              \
    void dpe_pe##S(vec_p d, vec_p s, vec_p i, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, int m_d, \
                   vec_p) {                                                                                        \
        scatter_segmented<T>("dpe_pe" #S, d, s, i, std::nullopt, v, sd_s, n_s, m_s, sd_d, n_d, m_d);                          \
    }                                                                                                              \
    void dfp_pu##S(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, int len_src, int len_dest, vec_p) {                \
        scatter_unsegmented<T>("dfp_pu" #S, d, s, i, f, v, len_src, len_dest);                                     \
    }                                                                                                              \
    void dfp_pe##S(vec_p d, vec_p s, vec_p i, vec_p f, vec_p v, vec_p sd_s, int n_s, int m_s, vec_p sd_d, int n_d, \
                   int m_d, vec_p) {                                                                               \
        scatter_segmented<T>("dfp_pe" #S, d, s, i, f, v, sd_s, n_s, m_s, sd_d, n_d, m_d);                          \
    }

extern "C" {
CVL_PERMUTE(z, int)
CVL_PERMUTE(b, cvl_bool)
CVL_PERMUTE(d, double)
}
