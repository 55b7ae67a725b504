#include "core/dtype.hpp"

#include "core/checked.hpp"
#include "core/error.hpp"

#include <cstdint>
#include <cstring>

namespace dm {
namespace {
struct TypeInfo {
    const char *name;
    std::size_t size;
};
// Indexed by dm_dtype.
constexpr TypeInfo kTypes[DM_NUM_DTYPES] = {
    {"int32", 4},     {"int64", 8},      {"float32", 4}, {"float64", 8},
    {"complex64", 8}, {"complex128", 16}, {"bool", 1},
};
}  // namespace

bool dtype_valid(int dtype) noexcept { return dtype >= 0 && dtype < DM_NUM_DTYPES; }

dm_dtype checked_dtype(int dtype) {
    if (!dtype_valid(dtype))
        fail(DM_ERR_TYPE, "unsupported element type code ", dtype,
             " (supported: int32, int64, float32, float64, complex64, complex128, bool)");
    return static_cast<dm_dtype>(dtype);
}

std::size_t dtype_size(dm_dtype dtype) { return kTypes[checked_dtype(dtype)].size; }

const char *dtype_name(dm_dtype dtype) noexcept {
    return dtype_valid(dtype) ? kTypes[dtype].name : "invalid";
}

void dtype_one(dm_dtype dtype, void *out) {
    switch (checked_dtype(dtype)) {
        case DM_INT32: { std::int32_t v = 1; std::memcpy(out, &v, sizeof v); return; }
        case DM_INT64: { std::int64_t v = 1; std::memcpy(out, &v, sizeof v); return; }
        case DM_FLOAT32: { float v = 1; std::memcpy(out, &v, sizeof v); return; }
        case DM_FLOAT64: { double v = 1; std::memcpy(out, &v, sizeof v); return; }
        case DM_COMPLEX64: { float v[2] = {1, 0}; std::memcpy(out, v, sizeof v); return; }
        case DM_COMPLEX128: { double v[2] = {1, 0}; std::memcpy(out, v, sizeof v); return; }
        case DM_BOOL: { unsigned char v = 1; std::memcpy(out, &v, 1); return; }
    }
}

MPI_Datatype dtype_mpi(dm_dtype dtype) {
    switch (checked_dtype(dtype)) {
        case DM_INT32: return MPI_INT32_T;
        case DM_INT64: return MPI_INT64_T;
        case DM_FLOAT32: return MPI_FLOAT;
        case DM_FLOAT64: return MPI_DOUBLE;
        case DM_COMPLEX64: return MPI_C_FLOAT_COMPLEX;
        case DM_COMPLEX128: return MPI_C_DOUBLE_COMPLEX;
        case DM_BOOL: return MPI_C_BOOL;
    }
    fail(DM_ERR_INTERNAL, "unhandled element type");
}

}  // namespace dm

extern "C" {
// The dtype arguments are read as integers: a C caller may pass any value.
size_t dm_dtype_size(dm_dtype dtype) {
    const int code = dm::enum_value(dtype);
    return dm::dtype_valid(code) ? dm::dtype_size(static_cast<dm_dtype>(code)) : 0;
}
const char *dm_dtype_name(dm_dtype dtype) {
    const int code = dm::enum_value(dtype);
    return dm::dtype_valid(code) ? dm::dtype_name(static_cast<dm_dtype>(code)) : "invalid";
}
int dm_dtype_mpi(dm_dtype dtype, MPI_Datatype *out) {
    return dm::c_boundary(__func__, [&] {
        if (!out) dm::fail(DM_ERR_ARG, "dm_dtype_mpi: out is NULL");
        *out = dm::dtype_mpi(dm::checked_dtype(dm::enum_value(dtype)));
    });
}
}
