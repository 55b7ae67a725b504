// Scans (s) and reductions (r): add mul min max on int and double, and ior xor on
// cvl_bool and int; unsegmented and segmented.
#include "vector/scan.hpp"

#include <cvl.h>

#include <cstring>

using namespace dm::vector;

namespace {

template <OpKind K, class T>
void scan_unsegmented(const char *name, vec_p d, vec_p s, int len) {
    collective_entry(name, {{"d", d}, {"s", s}, {"len", len}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(d, len, "destination d");
        c.require_vector<T>(s, len, "source s");
        if (len == 0) return;
        const BlockRule b = c.block(len);
        const ScanRun run{0, b.count(c.rank), b.begin(c.rank) > 0};
        scan_runs<K, T>(c, c.local<T>(s), c.local<T>(d), &run, run.hi > 0 ? 1 : 0);
    });
}

template <OpKind K, class T>
void scan_segmented(const char *name, vec_p d, vec_p s, vec_p sd, int n, int m) {
    collective_entry(name, {{"d", d}, {"s", s}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, n, "destination d");
        c.require_vector<T>(s, n, "source s");
        if (n == 0) return;
        int64_t nrec = 0;
        const SegRecord *recs = desc.records(c, &nrec);
        ScanRun *runs = c.ws.get<ScanRun>(kMisc, static_cast<std::size_t>(nrec));
        for (int64_t t = 0; t < nrec; ++t) runs[t] = ScanRun{recs[t].lo, recs[t].hi, recs[t].start < desc.elem_begin()};
        scan_runs<K, T>(c, c.local<T>(s), c.local<T>(d), runs, nrec);
    });
}

template <OpKind K, class T>
T reduce_unsegmented(const char *name, vec_p s, int len) {
    using O = Op<K, T>;
    return entry(name, O::empty(), {{"s", s}, {"len", len}}, [&](Context &c) {
        // Each rank's partial result travels with the call's signature (one
        // MPI_Allgather) and every rank folds them in rank order: lengths or handles
        // that differ by rank fail on every rank instead of giving a wrong answer.
        LocalFault fault;
        T part = O::id();
        if (local_checks(c, fault, [&] {
                require_length(len, "len");
                c.require_vector<T>(s, len, "source s");
            })) {
            const T *x = c.local<T>(s);
            part = fold<K, T>(0, c.block(len).count(c.rank), [x](int64_t i) { return x[i]; });
        }
        int64_t word = 0;
        std::memcpy(&word, &part, sizeof(T));
        const int64_t *all = gather_checked(c, &word, 1, fault);
        if (len == 0) return O::empty();
        T acc = O::id();
        for (int r = 0; r < c.nranks; ++r) {
            T v;
            std::memcpy(&v, &all[r], sizeof(T));
            acc = O::apply(acc, v);
        }
        return acc;
    });
}

template <OpKind K, class T>
void reduce_segmented(const char *name, vec_p d, vec_p s, vec_p sd, int n, int m) {
    collective_entry(name, {{"d", d}, {"s", s}, {"sd", sd}, {"n", n}, {"m", m}}, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, m, "destination d");
        c.require_vector<T>(s, n, "source s");
        T *out = c.local<T>(d);
        if (n == 0) {  // every segment is empty
            for (int64_t t = 0; t < desc.seg_count(); ++t) out[t] = Op<K, T>::empty();
            return;
        }
        const T *x = c.local<T>(s);
        reduce_segments<K, T>(c, desc, [x](int64_t i) { return x[i]; }, out);
    });
}

}  // namespace

#define CVL_SCAN_REDUCE(OP, KIND, S, T)                                                          \
    void OP##_su##S(vec_p d, vec_p s, int len, vec_p) {                                        \
        scan_unsegmented<OpKind::KIND, T>(#OP "_su" #S, d, s, len);                             \
    }                                                                                            \
    void OP##_se##S(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {                         \
        scan_segmented<OpKind::KIND, T>(#OP "_se" #S, d, s, sd, n, m);                          \
    }                                                                                            \
    T OP##_ru##S(vec_p s, int len, vec_p) { return reduce_unsegmented<OpKind::KIND, T>(#OP "_ru" #S, s, len); } \
    void OP##_re##S(vec_p d, vec_p s, vec_p sd, int n, int m, vec_p) {                         \
        reduce_segmented<OpKind::KIND, T>(#OP "_re" #S, d, s, sd, n, m);                        \
    }

extern "C" {
CVL_SCAN_REDUCE(add, add, z, int)
CVL_SCAN_REDUCE(add, add, d, double)
CVL_SCAN_REDUCE(mul, mul, z, int)
CVL_SCAN_REDUCE(mul, mul, d, double)
CVL_SCAN_REDUCE(min, min, z, int)
CVL_SCAN_REDUCE(min, min, d, double)
CVL_SCAN_REDUCE(max, max, z, int)
CVL_SCAN_REDUCE(max, max, d, double)
CVL_SCAN_REDUCE(and, and_, b, cvl_bool)
CVL_SCAN_REDUCE(and, and_, z, int)
CVL_SCAN_REDUCE(ior, ior, b, cvl_bool)
CVL_SCAN_REDUCE(ior, ior, z, int)
CVL_SCAN_REDUCE(xor, xor_, b, cvl_bool)
CVL_SCAN_REDUCE(xor, xor_, z, int)
}
