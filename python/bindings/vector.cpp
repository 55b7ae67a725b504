// datamotion._core.VectorSpace: the vector space of an mpi4py communicator (see
// src/vector/state.hpp) and CVL's operations (cvl.h) on it, grouped by signature and
// looked up by their CVL name ("add_wuz", "smp_ped", ...). Every operation runs in a
// SpaceScope with the GIL released: errors are thrown as dm::Error (the same on every
// rank) and become datamotion.Error. Handles are the space's: the Python layer
// (python/datamotion/vector/) owns them and checks that operands share a space.
#include "bindings.hpp"

#include "core/error.hpp"
#include "vector/beyond_cvl.hpp"
#include "vector/state.hpp"

#include <cvl.h>

#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>

namespace dm::python {
namespace {

using vector::Context;
using vector::SpaceScope;
using vector::Table;

// The space of one communicator as Python holds it. The space itself lives as an
// attribute of the communicator and is freed with it; `alive` turns false then (our own
// attribute's delete callback), so that a vector outliving its communicator (garbage
// collected after comm.Free() or MPI_Finalize) is forgotten instead of touching freed
// memory.
struct Space {
    Context *context = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;  // the caller's communicator, not the space's duplicate
    bool alive = true;

    Context &live() const {
        if (!alive) fail(DM_ERR_STATE, "the vector's communicator has been freed");
        return *context;
    }
    // Every space's memory is a Table (space_of makes it so).
    Table &table() const { return static_cast<Table &>(*live().memory); }
};

int forget_space(MPI_Comm, int, void *value, void *) {
    auto *held = static_cast<std::shared_ptr<Space> *>(value);
    (*held)->alive = false;
    delete held;
    return MPI_SUCCESS;
}

// Collective on comm at its first use there: the one Space of comm.
std::shared_ptr<Space> space_of(nb::handle py_comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    MPI_Comm comm = comm_from_python(py_comm);
    if (comm == MPI_COMM_NULL) fail(DM_ERR_ARG, "vector space: the communicator is MPI.COMM_NULL");
    if (keyval == MPI_KEYVAL_INVALID)
        check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &forget_space, &keyval, nullptr),
                  "MPI_Comm_create_keyval");
    void *value = nullptr;
    int found = 0;
    check_mpi(MPI_Comm_get_attr(comm, keyval, &value, &found), "MPI_Comm_get_attr");
    if (found) return *static_cast<std::shared_ptr<Space> *>(value);
    int inter = 0;
    check_mpi(MPI_Comm_test_inter(comm, &inter), "MPI_Comm_test_inter");
    if (inter) fail(DM_ERR_ARG, "vector space: an intercommunicator has none; use an intracommunicator");
    auto space = std::make_shared<Space>();
    space->comm = comm;
    {
        nb::gil_scoped_release release;
        space->context = &vector::space_of(comm);
    }
    auto held = std::make_unique<std::shared_ptr<Space>>(space);
    check_mpi(MPI_Comm_set_attr(comm, keyval, held.get()), "MPI_Comm_set_attr");
    held.release();
    return space;
}

// Runs a CVL call on the space without the GIL (collective calls wait for the other ranks).
template <class F>
auto run(const Space &space, F &&f) {
    Context &c = space.live();
    nb::gil_scoped_release release;
    SpaceScope scope(c);
    return f();
}

// cvl.h's binary functions (d, s1, s2, len) and their scalar forms: the vector layer's table.
const vector::BinaryFunction *binary_function(const std::string &name) {
    const vector::BinaryFunction *f = vector::binary_function(name);
    if (!f) fail(DM_ERR_ARG, "no CVL function ", name, " with this signature");
    return f;
}

template <class Fn>
Fn lookup(const std::unordered_map<std::string, Fn> &table, const std::string &name) {
    auto it = table.find(name);
    if (it == table.end()) fail(DM_ERR_ARG, "no CVL function ", name, " with this signature");
    return it->second;
}

#define DM_CVL_ENTRY(f) {#f, &f}

