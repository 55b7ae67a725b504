// extern "C" entry points of the vector layer (include/datamotion/vector.h). Vectors
// live in the vector space of their communicator (space_of: a Table of per-vector
// blocks); each call checks its handles, types and lengths, then runs the layer's
// operation (the function cvl.h names it by) on that space, whose errors are thrown
// and returned as a status by c_boundary.
#include <datamotion/vector.h>

#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/handles.hpp"
#include "vector/beyond_cvl.hpp"
#include "vector/state.hpp"

#include <cvl.h>

#include <climits>
#include <cstring>
#include <memory>

struct dm_vector_s {
    dm::vector::Context *space;
    dm::vector::Handle handle;
    int dtype;
    int n;
};

struct dm_segments_s {
    dm::vector::Context *space;
    dm::vector::Handle handle;
    int n, m;
};

namespace {

using dm::fail;
using dm::vector::Context;
using dm::vector::SpaceScope;
using dm::vector::Table;

std::size_t element_size(int dtype) {
    switch (dtype) {
        case DM_INT32: return sizeof(int);
        case DM_FLOAT64: return sizeof(double);
        case DM_BOOL: return sizeof(cvl_bool);
        default:
            fail(DM_ERR_TYPE, "vectors hold DM_INT32, DM_FLOAT64 or DM_BOOL elements, not ", dm_dtype_name(static_cast<dm_dtype>(dtype)));
    }
}

const char *type_name(int dtype) { return dm_dtype_name(static_cast<dm_dtype>(dtype)); }

dm_vector_s &vector_of(dm_vector v, const char *what) {
    if (!v) fail(DM_ERR_ARG, what, " is NULL");
    dm::handles::require_live(v, "vector", "dm_vector_create");
    return *v;
}

dm_segments_s &segments_of(dm_segments s) {
    dm::handles::require_live(s, "segments", "dm_segments_create");
    return *s;
}

Table &table_of(Context &space) { return static_cast<Table &>(*space.memory); }

// The space all of `vectors` share (DM_ERR_ARG naming the pair that differs).
Context &space_of_all(std::initializer_list<const dm_vector_s *> vectors) {
    const dm_vector_s *first = *vectors.begin();
    for (const dm_vector_s *v : vectors)
        if (v->space != first->space) fail(DM_ERR_ARG, "the vectors live on different communicators");
    return *first->space;
}

void require_type(const dm_vector_s &v, int dtype, const char *what) {
    if (v.dtype != dtype) fail(DM_ERR_TYPE, what, " holds ", type_name(v.dtype), ", not ", type_name(dtype));
}

void require_length(const dm_vector_s &v, int n, const char *what) {
    if (v.n != n) fail(DM_ERR_ARG, what, " has ", v.n, " elements, not ", n);
}

void require_segments(const dm_segments_s &s, const Context &space, int n, const char *what) {
    if (s.space != &space) fail(DM_ERR_ARG, what, " belong to another communicator");
    if (s.n != n) fail(DM_ERR_ARG, what, " describe ", s.n, " elements, not ", n);
}

// The vector whose element i (0 <= i < n) a call reads or writes at `value`.
dm_vector_s &element_of(dm_vector vector, int64_t i, const void *value) {
    auto &v = vector_of(vector, "vector");
    dm::require_pointer(value, "value");
    if (i < 0 || i >= v.n) fail(DM_ERR_ARG, "index ", i, " is outside [0, ", v.n, ")");
    return v;
}

template <class Fn>
Fn require_fn(Fn fn, const char *what, int dtype) {
    if (!fn) fail(DM_ERR_TYPE, what, " is not defined for ", type_name(dtype));
    return fn;
}

using BinaryFn = void (*)(vec_p, vec_p, vec_p, int, vec_p);
using UnaryFn = void (*)(vec_p, vec_p, int, vec_p);
using SegFn = void (*)(vec_p, vec_p, vec_p, int, int, vec_p);

// z: DM_INT32, d: DM_FLOAT64, b: DM_BOOL; nullptr where CVL has no such function.
template <class Fn>
Fn by_type(int dtype, Fn z, Fn d, Fn b) {
    return dtype == DM_INT32 ? z : dtype == DM_FLOAT64 ? d : dtype == DM_BOOL ? b : nullptr;
}

BinaryFn binary_fn(int op, int t) {
    switch (op) {
        case DM_VECTOR_ADD: return by_type<BinaryFn>(t, add_wuz, add_wud, nullptr);
        case DM_VECTOR_MUL: return by_type<BinaryFn>(t, mul_wuz, mul_wud, nullptr);
        case DM_VECTOR_MIN: return by_type<BinaryFn>(t, min_wuz, min_wud, nullptr);
        case DM_VECTOR_MAX: return by_type<BinaryFn>(t, max_wuz, max_wud, nullptr);
        case DM_VECTOR_AND: return by_type<BinaryFn>(t, and_wuz, nullptr, and_wub);
        case DM_VECTOR_IOR: return by_type<BinaryFn>(t, ior_wuz, nullptr, ior_wub);
        case DM_VECTOR_XOR: return by_type<BinaryFn>(t, xor_wuz, nullptr, xor_wub);
        case DM_VECTOR_SUB: return by_type<BinaryFn>(t, sub_wuz, sub_wud, nullptr);
        case DM_VECTOR_DIV: return by_type<BinaryFn>(t, div_wuz, div_wud, nullptr);
        case DM_VECTOR_MOD: return by_type<BinaryFn>(t, mod_wuz, nullptr, nullptr);
        case DM_VECTOR_LSH: return by_type<BinaryFn>(t, lsh_wuz, nullptr, nullptr);
        case DM_VECTOR_RSH: return by_type<BinaryFn>(t, rsh_wuz, nullptr, nullptr);
        case DM_VECTOR_LT: return by_type<BinaryFn>(t, les_wuz, les_wud, nullptr);
        case DM_VECTOR_LE: return by_type<BinaryFn>(t, leq_wuz, leq_wud, nullptr);
        case DM_VECTOR_GT: return by_type<BinaryFn>(t, grt_wuz, grt_wud, nullptr);
        case DM_VECTOR_GE: return by_type<BinaryFn>(t, geq_wuz, geq_wud, nullptr);
        case DM_VECTOR_EQ: return by_type<BinaryFn>(t, eql_wuz, eql_wud, eql_wub);
        case DM_VECTOR_NE: return by_type<BinaryFn>(t, neq_wuz, neq_wud, neq_wub);
    }
    fail(DM_ERR_ARG, "unknown operator ", op);
}

bool is_comparison(int op) { return op >= DM_VECTOR_LT && op <= DM_VECTOR_NE; }

// The unary function from type t, and the destination's type.
UnaryFn unary_fn(int fn, int t, int *result) {
    *result = t;
    switch (fn) {
        case DM_VECTOR_NOT: return by_type<UnaryFn>(t, not_wuz, nullptr, not_wub);
        case DM_VECTOR_TO_INT32: *result = DM_INT32; return by_type<UnaryFn>(t, nullptr, int_wud, int_wub);
        case DM_VECTOR_TO_FLOAT64: *result = DM_FLOAT64; return by_type<UnaryFn>(t, dbl_wuz, nullptr, nullptr);
        case DM_VECTOR_TO_BOOL: *result = DM_BOOL; return by_type<UnaryFn>(t, boo_wuz, nullptr, nullptr);
        case DM_VECTOR_FLOOR: *result = DM_INT32; return by_type<UnaryFn>(t, nullptr, flr_wud, nullptr);
        case DM_VECTOR_CEIL: *result = DM_INT32; return by_type<UnaryFn>(t, nullptr, cei_wud, nullptr);
        case DM_VECTOR_ROUND: *result = DM_INT32; return by_type<UnaryFn>(t, nullptr, rou_wud, nullptr);
        case DM_VECTOR_EXP: return by_type<UnaryFn>(t, nullptr, exp_wud, nullptr);
        case DM_VECTOR_LOG: return by_type<UnaryFn>(t, nullptr, log_wud, nullptr);
        case DM_VECTOR_SQRT: return by_type<UnaryFn>(t, nullptr, sqt_wud, nullptr);
        case DM_VECTOR_SIN: return by_type<UnaryFn>(t, nullptr, sin_wud, nullptr);
        case DM_VECTOR_COS: return by_type<UnaryFn>(t, nullptr, cos_wud, nullptr);
        case DM_VECTOR_TAN: return by_type<UnaryFn>(t, nullptr, tan_wud, nullptr);
        case DM_VECTOR_COPY: return by_type<UnaryFn>(t, cpy_wuz, cpy_wud, cpy_wub);
        case DM_VECTOR_NEG: return by_type<UnaryFn>(t, dm::vector::neg_wuz, dm::vector::neg_wud, nullptr);
    }
    fail(DM_ERR_ARG, "unknown function ", fn);
}

// The scan, segmented scan and segmented reduction of operator op on type t (nullptr
// members where CVL has none).
struct ScanFns {
    UnaryFn scan = nullptr;
    SegFn segmented_scan = nullptr, segmented_reduce = nullptr;
};

ScanFns scan_fns(int op, int t) {
    auto pick = [t](UnaryFn sz, SegFn ez, SegFn rz, UnaryFn s2, SegFn e2, SegFn r2) {
        // z: int; 2: the other type (double for add..max, cvl_bool for and..xor)
        if (t == DM_INT32) return ScanFns{sz, ez, rz};
        return ScanFns{s2, e2, r2};
    };
    const bool arithmetic = op <= DM_VECTOR_MAX;
    if (t != DM_INT32 && t != (arithmetic ? DM_FLOAT64 : DM_BOOL)) return {};
    switch (op) {
        case DM_VECTOR_ADD: return pick(add_suz, add_sez, add_rez, add_sud, add_sed, add_red);
        case DM_VECTOR_MUL: return pick(mul_suz, mul_sez, mul_rez, mul_sud, mul_sed, mul_red);
        case DM_VECTOR_MIN: return pick(min_suz, min_sez, min_rez, min_sud, min_sed, min_red);
        case DM_VECTOR_MAX: return pick(max_suz, max_sez, max_rez, max_sud, max_sed, max_red);
        case DM_VECTOR_AND: return pick(and_suz, and_sez, and_rez, and_sub, and_seb, and_reb);
        case DM_VECTOR_IOR: return pick(ior_suz, ior_sez, ior_rez, ior_sub, ior_seb, ior_reb);
        case DM_VECTOR_XOR: return pick(xor_suz, xor_sez, xor_rez, xor_sub, xor_seb, xor_reb);
    }
    return {};
}

// Writes the reduction of s by op into *result (one element of type t).
void reduce_into(int op, int t, vec_p s, int n, void *result) {
    auto put = [&](auto value) { std::memcpy(result, &value, sizeof value); };
    switch (t == DM_INT32 ? op : t == DM_FLOAT64 ? 100 + op : 200 + op) {
        case DM_VECTOR_ADD: return put(add_ruz(s, n, 0));
        case DM_VECTOR_MUL: return put(mul_ruz(s, n, 0));
        case DM_VECTOR_MIN: return put(min_ruz(s, n, 0));
        case DM_VECTOR_MAX: return put(max_ruz(s, n, 0));
        case DM_VECTOR_AND: return put(and_ruz(s, n, 0));
        case DM_VECTOR_IOR: return put(ior_ruz(s, n, 0));
        case DM_VECTOR_XOR: return put(xor_ruz(s, n, 0));
        case 100 + DM_VECTOR_ADD: return put(add_rud(s, n, 0));
        case 100 + DM_VECTOR_MUL: return put(mul_rud(s, n, 0));
        case 100 + DM_VECTOR_MIN: return put(min_rud(s, n, 0));
        case 100 + DM_VECTOR_MAX: return put(max_rud(s, n, 0));
        case 200 + DM_VECTOR_AND: return put(and_rub(s, n, 0));
        case 200 + DM_VECTOR_IOR: return put(ior_rub(s, n, 0));
        case 200 + DM_VECTOR_XOR: return put(xor_rub(s, n, 0));
    }
    fail(DM_ERR_TYPE, "reduction ", op, " is not defined for ", type_name(t));
}

// dm_vector_create and dm_vector_wrap: one path, differing in where the block comes from.
// dtype is bound, not copied (see dm::enum_value).
int create(const char *call, MPI_Comm comm, const dm_dtype &dtype, int64_t n, void *local, bool borrowed, dm_vector *out) {
    return dm::c_boundary(call, [&] {
        dm::require_mpi_initialized();
        Context &space = dm::vector::space_of(comm);
        const int type = dm::enum_value(dtype);
        space.begin_call(call, {{"dtype", type}, {"n", n}, {"whether vector is NULL", out == nullptr}});
        dm::collective(space.comm, [&] {
            if (!out) fail(DM_ERR_ARG, call, ": vector is NULL");
            element_size(type);
            if (n < 0 || n > INT_MAX) fail(DM_ERR_ARG, call, ": length ", n, " is outside [0, INT_MAX]");
        });
        *out = nullptr;
        const int64_t bytes = space.block(n).count(space.rank) * static_cast<int64_t>(element_size(type));
        auto v = std::make_unique<dm_vector_s>(dm_vector_s{&space, 0, type, static_cast<int>(n)});
        dm::collective(space.comm, [&] {
            v->handle = borrowed ? table_of(space).borrow(local, bytes) : table_of(space).allocate(bytes);
        });
        dm::handles::add(v.get(), "vector");
        *out = v.release();
    });
}

}  // namespace

