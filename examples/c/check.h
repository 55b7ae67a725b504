/*
 * check.h — the error check the C examples use: every datamotion call returns a
 * status, and collective calls fail on all ranks alike, so aborting is safe.
 */
#ifndef DATAMOTION_EXAMPLES_CHECK_H
#define DATAMOTION_EXAMPLES_CHECK_H

#include <datamotion/datamotion.h>

#include <stdio.h>

#define DM_CHECK(call)                                                              \
    do {                                                                            \
        int status_ = (call);                                                       \
        if (status_ != DM_OK) {                                                     \
            fprintf(stderr, "%s failed: %s (%s)\n", #call, dm_last_error_message(), \
                    dm_status_name(status_));                                       \
            MPI_Abort(MPI_COMM_WORLD, 1);                                           \
        }                                                                           \
    } while (0)

#endif /* DATAMOTION_EXAMPLES_CHECK_H */