// d, s, len: unary elementwise, copies, unsegmented scans, ranks.
using UnaryFn = void (*)(vec_p, vec_p, int, vec_p);
const std::unordered_map<std::string, UnaryFn> kUnary = {
    {"neg_wuz", &dm::vector::neg_wuz}, {"neg_wud", &dm::vector::neg_wud},
    DM_CVL_ENTRY(not_wub), DM_CVL_ENTRY(not_wuz), DM_CVL_ENTRY(int_wud), DM_CVL_ENTRY(int_wub),
    DM_CVL_ENTRY(dbl_wuz), DM_CVL_ENTRY(boo_wuz), DM_CVL_ENTRY(flr_wud), DM_CVL_ENTRY(cei_wud),
    DM_CVL_ENTRY(trn_wud), DM_CVL_ENTRY(rou_wud), DM_CVL_ENTRY(exp_wud), DM_CVL_ENTRY(log_wud),
    DM_CVL_ENTRY(sqt_wud), DM_CVL_ENTRY(sin_wud), DM_CVL_ENTRY(cos_wud), DM_CVL_ENTRY(tan_wud),
    DM_CVL_ENTRY(cpy_wuz), DM_CVL_ENTRY(cpy_wub), DM_CVL_ENTRY(cpy_wud),
    DM_CVL_ENTRY(add_suz), DM_CVL_ENTRY(add_sud), DM_CVL_ENTRY(mul_suz), DM_CVL_ENTRY(mul_sud),
    DM_CVL_ENTRY(min_suz), DM_CVL_ENTRY(min_sud), DM_CVL_ENTRY(max_suz), DM_CVL_ENTRY(max_sud),
    DM_CVL_ENTRY(and_sub), DM_CVL_ENTRY(and_suz), DM_CVL_ENTRY(ior_sub), DM_CVL_ENTRY(ior_suz),
    DM_CVL_ENTRY(xor_sub), DM_CVL_ENTRY(xor_suz),
    DM_CVL_ENTRY(rku_luz), DM_CVL_ENTRY(rku_lud), DM_CVL_ENTRY(rkd_luz), DM_CVL_ENTRY(rkd_lud),
};

// d, s1, s2, s3, len: select.
using TernaryFn = void (*)(vec_p, vec_p, vec_p, vec_p, int, vec_p);
const std::unordered_map<std::string, TernaryFn> kTernary = {
    DM_CVL_ENTRY(sel_wuz), DM_CVL_ENTRY(sel_wub), DM_CVL_ENTRY(sel_wud),
};

// d, s, sd, n, m: segmented scans and reductions, segmented ranks, pk1_lev, dis_ve?.
using SegUnaryFn = void (*)(vec_p, vec_p, vec_p, int, int, vec_p);
const std::unordered_map<std::string, SegUnaryFn> kSegUnary = {
    DM_CVL_ENTRY(add_sez), DM_CVL_ENTRY(add_sed), DM_CVL_ENTRY(mul_sez), DM_CVL_ENTRY(mul_sed),
    DM_CVL_ENTRY(min_sez), DM_CVL_ENTRY(min_sed), DM_CVL_ENTRY(max_sez), DM_CVL_ENTRY(max_sed),
    DM_CVL_ENTRY(and_seb), DM_CVL_ENTRY(and_sez), DM_CVL_ENTRY(ior_seb), DM_CVL_ENTRY(ior_sez),
    DM_CVL_ENTRY(xor_seb), DM_CVL_ENTRY(xor_sez),
    DM_CVL_ENTRY(add_rez), DM_CVL_ENTRY(add_red), DM_CVL_ENTRY(mul_rez), DM_CVL_ENTRY(mul_red),
    DM_CVL_ENTRY(min_rez), DM_CVL_ENTRY(min_red), DM_CVL_ENTRY(max_rez), DM_CVL_ENTRY(max_red),
    DM_CVL_ENTRY(and_reb), DM_CVL_ENTRY(and_rez), DM_CVL_ENTRY(ior_reb), DM_CVL_ENTRY(ior_rez),
    DM_CVL_ENTRY(xor_reb), DM_CVL_ENTRY(xor_rez),
    DM_CVL_ENTRY(rku_lez), DM_CVL_ENTRY(rku_led), DM_CVL_ENTRY(rkd_lez), DM_CVL_ENTRY(rkd_led),
    DM_CVL_ENTRY(pk1_lev), DM_CVL_ENTRY(dis_vez), DM_CVL_ENTRY(dis_veb), DM_CVL_ENTRY(dis_ved),
};

