#include "redist/scale.hpp"

#include "core/dtype.hpp"
#include "array/box.hpp"
#include "core/error.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

namespace dm::redist {

Window window_of(const std::vector<layout::AxisMap> &maps, const std::vector<int> &coords,
                 const std::vector<std::int64_t> &offset, const std::vector<std::int64_t> &count,
                 const std::vector<std::int64_t> &byte_strides, std::int64_t origin, dm_dtype dtype) {
    Window w;
    w.dtype = dtype;
    if (coords.empty()) return w;
    w.byte_strides = byte_strides, w.origin = origin;
    w.storage_bytes = origin + static_cast<std::int64_t>(dtype_size(dtype));
    for (std::size_t a = 0; a < maps.size(); ++a) {
        w.runs.push_back(maps[a].owned_runs(coords[a], offset[a], offset[a] + count[a]));
        const std::int64_t extent = maps[a].extent(coords[a]);
        if (extent > 0) w.storage_bytes += (extent - 1) * byte_strides[a];
    }
    return w;
}

std::complex<double> number_at(dm_dtype dtype, const void *value, std::complex<double> otherwise) {
    if (!value) return otherwise;
    auto read = [value](auto v) {
        std::memcpy(&v, value, sizeof v);
        return v;
    };
    switch (dtype) {
    case DM_INT32: return static_cast<double>(read(std::int32_t{}));
    case DM_INT64: return static_cast<double>(read(std::int64_t{}));
    case DM_FLOAT32: return read(float{});
    case DM_FLOAT64: return read(double{});
    case DM_COMPLEX64: return std::complex<double>(read(std::complex<float>{}));
    case DM_COMPLEX128: return read(std::complex<double>{});
    default: fail(DM_ERR_TYPE, "redist: values of type ", dtype_name(dtype), " cannot be scaled");
    }
}

namespace {

template <class T>
T value_of(std::complex<double> z) {
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        return T(static_cast<typename T::value_type>(z.real()), static_cast<typename T::value_type>(z.imag()));
    else if constexpr (std::is_integral_v<T>)
        return static_cast<T>(z.real() < 0 ? z.real() - 0.5 : z.real() + 0.5);
    else
        return static_cast<T>(z.real());
}

template <class T>
constexpr bool kComplex = std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>;

// a x, and a conj(x) where Conj, written out: std::complex's operator* keeps C's
// Annex G rules for infinities through a library call per product (__muldc3),
// many times slower than the moves; BLAS's zscal multiplies this way too.
template <class T, bool Conj>
T times(T a, T x) {
    if constexpr (kComplex<T>) {
        const auto xi = Conj ? -x.imag() : x.imag();
        return T(a.real() * x.real() - a.imag() * xi, a.real() * xi + a.imag() * x.real());
    } else {
        return a * x;
    }
}

// Calls f(byte offset, byte stride, count) for every run of the window along its
// last axis, at every position of the other axes (the last axis innermost): the
// window is the product of its axes' owned runs, so each combination of runs is a
// box walked by the library's strided loop.
template <class F>
void for_each_element(const Window &w, F &&f) {
    const int n = static_cast<int>(w.runs.size());
    if (n == 0) return;
    std::int64_t runs[array::kMaxAxes], none[array::kMaxAxes] = {};
    for (int a = 0; a < n; ++a) runs[a] = static_cast<std::int64_t>(w.runs[a].size());
    const std::int64_t *const unstrided[1] = {none}, *const strides[1] = {w.byte_strides.data()};
    const std::int64_t last_stride = w.byte_strides[n - 1];
    array::for_each_index(n, runs, unstrided, std::array<std::int64_t, 1>{0},
                          [&](const std::int64_t *which, const std::array<std::int64_t, 1> &) {
                              std::int64_t count[array::kMaxAxes], origin = w.origin;
                              for (int a = 0; a < n; ++a) {
                                  const layout::OwnedRun &r = w.runs[a][which[a]];
                                  count[a] = r.length, origin += r.local * w.byte_strides[a];
                              }
                              array::for_each_index(n - 1, count, strides, std::array<std::int64_t, 1>{origin},
                                                    [&](const std::int64_t *, const std::array<std::int64_t, 1> &at) {
                                                        f(at[0], last_stride, count[n - 1]);
                                                    });
                          });
}

// One run of `count` elements `stride` bytes apart: dst = alpha op(x) + beta dst,
// reading only what the case needs; branch-free within the run, so that
// contiguous runs vectorise.
// A value at `at`, and one stored there; complex ones part by part, so that a
// product's two parts go straight to memory (through a whole-value copy they
// went through the stack, stalling each load on the two stores before it).
template <class T>
T load(const unsigned char *at) {
    if constexpr (kComplex<T>) {
        typename T::value_type re, im;
        std::memcpy(&re, at, sizeof re);
        std::memcpy(&im, at + sizeof re, sizeof im);
        return T(re, im);
    } else {
        T v;
        std::memcpy(&v, at, sizeof v);
        return v;
    }
}

template <class T>
void store(unsigned char *at, T v) {
    if constexpr (kComplex<T>) {
        const typename T::value_type re = v.real(), im = v.imag();
        std::memcpy(at, &re, sizeof re);
        std::memcpy(at + sizeof re, &im, sizeof im);
    } else {
        std::memcpy(at, &v, sizeof v);
    }
}

template <class T, bool ReadsX, bool ReadsY, bool Conj>
void combine_run(unsigned char *dst, const unsigned char *moved, std::int64_t stride, std::int64_t count, T alpha,
                 T beta) {
    for (std::int64_t k = 0; k < count; ++k, dst += stride, moved += stride) {
        T result = T();
        if constexpr (ReadsX) result = times<T, Conj>(alpha, load<T>(moved));
        if constexpr (ReadsY) result = result + times<T, false>(beta, load<T>(dst));
        store(dst, result);
    }
}

template <class T, bool ReadsX, bool ReadsY, bool Conj>
void combine_window(const Window &w, T alpha, T beta, const unsigned char *moved, unsigned char *dst) {
    for_each_element(w, [&](std::int64_t at, std::int64_t stride, std::int64_t count) {
        if (stride == static_cast<std::int64_t>(sizeof(T)))  // the common case, as a constant stride
            combine_run<T, ReadsX, ReadsY, Conj>(dst + at, moved + at, sizeof(T), count, alpha, beta);
        else
            combine_run<T, ReadsX, ReadsY, Conj>(dst + at, moved + at, stride, count, alpha, beta);
    });
}

template <class T>
void apply_typed(const Window &w, const Scale &s, const unsigned char *moved, unsigned char *dst) {
    const T alpha = value_of<T>(s.alpha), beta = value_of<T>(s.beta);
    const bool reads_x = alpha != T(), reads_y = s.beta != std::complex<double>(0.0);
    const bool conjugate = kComplex<T> && s.conjugate;
    // x unread where alpha is 0, y unread where beta is 0
    if (!reads_x) {
        if (reads_y)
            combine_window<T, false, true, false>(w, alpha, beta, moved, dst);
        else
            combine_window<T, false, false, false>(w, alpha, beta, moved, dst);
    } else if (reads_y) {
        if (conjugate)
            combine_window<T, true, true, true>(w, alpha, beta, moved, dst);
        else
            combine_window<T, true, true, false>(w, alpha, beta, moved, dst);
    } else if (conjugate) {
        combine_window<T, true, false, true>(w, alpha, beta, moved, dst);
    } else {
        combine_window<T, true, false, false>(w, alpha, beta, moved, dst);
    }
}

}  // namespace

void apply(const Window &w, const Scale &s, const void *moved, void *dst) {
    const auto *from = static_cast<const unsigned char *>(moved);
    auto *to = static_cast<unsigned char *>(dst);
    switch (w.dtype) {
    case DM_INT32: apply_typed<std::int32_t>(w, s, from, to); break;
    case DM_INT64: apply_typed<std::int64_t>(w, s, from, to); break;
    case DM_FLOAT32: apply_typed<float>(w, s, from, to); break;
    case DM_FLOAT64: apply_typed<double>(w, s, from, to); break;
    case DM_COMPLEX64: apply_typed<std::complex<float>>(w, s, from, to); break;
    case DM_COMPLEX128: apply_typed<std::complex<double>>(w, s, from, to); break;
    default: fail(DM_ERR_TYPE, "redist: values of type ", dtype_name(w.dtype), " cannot be scaled");
    }
}

}  // namespace dm::redist