extern "C" {

int dm_vector_create(MPI_Comm comm, dm_dtype dtype, int64_t n, dm_vector *vector) {
    return create("dm_vector_create", comm, dtype, n, nullptr, false, vector);
}

int dm_vector_wrap(MPI_Comm comm, dm_dtype dtype, int64_t n, void *local, dm_vector *vector) {
    return create("dm_vector_wrap", comm, dtype, n, local, true, vector);
}

int dm_vector_free(dm_vector *vector) {
    return dm::c_boundary(__func__, [&] {
        if (!vector || !*vector) return;
        dm_vector_s &v = vector_of(*vector, "vector");
        table_of(*v.space).release(v.handle);
        dm::handles::remove(&v);
        delete &v;
        *vector = nullptr;
    });
}

int dm_vector_info(dm_vector vector, dm_dtype *dtype, int64_t *n) {
    return dm::c_boundary(__func__, [&] {
        const dm_vector_s &v = vector_of(vector, "vector");
        if (dtype) *dtype = static_cast<dm_dtype>(v.dtype);
        if (n) *n = v.n;
    });
}

int dm_vector_local(dm_vector vector, void **data, int64_t *first, int64_t *count) {
    return dm::c_boundary(__func__, [&] {
        const dm_vector_s &v = vector_of(vector, "vector");
        const auto block = v.space->block(v.n);
        if (data) *data = v.space->memory->at(v.handle);
        if (first) *first = block.begin(v.space->rank);
        if (count) *count = block.count(v.space->rank);
    });
}

int dm_vector_block(int64_t n, int nranks, int rank, int64_t *first, int64_t *count) {
    return dm::c_boundary(__func__, [&] {
        if (n < 0) fail(DM_ERR_ARG, "dm_vector_block: length ", n, " is negative");
        if (nranks < 1 || rank < 0 || rank >= nranks)
            fail(DM_ERR_ARG, "dm_vector_block: rank ", rank, " is outside [0, ", nranks, ")");
        const dm::layout::BlockRule block(n, nranks);
        if (first) *first = block.begin(rank);
        if (count) *count = block.count(rank);
    });
}

int dm_vector_apply(dm_vector_op op, dm_vector dst, dm_vector a, dm_vector b) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &x = vector_of(a, "a"), &y = vector_of(b, "b");
        Context &space = space_of_all({&d, &x, &y});
        const int code = dm::enum_value(op);
        require_type(y, x.dtype, "b");
        require_type(d, is_comparison(code) ? DM_BOOL : x.dtype, "dst");
        require_length(y, x.n, "b");
        require_length(d, x.n, "dst");
        const BinaryFn fn = require_fn(binary_fn(code, x.dtype), "this operator", x.dtype);
        SpaceScope scope(space);
        fn(d.handle, x.handle, y.handle, x.n, 0);
    });
}