// d, s, i, sd, n, m: segmented send permutation, extract, replace.
using SegBinaryFn = void (*)(vec_p, vec_p, vec_p, vec_p, int, int, vec_p);
const std::unordered_map<std::string, SegBinaryFn> kSegBinary = {
    DM_CVL_ENTRY(smp_pez), DM_CVL_ENTRY(smp_peb), DM_CVL_ENTRY(smp_ped),
    DM_CVL_ENTRY(ext_vez), DM_CVL_ENTRY(ext_veb), DM_CVL_ENTRY(ext_ved),
    DM_CVL_ENTRY(rep_vez), DM_CVL_ENTRY(rep_veb), DM_CVL_ENTRY(rep_ved),
    DM_CVL_ENTRY(ind_lez),
};

// d, s, x, sd_s, n_s, m_s, sd_d, n_d, m_d: segmented back permutation and pack.
using SegTwoFn = void (*)(vec_p, vec_p, vec_p, vec_p, int, int, vec_p, int, int, vec_p);
const std::unordered_map<std::string, SegTwoFn> kSegTwo = {
    DM_CVL_ENTRY(bck_pez), DM_CVL_ENTRY(bck_peb), DM_CVL_ENTRY(bck_ped),
    DM_CVL_ENTRY(pk2_lez), DM_CVL_ENTRY(pk2_leb), DM_CVL_ENTRY(pk2_led),
};

// d, s, x, len_a, len_b: back permutation (s_len, d_len) and pack (src_len, dest_len).
using TwoLenFn = void (*)(vec_p, vec_p, vec_p, int, int, vec_p);
const std::unordered_map<std::string, TwoLenFn> kTwoLen = {
    DM_CVL_ENTRY(bck_puz), DM_CVL_ENTRY(bck_pub), DM_CVL_ENTRY(bck_pud),
    DM_CVL_ENTRY(pk2_luz), DM_CVL_ENTRY(pk2_lub), DM_CVL_ENTRY(pk2_lud),
};

// d, s, i, len: send permutation.
using PermuteFn = void (*)(vec_p, vec_p, vec_p, int, vec_p);
const std::unordered_map<std::string, PermuteFn> kPermute = {
    DM_CVL_ENTRY(smp_puz), DM_CVL_ENTRY(smp_pub), DM_CVL_ENTRY(smp_pud),
};

// Unsegmented reductions: s, len -> value (as a Python number of the element type).
nb::object reduce(const Space &space, const std::string &name, vec_p s, int len) {
    using IntFn = int (*)(vec_p, int, vec_p);
    using DblFn = double (*)(vec_p, int, vec_p);
    using BoolFn = cvl_bool (*)(vec_p, int, vec_p);
    static const std::unordered_map<std::string, IntFn> ints = {
        DM_CVL_ENTRY(add_ruz), DM_CVL_ENTRY(mul_ruz), DM_CVL_ENTRY(min_ruz), DM_CVL_ENTRY(max_ruz),
        DM_CVL_ENTRY(and_ruz), DM_CVL_ENTRY(ior_ruz), DM_CVL_ENTRY(xor_ruz),
    };
    static const std::unordered_map<std::string, DblFn> dbls = {
        DM_CVL_ENTRY(add_rud), DM_CVL_ENTRY(mul_rud), DM_CVL_ENTRY(min_rud), DM_CVL_ENTRY(max_rud),
    };
    static const std::unordered_map<std::string, BoolFn> bools = {
        DM_CVL_ENTRY(and_rub), DM_CVL_ENTRY(ior_rub), DM_CVL_ENTRY(xor_rub),
    };
    if (auto it = ints.find(name); it != ints.end())
        return nb::int_(run(space, [&] { return it->second(s, len, CVL_SCRATCH_NULL); }));
    if (auto it = dbls.find(name); it != dbls.end())
        return nb::float_(run(space, [&] { return it->second(s, len, CVL_SCRATCH_NULL); }));
    if (auto it = bools.find(name); it != bools.end())
        return nb::bool_(run(space, [&] { return it->second(s, len, CVL_SCRATCH_NULL); }) != 0);
    fail(DM_ERR_ARG, "no CVL reduction ", name);
}

