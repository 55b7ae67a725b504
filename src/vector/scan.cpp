// Scans (s) and reductions (r): add mul min max on int and double, and ior xor on
// cvl_bool and int; unsegmented and segmented.
#include "vector/scan.hpp"

#include <cvl.h>

using namespace dm::vector;

namespace {

template <OpKind K, class T>
void scan_unsegmented(const char *name, vec_p d, vec_p s, int len) {
    entry(name, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(d, len, "destination d");
        c.require_vector<T>(s, len, "source s");
        if (len == 0) return;
        const Block b = c.block(len);
        const Run run{0, b.count(c.rank), b.begin(c.rank) > 0};
        scan_runs<K, T>(c, c.local<T>(s), c.local<T>(d), &run, run.hi > 0 ? 1 : 0);
    });
}

template <OpKind K, class T>
void scan_segmented(const char *name, vec_p d, vec_p s, vec_p sd, int n, int m) {
    entry(name, [&](Context &c) {
        const Descriptor desc(c, sd, n, m, "descriptor sd");
        c.require_vector<T>(d, n, "destination d");
        c.require_vector<T>(s, n, "source s");
        if (n == 0) return;
        int64_t nrec = 0;
        const SegRecord *recs = desc.records(c, &nrec);
        Run *runs = c.ws.get<Run>(kMisc, static_cast<std::size_t>(nrec));
        for (int64_t t = 0; t < nrec; ++t) runs[t] = Run{recs[t].lo, recs[t].hi, recs[t].start < desc.elem_begin()};
        scan_runs<K, T>(c, c.local<T>(s), c.local<T>(d), runs, nrec);
    });
}

template <OpKind K, class T>
T reduce_unsegmented(const char *name, vec_p s, int len) {
    using O = Op<K, T>;
    return entry(name, O::empty(), [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(s, len, "source s");
        if (len == 0) return O::empty();
        const T *x = c.local<T>(s);
        Pair<T> mine{fold<K, T>(0, c.block(len).count(c.rank), [x](int64_t i) { return x[i]; }), 0}, all = mine;
        if (c.nranks > 1)
            check_mpi(MPI_Allreduce(&mine, &all, 1, c.pair_type(elem_kind<T>()), c.pair_op(K, elem_kind<T>()),
                                    c.comm),
                      "MPI_Allreduce");
        return all.value;
    });
}

template <OpKind K, class T>
void reduce_segmented(const char *name, vec_p d, vec_p s, vec_p sd, int n, int m) {
    entry(name, [&](Context &c) {
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