int dm_vector_map(dm_vector_fn fn, dm_vector dst, dm_vector a) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &x = vector_of(a, "a");
        Context &space = space_of_all({&d, &x});
        int result = 0;
        const UnaryFn f = require_fn(unary_fn(dm::enum_value(fn), x.dtype, &result), "this function", x.dtype);
        require_type(d, result, "dst");
        require_length(d, x.n, "dst");
        SpaceScope scope(space);
        f(d.handle, x.handle, x.n, 0);
    });
}

int dm_vector_select(dm_vector dst, dm_vector flags, dm_vector a, dm_vector b) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &f = vector_of(flags, "flags"), &x = vector_of(a, "a"),
             &y = vector_of(b, "b");
        Context &space = space_of_all({&d, &f, &x, &y});
        require_type(f, DM_BOOL, "flags");
        require_type(y, x.dtype, "b");
        require_type(d, x.dtype, "dst");
        for (const dm_vector_s *v : {&d, &f, &y}) require_length(*v, x.n, "every argument");
        using SelectFn = void (*)(vec_p, vec_p, vec_p, vec_p, int, vec_p);
        const SelectFn fn = by_type<SelectFn>(x.dtype, sel_wuz, sel_wud, sel_wub);
        SpaceScope scope(space);
        fn(d.handle, f.handle, x.handle, y.handle, x.n, 0);
    });
}