// CVL's element letters: z (int32), d (float64), b (bool).
dm_dtype dtype_of_kind(const std::string &kind) {
    if (kind == "z") return DM_INT32;
    if (kind == "d") return DM_FLOAT64;
    if (kind == "b") return DM_BOOL;
    fail(DM_ERR_TYPE, "unknown CVL element kind '", kind, "' (z: int32, d: float64, b: bool)");
}

std::int64_t size_of_kind(const std::string &kind) {
    switch (dtype_of_kind(kind)) {
        case DM_INT32: return 4;
        case DM_FLOAT64: return 8;
        default: return 1;
    }
}

// The element type of a NumPy array as CVL's letter.
char kind_of(const nb::dlpack::dtype &t) {
    using code = nb::dlpack::dtype_code;
    if (t.code == static_cast<uint8_t>(code::Int) && t.bits == 32) return 'z';
    if (t.code == static_cast<uint8_t>(code::Float) && t.bits == 64) return 'd';
    if (t.code == static_cast<uint8_t>(code::Bool) && t.bits == 8) return 'b';
    fail(DM_ERR_TYPE, "CVL vectors hold int32, float64 or bool elements");
}

void require_length(std::int64_t n) {
    if (n < 0 || n > INT32_MAX) fail(DM_ERR_ARG, "vector length ", n, " is outside [0, 2^31)");
}

using Array = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

}  // namespace

