// Element types: size, name and the MPI datatype that moves them.
#pragma once

#include <datamotion/core.h>

#include <cstddef>
#include <string>

namespace dm {

bool dtype_valid(int dtype) noexcept;

// Throws DM_ERR_TYPE for an invalid type.
std::size_t dtype_size(dm_dtype dtype);
const char *dtype_name(dm_dtype dtype) noexcept;
MPI_Datatype dtype_mpi(dm_dtype dtype);

// Writes the value 1 of `dtype` (1, 1.0, 1+0i, true) to `out` (dtype_size bytes).
void dtype_one(dm_dtype dtype, void *out);

// Checks a type code coming from outside (C caller, Python) and returns it as dm_dtype.
dm_dtype checked_dtype(int dtype);

}  // namespace dm
