// CVL (cvl.h) for datamotion.vector: thin bindings over the C functions, grouped by
// signature and looked up by their CVL name ("add_wuz", "smp_ped", ...). Every call
// checks CVL_error() afterwards and raises datamotion.Error with CVL's code and
// message; CVL detects its errors identically on every rank, so the exception is
// raised on every rank. The Python layer (python/datamotion/vector.py) owns handles.
#include "bindings.hpp"

#include "core/error.hpp"

#include <cvl.h>

#include <nanobind/stl/string.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <unordered_map>

namespace dm::python {
namespace {

// Incremented by every start of the library: handles from an earlier run are stale.
int g_generation = 0;
bool g_running = false;

// Raises the error CVL recorded during the last call (and forgets it).
void raise_cvl_error() {
    const int code = CVL_error();
    if (code == CVL_OK) return;
    std::string message = CVL_error_message();
    CVL_clear_error();
    throw dm::Error(code, message);
}

// Stops CVL inside MPI_Finalize: MPI deletes MPI_COMM_SELF's attributes first thing
// there, on every rank, so the collective CVL_quit never runs on one rank alone (as an
// atexit handler would when one rank exits early).
int quit_at_finalize(MPI_Comm, int, void *, void *) {
    if (g_running) {
        g_running = false;
        CVL_quit();
    }
    return MPI_SUCCESS;
}

void stop_at_finalize() {
    static bool hooked = false;
    if (hooked) return;
    int key = MPI_KEYVAL_INVALID;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &quit_at_finalize, &key, nullptr) != MPI_SUCCESS ||
        MPI_Comm_set_attr(MPI_COMM_SELF, key, nullptr) != MPI_SUCCESS)
        fail(DM_ERR_MPI, "cannot hook CVL's stop on MPI_Finalize");
    hooked = true;
}

void require_running() {
    if (!g_running) fail(DM_ERR_STATE, "CVL is not running: call datamotion.vector.init() first");
}

