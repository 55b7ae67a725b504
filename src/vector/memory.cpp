// Facilities: vector memory, sizes, handle arithmetic, copies between vectors and C
// arrays, timers, the random seed.
#include "exchange/collective.hpp"
#include "vector/ops.hpp"
#include "vector/state.hpp"

#include <cvl.h>

#include <chrono>
#include <climits>
#include <cstring>

using namespace dm::vector;

namespace {

// A 63-bit FNV-1a hash of n bytes.
int64_t bytes_hash(const void *p, std::size_t n) {
    std::uint64_t h = 1469598103934665603ull;
    const auto *b = static_cast<const unsigned char *>(p);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
    return static_cast<int64_t>(h >> 1);
}

template <class T>
int size_of(const char *name, int n) {
    return local_entry(name, 0, [&](Context &c) {
        require_length(n, "length");
        return static_cast<int>(c.units<T>(n));
    });
}

// Every rank receives the whole vector. A NULL array is reported on the rank that
// passed it (pointer arguments are per rank), which still takes part in the collective,
// receiving into a buffer of the library's.
template <class T>
void vector_to_c(const char *name, T *d, vec_p s, int len) {
    // Whether d is NULL must agree: checked mode compares it with the other arguments.
    collective_entry(name, {{"s", s}, {"len", len}, {"whether d is NULL", d == nullptr}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(s, len, "source s");
        if (len == 0) return;
        const bool null = d == nullptr;
        T *out = null ? c.ws.get<T>(kRecv, static_cast<std::size_t>(len)) : d;
        if (c.nranks == 1) {
            std::memcpy(out, c.local<T>(s), static_cast<std::size_t>(len) * sizeof(T));
        } else {
            const BlockRule b = c.block(len);
            int64_t *counts = c.ws.get<int64_t>(kMisc, static_cast<std::size_t>(2 * c.nranks));
            int64_t *displs = counts + c.nranks;
            for (int r = 0; r < c.nranks; ++r) {
                counts[r] = b.count(r);
                displs[r] = b.begin(r);
            }
            dm::exchange::gather_variable(c.comm, c.local<T>(s), out, counts, displs, sizeof(T));
        }
        if (null) dm::fail(DM_ERR_ARG, "destination array d is NULL");
    });
}

// Every rank copies its block out of the same whole C array. Checked mode compares a
// hash of the whole array across ranks, not only its length.
template <class T>
void c_to_vector(const char *name, vec_p d, const T *s, int len) {
    const int64_t contents = dm::checked_mode() && s && len > 0 ? bytes_hash(s, static_cast<std::size_t>(len) * sizeof(T)) : 0;
    entry(name, {{"d", d}, {"len", len}, {"C array s (hash of its contents)", contents}}, [&](Context &c) {
        require_length(len, "len");
        c.require_vector<T>(d, len, "destination d");
        if (len == 0) return;
        if (!s) dm::fail(DM_ERR_ARG, "source array s is NULL");
        const BlockRule b = c.block(len);
        std::memcpy(c.local<T>(d), s + b.begin(c.rank), static_cast<std::size_t>(b.count(c.rank)) * sizeof(T));
    });
}

}  // namespace

extern "C" {

vec_p alo_foz(int size) {
    return deferred_entry("alo_foz", CVL_SCRATCH_NULL, {{"size", size}},
                 [&](Context &c) { return c.arena().allocate(size, c.nranks); });
}

void fre_fov(vec_p v) {
    local_entry("fre_fov", 0, [&](Context &c) {
        c.arena().release(v);
        return 0;
    });
}

int siz_fob(int n) { return size_of<cvl_bool>("siz_fob", n); }
int siz_foz(int n) { return size_of<int>("siz_foz", n); }
int siz_fod(int n) { return size_of<double>("siz_fod", n); }

vec_p add_fov(vec_p v, int a) {
    const long long r = static_cast<long long>(v) + a;
    if (r < 0 || r > INT_MAX) {
        report("add_fov", DM_ERR_ARG, "handle arithmetic leaves the range of vec_p");
        return CVL_SCRATCH_NULL;
    }
    return static_cast<vec_p>(r);
}

// The distance in units between two handles, |v1 - v2|, as in CVL.
int sub_fov(vec_p v1, vec_p v2) {
    const long long r = static_cast<long long>(v1) - v2;
    const long long distance = r < 0 ? -r : r;
    if (distance > INT_MAX) {
        report("sub_fov", DM_ERR_ARG, "handle distance leaves the range of int");
        return 0;
    }
    return static_cast<int>(distance);
}

cvl_bool eql_fov(vec_p v1, vec_p v2) { return v1 == v2; }

int cmp_fov(vec_p v1, vec_p v2) { return (v1 > v2) - (v1 < v2); }

void mov_fov(vec_p d, vec_p s, int size, vec_p) {
    entry("mov_fov", {{"d", d}, {"s", s}, {"size", size}}, [&](Context &c) {
        require_length(size, "size");
        c.arena().require(d, size, "destination d");
        c.arena().require(s, size, "source s");
        if (size > 0)
            std::memmove(c.local<char>(d), c.local<char>(s), static_cast<std::size_t>(size) * kUnit);
    });
}

void v2c_fuz(int *d, vec_p s, int len, vec_p) { vector_to_c("v2c_fuz", d, s, len); }
void v2c_fub(cvl_bool *d, vec_p s, int len, vec_p) { vector_to_c("v2c_fub", d, s, len); }
void v2c_fud(double *d, vec_p s, int len, vec_p) { vector_to_c("v2c_fud", d, s, len); }
void c2v_fuz(vec_p d, int *s, int len, vec_p) { c_to_vector("c2v_fuz", d, s, len); }
void c2v_fub(vec_p d, cvl_bool *s, int len, vec_p) { c_to_vector("c2v_fub", d, s, len); }
void c2v_fud(vec_p d, double *s, int len, vec_p) { c_to_vector("c2v_fud", d, s, len); }

void tgt_fos(cvl_timer_t *t) {
    if (!t) {
        report("tgt_fos", DM_ERR_ARG, "timer pointer is NULL");
        return;
    }
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    *t = std::chrono::duration<double>(now).count();
}

double tdf_fos(cvl_timer_t *t1, cvl_timer_t *t2) {
    if (!t1 || !t2) {
        report("tdf_fos", DM_ERR_ARG, "timer pointer is NULL");
        return 0.0;
    }
    return *t1 - *t2;
}

void rnd_foz(int seed) {
    entry("rnd_foz", {{"seed", seed}}, [&](Context &c) {
        c.rnd_seed = static_cast<std::uint64_t>(static_cast<unsigned>(seed));
        c.rnd_calls = 0;
    });
}

}  // extern "C"