int dm_vector_fill(dm_vector dst, const void *value) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst");
        dm::require_pointer(value, "value");
        SpaceScope scope(*d.space);
        switch (d.dtype) {
            case DM_INT32: dis_vuz(d.handle, *static_cast<const int *>(value), d.n, 0); break;
            case DM_FLOAT64: dis_vud(d.handle, *static_cast<const double *>(value), d.n, 0); break;
            default: dis_vub(d.handle, *static_cast<const cvl_bool *>(value) != 0, d.n, 0); break;
        }
    });
}

int dm_vector_iota(dm_vector dst, int start, int stride) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst");
        require_type(d, DM_INT32, "dst");
        SpaceScope scope(*d.space);
        ind_luz(d.handle, start, stride, d.n, 0);
    });
}

int dm_vector_replace(dm_vector vector, int64_t i, const void *value) {
    return dm::c_boundary(__func__, [&] {
        auto &v = element_of(vector, i, value);
        SpaceScope scope(*v.space);
        const int k = static_cast<int>(i);
        switch (v.dtype) {
            case DM_INT32: rep_vuz(v.handle, k, *static_cast<const int *>(value), v.n, 0); break;
            case DM_FLOAT64: rep_vud(v.handle, k, *static_cast<const double *>(value), v.n, 0); break;
            default: rep_vub(v.handle, k, *static_cast<const cvl_bool *>(value) != 0, v.n, 0); break;
        }
    });
}