// Runs a CVL call without the GIL (collective calls wait for the other ranks), then
// raises what it reported.
template <class F>
auto call(F &&f) {
    require_running();
    if constexpr (std::is_void_v<decltype(f())>) {
        {
            nb::gil_scoped_release release;
            f();
        }
        raise_cvl_error();
    } else {
        decltype(f()) result;
        {
            nb::gil_scoped_release release;
            result = f();
        }
        raise_cvl_error();
        return result;
    }
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

// d, s1, s2, len: binary elementwise and comparisons.
using BinaryFn = void (*)(vec_p, vec_p, vec_p, int, vec_p);
const std::unordered_map<std::string, BinaryFn> kBinary = {
    DM_CVL_ENTRY(max_wuz), DM_CVL_ENTRY(max_wud), DM_CVL_ENTRY(min_wuz), DM_CVL_ENTRY(min_wud),
    DM_CVL_ENTRY(add_wuz), DM_CVL_ENTRY(add_wud), DM_CVL_ENTRY(sub_wuz), DM_CVL_ENTRY(sub_wud),
    DM_CVL_ENTRY(mul_wuz), DM_CVL_ENTRY(mul_wud), DM_CVL_ENTRY(div_wuz), DM_CVL_ENTRY(div_wud),
    DM_CVL_ENTRY(grt_wuz), DM_CVL_ENTRY(grt_wud), DM_CVL_ENTRY(les_wuz), DM_CVL_ENTRY(les_wud),
    DM_CVL_ENTRY(geq_wuz), DM_CVL_ENTRY(geq_wud), DM_CVL_ENTRY(leq_wuz), DM_CVL_ENTRY(leq_wud),
    DM_CVL_ENTRY(eql_wuz), DM_CVL_ENTRY(eql_wud), DM_CVL_ENTRY(neq_wuz), DM_CVL_ENTRY(neq_wud),
    DM_CVL_ENTRY(mod_wuz), DM_CVL_ENTRY(and_wub), DM_CVL_ENTRY(and_wuz), DM_CVL_ENTRY(ior_wub),
    DM_CVL_ENTRY(ior_wuz), DM_CVL_ENTRY(xor_wub), DM_CVL_ENTRY(xor_wuz), DM_CVL_ENTRY(eql_wub),
    DM_CVL_ENTRY(neq_wub),
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
nb::object reduce(const std::string &name, vec_p s, int len) {
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
        return nb::int_(call([&] { return it->second(s, len, CVL_SCRATCH_NULL); }));
    if (auto it = dbls.find(name); it != dbls.end())
        return nb::float_(call([&] { return it->second(s, len, CVL_SCRATCH_NULL); }));
    if (auto it = bools.find(name); it != bools.end())
        return nb::bool_(call([&] { return it->second(s, len, CVL_SCRATCH_NULL); }) != 0);
    fail(DM_ERR_ARG, "no CVL reduction ", name);
}

// The element type of a NumPy array as CVL's letter: z (int32), d (float64), b (bool).
char kind_of(const nb::dlpack::dtype &t) {
    using code = nb::dlpack::dtype_code;
    if (t.code == static_cast<uint8_t>(code::Int) && t.bits == 32) return 'z';
    if (t.code == static_cast<uint8_t>(code::Float) && t.bits == 64) return 'd';
    if (t.code == static_cast<uint8_t>(code::Bool) && t.bits == 8) return 'b';
    fail(DM_ERR_TYPE, "CVL vectors hold int32, float64 or bool elements");
}

using Array = nb::ndarray<nb::ndim<1>, nb::c_contig, nb::device::cpu>;
using ConstArray = nb::ndarray<nb::ro, nb::ndim<1>, nb::c_contig, nb::device::cpu>;

}  // namespace

void bind_vector(nb::module_ &m) {
    m.def("cvl_init", [] {
        if (g_running) return g_generation;
        // Errors become Python exceptions: keep CVL from also printing them, unless
        // the user asked for a mode with CVL_ERRORS.
        const bool quiet = std::getenv("CVL_ERRORS") == nullptr;
        if (quiet) setenv("CVL_ERRORS", "quiet", 1);
        {
            nb::gil_scoped_release release;
            CVL_init(nullptr, nullptr);
        }
        if (quiet) unsetenv("CVL_ERRORS");
        raise_cvl_error();
        g_running = true;
        stop_at_finalize();
        return ++g_generation;
    }, "Collective on MPI_COMM_WORLD. Starts CVL (MPI stays the caller's), to be stopped by cvl_quit() or "
       "inside MPI_Finalize, and returns the run's generation.");
    m.def("cvl_quit", [] {
        if (!g_running) return;
        g_running = false;
        nb::gil_scoped_release release;
        CVL_quit();
    }, "Collective. Stops CVL and frees all vector memory (no-op if not running).");
    m.def("cvl_generation", [] { return g_running ? g_generation : 0; },
          "Local. The generation of the running library, 0 if it is not running.");
    m.def("cvl_nranks", [] { return CVL_nranks(); }, "Local. Ranks vectors are distributed over.");

    m.def("cvl_alloc", [](int units) {
        vec_p v = call([&] { return alo_foz(units); });
        if (v == CVL_SCRATCH_NULL) fail(DM_ERR_MEMORY, "alo_foz: cannot allocate ", units, " units");
        return v;
    }, nb::arg("units"), "Local (every rank, in the same order; compared with the next call). alo_foz(units).");
    m.def("cvl_free", [](vec_p v, int generation) {
        // Vectors that outlive the library (garbage collected at exit) are forgotten.
        if (!g_running || generation != g_generation) return;
        fre_fov(v);
        raise_cvl_error();
    }, nb::arg("handle"), nb::arg("generation"), "Local. fre_fov(handle) if it is from the running library.");
    m.def("cvl_size", [](const std::string &kind, int n) {
        switch (kind.empty() ? '?' : kind[0]) {
            case 'z': return siz_foz(n);
            case 'd': return siz_fod(n);
            case 'b': return siz_fob(n);
        }
        fail(DM_ERR_ARG, "unknown CVL element kind '", kind, "'");
    }, nb::arg("kind"), nb::arg("n"), "Local. siz_fo?(n): units per rank for n elements of kind z, d or b.");
    m.def("cvl_segdes_size", [](int n, int m) { return call([&] { return siz_fos(n, m); }); },
          nb::arg("n"), nb::arg("m"), "Local. siz_fos(n, m).");
    m.def("cvl_make_segdes", [](vec_p sd, vec_p lengths, int n, int m) {
        call([&] { mke_fov(sd, lengths, n, m, CVL_SCRATCH_NULL); });
    }, nb::arg("sd"), nb::arg("lengths"), nb::arg("n"), nb::arg("m"), "Collective. mke_fov.");

    m.def("cvl_c2v", [](vec_p d, ConstArray a) {
        const char kind = kind_of(a.dtype());
        const int len = static_cast<int>(a.shape(0));
        if (a.shape(0) > static_cast<size_t>(INT32_MAX)) fail(DM_ERR_ARG, "a CVL vector holds at most 2^31-1 elements");
        void *p = const_cast<void *>(a.data());  // c2v_fu? only reads its source
        call([&] {
            switch (kind) {
                case 'z': c2v_fuz(d, static_cast<int *>(p), len, CVL_SCRATCH_NULL); break;
                case 'd': c2v_fud(d, static_cast<double *>(p), len, CVL_SCRATCH_NULL); break;
                default: c2v_fub(d, static_cast<cvl_bool *>(p), len, CVL_SCRATCH_NULL); break;
            }
        });
    }, nb::arg("d"), nb::arg("array"),
    "Local. c2v_fu?: every rank passes the same whole array (int32, float64 or bool).");
    m.def("cvl_v2c", [](Array a, vec_p s) {
        const char kind = kind_of(a.dtype());
        const int len = static_cast<int>(a.shape(0));
        void *p = a.data();
        call([&] {
            switch (kind) {
                case 'z': v2c_fuz(static_cast<int *>(p), s, len, CVL_SCRATCH_NULL); break;
                case 'd': v2c_fud(static_cast<double *>(p), s, len, CVL_SCRATCH_NULL); break;
                default: v2c_fub(static_cast<cvl_bool *>(p), s, len, CVL_SCRATCH_NULL); break;
            }
        });
    }, nb::arg("array"), nb::arg("s"), "Collective. v2c_fu?: every rank receives the whole vector into `array`.");

    m.def("cvl_unary", [](const std::string &name, vec_p d, vec_p s, int len) {
        auto f = lookup(kUnary, name);
        call([&] { f(d, s, len, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("len"),
    "name(d, s, len): unary elementwise (local), unsegmented scans and ranks (collective).");
    m.def("cvl_binary", [](const std::string &name, vec_p d, vec_p s1, vec_p s2, int len) {
        auto f = lookup(kBinary, name);
        call([&] { f(d, s1, s2, len, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s1"), nb::arg("s2"), nb::arg("len"),
    "Local. name(d, s1, s2, len): binary elementwise operations.");
    m.def("cvl_select", [](const std::string &name, vec_p d, vec_p f, vec_p s1, vec_p s2, int len) {
        auto fn = lookup(kTernary, name);
        call([&] { fn(d, f, s1, s2, len, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("flags"), nb::arg("s1"), nb::arg("s2"), nb::arg("len"),
    "Local. sel_wu?(d, flags, s1, s2, len).");
    m.def("cvl_seg_unary", [](const std::string &name, vec_p d, vec_p s, vec_p sd, int n, int m) {
        auto f = lookup(kSegUnary, name);
        call([&] { f(d, s, sd, n, m, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("sd"), nb::arg("n"), nb::arg("m"),
    "Collective. name(d, s, sd, n, m): segmented scans, reductions, ranks, pk1_lev, dis_ve?.");
    m.def("cvl_seg_binary", [](const std::string &name, vec_p d, vec_p s, vec_p i, vec_p sd, int n, int m) {
        auto f = lookup(kSegBinary, name);
        call([&] { f(d, s, i, sd, n, m, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("i"), nb::arg("sd"), nb::arg("n"), nb::arg("m"),
    "Collective. name(d, s, i, sd, n, m): smp_pe?, ext_ve?, rep_ve?, ind_lez.");
    m.def("cvl_seg_two", [](const std::string &name, vec_p d, vec_p s, vec_p x, vec_p sd_s, int n_s, int m_s,
                            vec_p sd_d, int n_d, int m_d) {
        auto f = lookup(kSegTwo, name);
        call([&] { f(d, s, x, sd_s, n_s, m_s, sd_d, n_d, m_d, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("x"), nb::arg("sd_s"), nb::arg("n_s"), nb::arg("m_s"),
    nb::arg("sd_d"), nb::arg("n_d"), nb::arg("m_d"), "Collective. bck_pe? and pk2_le?.");
    m.def("cvl_two_len", [](const std::string &name, vec_p d, vec_p s, vec_p x, int len_a, int len_b) {
        auto f = lookup(kTwoLen, name);
        call([&] { f(d, s, x, len_a, len_b, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("x"), nb::arg("len_a"), nb::arg("len_b"),
    "Collective. bck_pu?(d, s, i, s_len, d_len) and pk2_lu?(d, s, f, src_len, dest_len).");
    m.def("cvl_permute", [](const std::string &name, vec_p d, vec_p s, vec_p i, int len) {
        auto f = lookup(kPermute, name);
        call([&] { f(d, s, i, len, CVL_SCRATCH_NULL); });
    }, nb::arg("name"), nb::arg("d"), nb::arg("s"), nb::arg("i"), nb::arg("len"), "Collective. smp_pu?.");
    m.def("cvl_reduce", &reduce, nb::arg("name"), nb::arg("s"), nb::arg("len"),
          "Collective. Unsegmented reductions name(s, len), as a Python number.");
    m.def("cvl_extract", [](const std::string &kind_name, vec_p v, int i, int len) -> nb::object {
        const char kind = kind_name.empty() ? '?' : kind_name[0];
        switch (kind) {
            case 'z': return nb::int_(call([&] { return ext_vuz(v, i, len, CVL_SCRATCH_NULL); }));
            case 'd': return nb::float_(call([&] { return ext_vud(v, i, len, CVL_SCRATCH_NULL); }));
            default: return nb::bool_(call([&] { return ext_vub(v, i, len, CVL_SCRATCH_NULL); }) != 0);
        }
    }, nb::arg("kind"), nb::arg("v"), nb::arg("i"), nb::arg("len"), "Collective. ext_vu?(v, i, len).");
    m.def("cvl_replace", [](const std::string &kind_name, vec_p v, int i, double value, int len) {
        const char kind = kind_name.empty() ? '?' : kind_name[0];
        call([&] {
            switch (kind) {
                case 'z': rep_vuz(v, i, static_cast<int>(value), len, CVL_SCRATCH_NULL); break;
                case 'd': rep_vud(v, i, value, len, CVL_SCRATCH_NULL); break;
                default: rep_vub(v, i, static_cast<cvl_bool>(value != 0), len, CVL_SCRATCH_NULL); break;
            }
        });
    }, nb::arg("kind"), nb::arg("v"), nb::arg("i"), nb::arg("value"), nb::arg("len"),
    "Local. rep_vu?(v, i, value, len).");
    m.def("cvl_distribute", [](const std::string &kind_name, vec_p d, double value, int len) {
        const char kind = kind_name.empty() ? '?' : kind_name[0];
        call([&] {
            switch (kind) {
                case 'z': dis_vuz(d, static_cast<int>(value), len, CVL_SCRATCH_NULL); break;
                case 'd': dis_vud(d, value, len, CVL_SCRATCH_NULL); break;
                default: dis_vub(d, static_cast<cvl_bool>(value != 0), len, CVL_SCRATCH_NULL); break;
            }
        });
    }, nb::arg("kind"), nb::arg("d"), nb::arg("value"), nb::arg("len"), "Local. dis_vu?(d, value, len).");
    m.def("cvl_index", [](vec_p d, int init, int stride, int count) {
        call([&] { ind_luz(d, init, stride, count, CVL_SCRATCH_NULL); });
    }, nb::arg("d"), nb::arg("init"), nb::arg("stride"), nb::arg("count"), "Local. ind_luz.");
    m.def("cvl_count", [](vec_p f, int len) { return call([&] { return pk1_luv(f, len, CVL_SCRATCH_NULL); }); },
          nb::arg("flags"), nb::arg("len"), "Collective. pk1_luv: the number of true flags.");
}

}  // namespace dm::python
