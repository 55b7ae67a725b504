// What the drop-in's entries share: BLACS's C interface and ScaLAPACK's error
// reporter (from the program's ScaLAPACK, resolved when the program links it;
// built with ScaLAPACK's default int), where each process sits on a grid, and
// arguments checked as ScaLAPACK numbers them.
#pragma once

#include <datamotion/redist.h>

#include <mpi.h>

#include <cstddef>

extern "C" {
void Cblacs_gridinfo(int ctxt, int *nprow, int *npcol, int *myrow, int *mycol);
void Cblacs_get(int ctxt, int what, int *val);
MPI_Comm Cblacs2sys_handle(int handle);
void Cblacs_abort(int ctxt, int error);
void pxerbla_(const int *ictxt, const char *name, const int *info, std::size_t name_length);
}

#define DM_SCALAPACK_API extern "C" __attribute__((visibility("default")))

namespace dm::scalapack {

// The communicator of a BLACS context: the grid's own (every process on it).
MPI_Comm communicator_of(int ictxt);
// Every BLACS process: the system context BLACS was started on.
MPI_Comm every_process();
// Where this process sits on the grid of a descriptor's context (off it: -1s).
dm_grid_place place_of(const int *desc);

// One matrix's arguments as ScaLAPACK checks them, on a process of its grid: the
// number of the first bad one (a descriptor entry: 100 * position + entry), or 0.
// `rows` x `cols` at (i, j); `position`: the descriptor's argument number, the
// matrix, its row and column offsets being the three before it.
int bad_argument(int rows, int cols, const void *data, int i, int j, const int *desc, const dm_grid_place &place,
                 int position);

// Collective on comm: the smallest bad argument number any process found (its own
// `info`, 0 if none), reported by PXERBLA on the processes that found it; 0 when
// every argument is good. `offsets` (ia, ja, ib, jb), read on the processes of A's
// grid (the first two) and of B's (the last two), come back as those processes
// have them, as ScaLAPACK takes them.
int agree_arguments(const char *name, int ictxt, MPI_Comm comm, int info, const dm_grid_place &a,
                    const dm_grid_place &b, int offsets[4]);

// After datamotion's call: a failure other than a bad argument (ranks that
// disagree, MPI errors) ends the job through Cblacs_abort, as ScaLAPACK's own
// routines end it, with datamotion's message on the first process.
void end_on_failure(const char *name, int status, int ictxt, MPI_Comm comm);

}  // namespace dm::scalapack
