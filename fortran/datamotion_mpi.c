/*
 * The MPI side of the Fortran module: communicators cross from Fortran as MPI's
 * Fortran handles (MPI_Fint: an `integer` of `use mpi`, comm%MPI_VAL of
 * `use mpi_f08`) and become C handles here with MPI_Comm_f2c, which is part of
 * MPI's C library; so the module needs no MPI Fortran bindings at all.
 *
 * The dmf_mpi_* helpers let a Fortran program that has no MPI Fortran bindings
 * (such as the PyPI mpich wheel's) start MPI, reach MPI_COMM_WORLD and agree on
 * a result. Their status is MPI's return code.
 */
#include <datamotion/datamotion.h>

int dmf_grid_create(MPI_Fint comm, int ndims, const int dims[], const int periods[], dm_grid_order order,
                    dm_grid *grid)
{
    return dm_grid_create(MPI_Comm_f2c(comm), ndims, dims, periods, order, grid);
}

int dmf_redist_pgemr2d(int m, int n, const double *a, int ia, int ja, const int desca[9], double *b, int ib, int jb,
                       const int descb[9], MPI_Fint comm)
{
    return dm_redist_pgemr2d(m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm));
}

int dmf_redist_gemr2d(dm_dtype dtype, int m, int n, const void *a, int ia, int ja, const int desca[9], void *b, int ib,
                      int jb, const int descb[9], MPI_Fint comm)
{
    return dm_redist_gemr2d(dtype, m, n, a, ia, ja, desca, b, ib, jb, descb, MPI_Comm_f2c(comm));
}

int dmf_mpi_init(void)
{
    int initialized = 0;
    int status = MPI_Initialized(&initialized);
    if (status != MPI_SUCCESS || initialized) return status;
    return MPI_Init(NULL, NULL);
}

int dmf_mpi_finalize(void) { return MPI_Finalize(); }

MPI_Fint dmf_comm_world(void) { return MPI_Comm_c2f(MPI_COMM_WORLD); }

int dmf_comm_rank(MPI_Fint comm, int *rank) { return MPI_Comm_rank(MPI_Comm_f2c(comm), rank); }

int dmf_comm_size(MPI_Fint comm, int *size) { return MPI_Comm_size(MPI_Comm_f2c(comm), size); }

/* *all = 1 when `flag` is nonzero on every rank of comm, else 0. */
int dmf_all(MPI_Fint comm, int flag, int *all)
{
    int local = flag != 0;
    return MPI_Allreduce(&local, all, 1, MPI_INT, MPI_LAND, MPI_Comm_f2c(comm));
}