int dm_vector_extract(dm_vector vector, int64_t i, void *value) {
    return dm::c_boundary(__func__, [&] {
        auto &v = element_of(vector, i, value);
        SpaceScope scope(*v.space);
        const int k = static_cast<int>(i);
        auto put = [&](auto x) { std::memcpy(value, &x, sizeof x); };
        switch (v.dtype) {
            case DM_INT32: put(ext_vuz(v.handle, k, v.n, 0)); break;
            case DM_FLOAT64: put(ext_vud(v.handle, k, v.n, 0)); break;
            default: put(ext_vub(v.handle, k, v.n, 0)); break;
        }
    });
}

int dm_vector_scan(dm_vector_op op, dm_vector dst, dm_vector src, dm_segments segments) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &s = vector_of(src, "src");
        Context &space = space_of_all({&d, &s});
        const int code = dm::enum_value(op);
        require_type(d, s.dtype, "dst");
        require_length(d, s.n, "dst");
        if (segments) {
            const dm_segments_s &seg = segments_of(segments);
            require_segments(seg, space, s.n, "the segments");
            const SegFn fn = require_fn(scan_fns(code, s.dtype).segmented_scan, "this scan", s.dtype);
            SpaceScope scope(space);
            fn(d.handle, s.handle, seg.handle, seg.n, seg.m, 0);
        } else {
            const UnaryFn fn = require_fn(scan_fns(code, s.dtype).scan, "this scan", s.dtype);
            SpaceScope scope(space);
            fn(d.handle, s.handle, s.n, 0);
        }
    });
}

