// Values transformed while a redistribution moves them: dst = alpha op(src) +
// beta dst (ScaLAPACK's p?tran, COSTA's transform). The transposition is planned
// (Side::transposed); what is left for execution is arithmetic on the
// destination's window, one pass over it.
#pragma once

#include <datamotion/core.h>

#include "layout/distribution.hpp"

#include <complex>
#include <cstdint>
#include <vector>

namespace dm::redist {

// alpha and beta as complex numbers (their real parts for real types, rounded
// for integer ones); `conjugate` conjugates complex values of the source.
struct Scale {
    std::complex<double> alpha{1.0, 0.0}, beta{0.0, 0.0};
    bool conjugate = false;
    bool none() const { return alpha == std::complex<double>(1.0) && beta == std::complex<double>(0.0) && !conjugate; }
};

// One value of `dtype` at `value` as a complex number; `otherwise` where value is null.
std::complex<double> number_at(dm_dtype dtype, const void *value, std::complex<double> otherwise);

// Where one rank's part of a destination window lies in its storage: per axis
// the runs of local indices inside the window, with the storage's byte strides.
struct Window {
    dm_dtype dtype = DM_FLOAT64;
    std::vector<std::vector<layout::OwnedRun>> runs;  // per axis; empty: this rank holds none
    std::vector<std::int64_t> byte_strides;
    std::int64_t origin = 0;         // byte offset of local index (0, ..., 0)
    std::int64_t storage_bytes = 0;  // bytes from the storage's start past its last element
};

// The window [offset, offset + count) per axis of a side held at `coords`.
Window window_of(const std::vector<layout::AxisMap> &maps, const std::vector<int> &coords,
                 const std::vector<std::int64_t> &offset, const std::vector<std::int64_t> &count,
                 const std::vector<std::int64_t> &byte_strides, std::int64_t origin, dm_dtype dtype);

// Local. Over the window of `dst`: dst = alpha op(moved) + beta dst, where `moved`
// is storage of the same layout holding the moved values (`moved` may be `dst`
// itself when beta is 0; beta 0 never reads dst's old values, alpha 0 never reads
// moved: dst = beta dst).
void apply(const Window &window, const Scale &scale, const void *moved, void *dst);

}  // namespace dm::redist