void bind_vector(nb::module_ &m) {
    nb::class_<Space>(m, "VectorSpace",
                      "The vector space of a communicator: its vectors' memory (handles) and CVL's operations on it.")
        .def_static("of", &space_of, nb::arg("comm"),
                    "Collective on comm at its first use there. The vector space of an mpi4py communicator "
                    "(one per communicator, freed with it).")
        .def("__eq__", [](const Space &a, nb::handle b) {
            return nb::isinstance<Space>(b) && &a == &nb::cast<const Space &>(b);
        })
        .def("__hash__", [](const Space &a) { return reinterpret_cast<std::uintptr_t>(&a); })
        .def_prop_ro("comm", [](const Space &s) { return comm_to_python(s.comm); },
                     "The communicator (a new mpi4py object referring to it).")
        .def_prop_ro("rank", [](const Space &s) { return s.live().rank; })
        .def_prop_ro("size", [](const Space &s) { return s.live().nranks; })
        .def_prop_ro("alive", [](const Space &s) { return s.alive; }, "Whether the communicator still exists.")
        .def("count", [](const Space &s, std::int64_t n) {
            require_length(n);
            return s.live().block(n).count(s.live().rank);
        }, nb::arg("n"), "Local. The number of the n elements of a vector this rank holds.")
        .def("begin", [](const Space &s, std::int64_t n) {
            require_length(n);
            return s.live().block(n).begin(s.live().rank);
        }, nb::arg("n"), "Local. The global index of this rank's first element of an n-vector.")

        // ---- memory: local, in the same order on every rank (handles count up alike)
        .def("allocate", [](const Space &s, const std::string &kind, std::int64_t n, bool zero, bool constructor) {
            require_length(n);
            const std::int64_t bytes = s.live().block(n).count(s.live().rank) * size_of_kind(kind);
            if (constructor) s.live().sig.defer_to_next_collective("Vector", {{"n", n}, {"kind", kind[0]}});
            return s.table().allocate(bytes, zero);
        }, nb::arg("kind"), nb::arg("n"), nb::arg("zero") = true, nb::arg("constructor") = true,
        "Local. A new vector of n elements of kind z, d or b, zero-filled unless zero is False (for a result "
        "the next call writes completely). A constructor's (the user's) length and kind are compared by the "
        "next collective call; a result's (constructor=False) follow from the operation's arguments.")
        .def("allocate_segdes", [](const Space &s, int n, int m) {
            const int units = run(s, [&] { return siz_fos(n, m); });
            return s.table().allocate(static_cast<std::int64_t>(units) * vector::kUnit);
        }, nb::arg("n"), nb::arg("m"), "Local. Memory for a segment descriptor of n elements in m segments.")
        .def("borrow", [](const Space &s, const std::string &kind, std::int64_t n, Array local) {
            require_length(n);
            const std::int64_t size = size_of_kind(kind);
            const std::int64_t count = s.live().block(n).count(s.live().rank);
            if (kind_of(local.dtype()) != kind[0] || static_cast<std::int64_t>(local.shape(0)) != count)
                fail(DM_ERR_ARG, "borrowed memory must hold this rank's ", count, " elements of kind ", kind,
                     ", not ", local.shape(0));
            s.live().sig.defer_to_next_collective("Vector.from_distarray", {{"n", n}, {"kind", kind[0]}});
            return s.table().borrow(local.data(), count * size);
        }, nb::arg("kind"), nb::arg("n"), nb::arg("local"),
        "Local. A handle for `local`, this rank's block of an n-vector, which the caller keeps alive.")
        .def("release", [](Space &s, vec_p handle) {
            if (s.alive) s.table().release(handle);
        }, nb::arg("handle"), "Local. Frees the vector (a no-op once the communicator is gone).")
        .def("local", [](const Space &s, const std::string &kind, vec_p handle, std::int64_t n, nb::handle owner) {
            require_length(n);
            const dm_dtype dtype = dtype_of_kind(kind);
            Context &c = s.live();
            c.memory->require(handle, 0, c.block(n).count(c.rank) * size_of_kind(kind), "the vector");
            const size_t shape[1] = {static_cast<size_t>(c.block(n).count(c.rank))};
            return nb::ndarray<nb::numpy, nb::ndim<1>>(c.memory->at(handle), 1, shape, owner, nullptr,
                                                       dlpack_dtype(dtype));
        }, nb::arg("kind"), nb::arg("handle"), nb::arg("n"), nb::arg("owner"),
        "Local. A NumPy view of this rank's elements of the n-vector `handle`, keeping `owner` alive.")

        // ---- CVL's operations
        .def("segdes_size", [](const Space &s, int n, int m) { return run(s, [&] { return siz_fos(n, m); }); },
             nb::arg("n"), nb::arg("m"), "Local. siz_fos(n, m).")
        .def("make_segdes", [](const Space &s, vec_p sd, vec_p lengths, int n, int m) {
            run(s, [&] { mke_fov(sd, lengths, n, m, CVL_SCRATCH_NULL); });
        }, nb::arg("sd"), nb::arg("lengths"), nb::arg("n"), nb::arg("m"), "Collective. mke_fov.")
        .def("c2v", [](const Space &s, vec_p d, ConstArray a) {
            const char kind = kind_of(a.dtype());
            if (a.shape(0) > static_cast<size_t>(INT32_MAX)) fail(DM_ERR_ARG, "a CVL vector holds at most 2^31-1 elements");
            const int len = static_cast<int>(a.shape(0));
            void *p = const_cast<void *>(a.data());  // c2v_fu? only reads its source
            run(s, [&] {
                switch (kind) {
                    case 'z': c2v_fuz(d, static_cast<int *>(p), len, CVL_SCRATCH_NULL); break;
                    case 'd': c2v_fud(d, static_cast<double *>(p), len, CVL_SCRATCH_NULL); break;
                    default: c2v_fub(d, static_cast<cvl_bool *>(p), len, CVL_SCRATCH_NULL); break;
                }
            });
        }, nb::arg("d"), nb::arg("array"),
        "Local. c2v_fu?: every rank passes the same whole array (int32, float64 or bool).")
        .def("v2c", [](const Space &s, Array a, vec_p v) {
            const char kind = kind_of(a.dtype());
            const int len = static_cast<int>(a.shape(0));
            void *p = a.data();
            run(s, [&] {
                switch (kind) {
                    case 'z': v2c_fuz(static_cast<int *>(p), v, len, CVL_SCRATCH_NULL); break;
                    case 'd': v2c_fud(static_cast<double *>(p), v, len, CVL_SCRATCH_NULL); break;
                    default: v2c_fub(static_cast<cvl_bool *>(p), v, len, CVL_SCRATCH_NULL); break;
                }
            });
        }, nb::arg("array"), nb::arg("s"), "Collective. v2c_fu?: every rank receives the whole vector into `array`.")
        .def("unary", [](const Space &sp, const std::string &name, vec_p d, vec_p s, int len) {
            auto f = lookup(kUnary, name);
            run(sp, [&] { f(d, s, len, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("len"),
        "name(d, s, len): unary elementwise (local), unsegmented scans and ranks (collective).")
        .def("binary", [](const Space &sp, const std::string &name, vec_p d, vec_p s1, vec_p s2, int len) {
            auto f = binary_function(name)->vectors;
            run(sp, [&] { f(d, s1, s2, len, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s1"), nb::arg("s2"), nb::arg("len"),
        "Local. name(d, s1, s2, len): binary elementwise operations.")
        .def("binary_scalar", [](const Space &sp, const std::string &name, vec_p d, vec_p s, double x, bool scalar_first,
                                 int len) {
            auto f = binary_function(name)->scalar;
            run(sp, [&] { f(d, s, x, scalar_first, len); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("x"), nb::arg("scalar_first"), nb::arg("len"),
        "Local. name with a scalar operand: d[i] = name(s[i], x), or name(x, s[i]) where scalar_first.")
        .def("select", [](const Space &sp, const std::string &name, vec_p d, vec_p f, vec_p s1, vec_p s2, int len) {
            auto fn = lookup(kTernary, name);
            run(sp, [&] { fn(d, f, s1, s2, len, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("flags"), nb::arg("s1"), nb::arg("s2"), nb::arg("len"),
        "Local. sel_wu?(d, flags, s1, s2, len).")
        .def("seg_unary", [](const Space &sp, const std::string &name, vec_p d, vec_p s, vec_p sd, int n, int m) {
            auto f = lookup(kSegUnary, name);
            run(sp, [&] { f(d, s, sd, n, m, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("sd"), nb::arg("n"), nb::arg("m"),
        "Collective. name(d, s, sd, n, m): segmented scans, reductions, ranks, pk1_lev, dis_ve?.")
        .def("seg_binary", [](const Space &sp, const std::string &name, vec_p d, vec_p s, vec_p i, vec_p sd, int n,
                              int m) {
            auto f = lookup(kSegBinary, name);
            run(sp, [&] { f(d, s, i, sd, n, m, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("i"), nb::arg("sd"), nb::arg("n"), nb::arg("m"),
        "Collective. name(d, s, i, sd, n, m): smp_pe?, ext_ve?, rep_ve?, ind_lez.")
        .def("seg_two", [](const Space &sp, const std::string &name, vec_p d, vec_p s, vec_p x, vec_p sd_s, int n_s,
                           int m_s, vec_p sd_d, int n_d, int m_d) {
            auto f = lookup(kSegTwo, name);
            run(sp, [&] { f(d, s, x, sd_s, n_s, m_s, sd_d, n_d, m_d, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("x"), nb::arg("sd_s"), nb::arg("n_s"), nb::arg("m_s"),
        nb::arg("sd_d"), nb::arg("n_d"), nb::arg("m_d"), "Collective. bck_pe? and pk2_le?.")
        .def("two_len", [](const Space &sp, const std::string &name, vec_p d, vec_p s, vec_p x, int len_a, int len_b) {
            auto f = lookup(kTwoLen, name);
            run(sp, [&] { f(d, s, x, len_a, len_b, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("x"), nb::arg("len_a"), nb::arg("len_b"),
        "Collective. bck_pu?(d, s, i, s_len, d_len) and pk2_lu?(d, s, f, src_len, dest_len).")
        .def("permute", [](const Space &sp, const std::string &name, vec_p d, vec_p s, vec_p i, int len) {
            auto f = lookup(kPermute, name);
            run(sp, [&] { f(d, s, i, len, CVL_SCRATCH_NULL); });
        }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("i"), nb::arg("len"), "Collective. smp_pu?.")
        .def("reduce", &reduce, nb::arg("name"), nb::arg("s"), nb::arg("len"),
             "Collective. Unsegmented reductions name(s, len), as a Python number.")
        .def("extract", [](const Space &sp, const std::string &kind, vec_p v, int i, int len) -> nb::object {
            switch (dtype_of_kind(kind)) {
                case DM_INT32: return nb::int_(run(sp, [&] { return ext_vuz(v, i, len, CVL_SCRATCH_NULL); }));
                case DM_FLOAT64: return nb::float_(run(sp, [&] { return ext_vud(v, i, len, CVL_SCRATCH_NULL); }));
                default: return nb::bool_(run(sp, [&] { return ext_vub(v, i, len, CVL_SCRATCH_NULL); }) != 0);
            }
        }, nb::arg("kind"), nb::arg("v"), nb::arg("i"), nb::arg("len"), "Collective. ext_vu?(v, i, len).")
        .def("replace", [](const Space &sp, const std::string &kind, vec_p v, int i, double value, int len) {
            const dm_dtype dtype = dtype_of_kind(kind);
            run(sp, [&] {
                switch (dtype) {
                    case DM_INT32: rep_vuz(v, i, static_cast<int>(value), len, CVL_SCRATCH_NULL); break;
                    case DM_FLOAT64: rep_vud(v, i, value, len, CVL_SCRATCH_NULL); break;
                    default: rep_vub(v, i, static_cast<cvl_bool>(value != 0), len, CVL_SCRATCH_NULL); break;
                }
            });
        }, nb::arg("kind"), nb::arg("v"), nb::arg("i"), nb::arg("value"), nb::arg("len"),
        "Local. rep_vu?(v, i, value, len).")
        .def("distribute", [](const Space &sp, const std::string &kind, vec_p d, double value, int len) {
            const dm_dtype dtype = dtype_of_kind(kind);
            run(sp, [&] {
                switch (dtype) {
                    case DM_INT32: dis_vuz(d, static_cast<int>(value), len, CVL_SCRATCH_NULL); break;
                    case DM_FLOAT64: dis_vud(d, value, len, CVL_SCRATCH_NULL); break;
                    default: dis_vub(d, static_cast<cvl_bool>(value != 0), len, CVL_SCRATCH_NULL); break;
                }
            });
        }, nb::arg("kind"), nb::arg("d"), nb::arg("value"), nb::arg("len"), "Local. dis_vu?(d, value, len).")
        .def("index", [](const Space &sp, vec_p d, int init, int stride, int count) {
            run(sp, [&] { ind_luz(d, init, stride, count, CVL_SCRATCH_NULL); });
        }, nb::arg("d"), nb::arg("init"), nb::arg("stride"), nb::arg("count"), "Local. ind_luz.")
        .def("count_true", [](const Space &sp, vec_p f, int len) {
            return run(sp, [&] { return pk1_luv(f, len, CVL_SCRATCH_NULL); });
        }, nb::arg("flags"), nb::arg("len"), "Collective. pk1_luv: the number of true flags.");
}

}  // namespace dm::python