int dm_vector_reduce(dm_vector_op op, dm_vector src, void *result) {
    return dm::c_boundary(__func__, [&] {
        auto &s = vector_of(src, "src");
        dm::require_pointer(result, "result");
        SpaceScope scope(*s.space);
        reduce_into(dm::enum_value(op), s.dtype, s.handle, s.n, result);
    });
}

int dm_vector_reduce_segments(dm_vector_op op, dm_vector dst, dm_vector src, dm_segments segments) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &s = vector_of(src, "src");
        Context &space = space_of_all({&d, &s});
        const dm_segments_s &seg = segments_of(segments);
        require_segments(seg, space, s.n, "the segments");
        require_type(d, s.dtype, "dst");
        require_length(d, seg.m, "dst");
        const SegFn fn = require_fn(scan_fns(dm::enum_value(op), s.dtype).segmented_reduce, "this reduction", s.dtype);
        SpaceScope scope(space);
        fn(d.handle, s.handle, seg.handle, seg.n, seg.m, 0);
    });
}

int dm_vector_permute(dm_vector dst, dm_vector src, dm_vector index, dm_segments segments) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &s = vector_of(src, "src"), &i = vector_of(index, "index");
        Context &space = space_of_all({&d, &s, &i});
        require_type(d, s.dtype, "dst");
        require_type(i, DM_INT32, "index");
        require_length(d, s.n, "dst");
        require_length(i, s.n, "index");
        if (&d == &s) fail(DM_ERR_ARG, "dst must not be src");
        if (segments) {
            const dm_segments_s &seg = segments_of(segments);
            require_segments(seg, space, s.n, "the segments");
            using Fn = void (*)(vec_p, vec_p, vec_p, vec_p, int, int, vec_p);
            const Fn fn = by_type<Fn>(s.dtype, smp_pez, smp_ped, smp_peb);
            SpaceScope scope(space);
            fn(d.handle, s.handle, i.handle, seg.handle, seg.n, seg.m, 0);
        } else {
            using Fn = void (*)(vec_p, vec_p, vec_p, int, vec_p);
            const Fn fn = by_type<Fn>(s.dtype, smp_puz, smp_pud, smp_pub);
            SpaceScope scope(space);
            fn(d.handle, s.handle, i.handle, s.n, 0);
        }
    });
}

int dm_vector_bpermute(dm_vector dst, dm_vector src, dm_vector index, dm_segments src_segments,
                       dm_segments dst_segments) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &s = vector_of(src, "src"), &i = vector_of(index, "index");
        Context &space = space_of_all({&d, &s, &i});
        require_type(d, s.dtype, "dst");
        require_type(i, DM_INT32, "index");
        require_length(i, d.n, "index");
        if (&d == &s) fail(DM_ERR_ARG, "dst must not be src");
        if (!src_segments != !dst_segments) fail(DM_ERR_ARG, "give both segmentations or neither");
        if (src_segments) {
            const dm_segments_s &ss = segments_of(src_segments), &ds = segments_of(dst_segments);
            require_segments(ss, space, s.n, "the source segments");
            require_segments(ds, space, d.n, "the destination segments");
            using Fn = void (*)(vec_p, vec_p, vec_p, vec_p, int, int, vec_p, int, int, vec_p);
            const Fn fn = by_type<Fn>(s.dtype, bck_pez, bck_ped, bck_peb);
            SpaceScope scope(space);
            fn(d.handle, s.handle, i.handle, ss.handle, ss.n, ss.m, ds.handle, ds.n, ds.m, 0);
        } else {
            using Fn = void (*)(vec_p, vec_p, vec_p, int, int, vec_p);
            const Fn fn = by_type<Fn>(s.dtype, bck_puz, bck_pud, bck_pub);
            SpaceScope scope(space);
            fn(d.handle, s.handle, i.handle, s.n, d.n, 0);
        }
    });
}

