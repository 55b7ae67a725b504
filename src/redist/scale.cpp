#include "redist/scale.hpp"

#include "core/dtype.hpp"
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
T conjugated(T v, bool conjugate) {
    if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>)
        return conjugate ? std::conj(v) : v;
    else
        return v;
}

// Calls f(byte offset, byte stride, count) for every run of the window along its
// last axis, at every position of the other axes (the last axis innermost).
template <class F>
void for_each_element(const Window &w, F &&f) {
    const std::size_t n = w.runs.size();
    if (n == 0) return;
    for (const auto &axis : w.runs)
        if (axis.empty()) return;
    // Per outer axis: the run it is in and the position within that run.
    std::vector<std::size_t> run(n, 0);
    std::vector<std::int64_t> within(n, 0);
    for (;;) {
        std::int64_t base = w.origin;
        for (std::size_t a = 0; a + 1 < n; ++a) base += (w.runs[a][run[a]].local + within[a]) * w.byte_strides[a];
        for (const layout::OwnedRun &last : w.runs[n - 1])
            f(base + last.local * w.byte_strides[n - 1], w.byte_strides[n - 1], last.length);
        std::size_t a = n - 1;  // the next position of the outer axes, the innermost fastest
        while (a-- > 0) {
            if (++within[a] < w.runs[a][run[a]].length) break;
            within[a] = 0;
            if (++run[a] < w.runs[a].size()) break;
            run[a] = 0;
            if (a == 0) return;
        }
        if (n == 1) return;
    }
}

template <class T>
void apply_typed(const Window &w, const Scale &s, const unsigned char *moved, unsigned char *dst) {
    const T alpha = value_of<T>(s.alpha), beta = value_of<T>(s.beta);
    const bool reads_dst = s.beta != std::complex<double>(0.0), conjugate = s.conjugate;
    for_each_element(w, [&](std::int64_t at, std::int64_t stride, std::int64_t count) {
        for (std::int64_t k = 0; k < count; ++k, at += stride) {
            T x = T(), y = T();
            if (alpha != T()) std::memcpy(&x, moved + at, sizeof x);
            if (reads_dst) std::memcpy(&y, dst + at, sizeof y);
            const T result = alpha == T() ? beta * y  // x unread: alpha 0 (and y 0 where beta is 0)
                             : reads_dst  ? alpha * conjugated(x, conjugate) + beta * y
                                          : alpha * conjugated(x, conjugate);
            std::memcpy(dst + at, &result, sizeof result);
        }
    });
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
