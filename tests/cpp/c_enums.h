/* Calls of the C API with any integer where it takes an enum, made from C.
 * C allows any int value in an enum object; C++ code cannot even form a value
 * outside the enumerators' range without undefined behaviour, so the tests pass
 * bad enum values through these wrappers (c_enums.c), as a C caller would. */
#ifndef DATAMOTION_TESTS_C_ENUMS_H
#define DATAMOTION_TESTS_C_ENUMS_H

#include <datamotion/datamotion.h>

#ifdef __cplusplus
extern "C" {
#endif

size_t dmtest_dtype_size(int dtype);
const char *dmtest_dtype_name(int dtype);
int dmtest_dtype_mpi(int dtype, MPI_Datatype *out);
int dmtest_grid_create(MPI_Comm comm, int ndims, int order, dm_grid *grid);
/* dm_array_create with Block on every axis but axis 0, whose kind is `kind0`. */
int dmtest_array_create(dm_grid grid, int dtype, int ndims, const int64_t shape[], int kind0, dm_array *array);
int dmtest_dist_to_local(int kind, int64_t n, int nprocs, int64_t g, int *coord, int64_t *local);
int dmtest_pshift_setup(dm_array prototype, int kind, int axis, int64_t shift, int boundary, dm_pshift *plan);
int dmtest_redist_setup(dm_array src, dm_array dst, int method, dm_redist *plan);

#ifdef __cplusplus
}
#endif

#endif