int dm_vector_count(dm_vector flags, int64_t *count) {
    return dm::c_boundary(__func__, [&] {
        auto &f = vector_of(flags, "flags");
        require_type(f, DM_BOOL, "flags");
        dm::require_pointer(count, "count");
        SpaceScope scope(*f.space);
        *count = pk1_luv(f.handle, f.n, 0);
    });
}

int dm_vector_pack(dm_vector dst, dm_vector src, dm_vector flags) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &s = vector_of(src, "src"), &f = vector_of(flags, "flags");
        Context &space = space_of_all({&d, &s, &f});
        require_type(d, s.dtype, "dst");
        require_type(f, DM_BOOL, "flags");
        require_length(f, s.n, "flags");
        using Fn = void (*)(vec_p, vec_p, vec_p, int, int, vec_p);
        const Fn fn = by_type<Fn>(s.dtype, pk2_luz, pk2_lud, pk2_lub);
        SpaceScope scope(space);
        fn(d.handle, s.handle, f.handle, s.n, d.n, 0);
    });
}

int dm_vector_rank(dm_vector dst, dm_vector keys, int descending, dm_segments segments) {
    return dm::c_boundary(__func__, [&] {
        auto &d = vector_of(dst, "dst"), &k = vector_of(keys, "keys");
        Context &space = space_of_all({&d, &k});
        require_type(d, DM_INT32, "dst");
        require_length(d, k.n, "dst");
        if (k.dtype == DM_BOOL) fail(DM_ERR_TYPE, "keys hold DM_INT32 or DM_FLOAT64, not DM_BOOL");
        const bool z = k.dtype == DM_INT32;
        if (segments) {
            const dm_segments_s &seg = segments_of(segments);
            require_segments(seg, space, k.n, "the segments");
            const SegFn fn = descending ? (z ? rkd_lez : rkd_led) : (z ? rku_lez : rku_led);
            SpaceScope scope(space);
            fn(d.handle, k.handle, seg.handle, seg.n, seg.m, 0);
        } else {
            const UnaryFn fn = descending ? (z ? rkd_luz : rkd_lud) : (z ? rku_luz : rku_lud);
            SpaceScope scope(space);
            fn(d.handle, k.handle, k.n, 0);
        }
    });
}

int dm_segments_create(dm_vector lengths, int64_t n, dm_segments *segments) {
    return dm::c_boundary(__func__, [&] {
        auto &l = vector_of(lengths, "lengths");
        Context &space = *l.space;
        space.begin_call("dm_segments_create", {{"n", n}, {"whether segments is NULL", segments == nullptr}});
        dm::collective(space.comm, [&] {
            dm::require_pointer(segments, "segments");
            require_type(l, DM_INT32, "lengths");
            if (n < 0 || n > INT_MAX) fail(DM_ERR_ARG, "length ", n, " is outside [0, INT_MAX]");
        });
        *segments = nullptr;
        auto s = std::make_unique<dm_segments_s>(dm_segments_s{&space, 0, static_cast<int>(n), l.n});
        SpaceScope scope(space);
        const int64_t bytes = static_cast<int64_t>(siz_fos(s->n, s->m)) * dm::vector::kUnit;
        dm::collective(space.comm, [&] { s->handle = table_of(space).allocate(bytes); });
        try {
            mke_fov(s->handle, l.handle, s->n, s->m, 0);
        } catch (...) {
            table_of(space).release(s->handle);
            throw;
        }
        dm::handles::add(s.get(), "segments");
        *segments = s.release();
    });
}

int dm_segments_free(dm_segments *segments) {
    return dm::c_boundary(__func__, [&] {
        if (!segments || !*segments) return;
        dm_segments_s &s = segments_of(*segments);
        table_of(*s.space).release(s.handle);
        dm::handles::remove(&s);
        delete &s;
        *segments = nullptr;
    });
}

int dm_segments_info(dm_segments segments, int64_t *n, int64_t *m) {
    return dm::c_boundary(__func__, [&] {
        const dm_segments_s &s = segments_of(segments);
        if (n) *n = s.n;
        if (m) *m = s.m;
    });
}

}  // extern "C"
