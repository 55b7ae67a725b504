/* The definitions of OSU 7.4's osu_latency, osu_bw, osu_barrier and
 * osu_allreduce, written here from their documented behaviour, for a machine
 * without OSU: benchmarks/osu_side_by_side.py compares datamotion's kernels with
 * this program when no OSU binaries are given.
 *
 *   mpiexec -n 2 osu_definitions latency|bw|barrier|allreduce [BYTES ...]
 *
 * Prints one line per size: "<kind> <bytes> <value>", the value in microseconds
 * (latency, barrier, allreduce) or MB/s = 1e6 bytes/s (bw). Counts as OSU 7.4:
 * messages up to 8192 bytes take the small counts, longer ones the large.
 *   latency    rank 0 sends, rank 1 answers (blocking), each rank sending from
 *              one buffer and receiving into another; skip 100 / 10, then
 *              10000 / 1000 round trips timed; one-way time = elapsed / (2 n)
 *   bw         rank 0 posts 64 nonblocking sends of one buffer, rank 1 64
 *              receives into one buffer (as OSU does), then
 *              a one-byte acknowledgement; skip 10 / 2, then 100 / 20 windows
 *              timed; bw = bytes * 64 * n / elapsed
 *   barrier    skip 100, then 1000 back-to-back barriers; each rank's mean,
 *              averaged over ranks
 *   allreduce  a sum of BYTES chars (OSU's default type); skip 100 / 10, then
 *              1000 / 100 calls, each timed alone and followed by an untimed
 *              barrier; each rank's mean, averaged over ranks
 */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { LARGE_MESSAGE = 8192, WINDOW = 64 };

static int rank, size;

static void *alloc(size_t n) {
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "osu_definitions: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(p, rank + 1, n);
    return p;
}

static double mean_over_ranks(double seconds) {
    double sum = 0;
    MPI_Allreduce(&seconds, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    return sum / size;
}

static double latency_us(int bytes) {
    const int large = bytes > LARGE_MESSAGE, skip = large ? 10 : 100, n = large ? 1000 : 10000;
    char *out = alloc((size_t)bytes), *in = alloc((size_t)bytes);
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + n; ++i) {
        if (i == skip) t0 = MPI_Wtime();
        if (rank == 0) {
            MPI_Send(out, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(in, bytes, MPI_CHAR, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(in, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(out, bytes, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
        }
    }
    const double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * n);
    free(out);
    free(in);
    return us;
}

static double bandwidth_MBps(int bytes) {
    const int large = bytes > LARGE_MESSAGE, skip = large ? 2 : 10, n = large ? 20 : 100;
    char *out = alloc((size_t)bytes), *in = alloc((size_t)bytes), ack = 0;
    MPI_Request requests[WINDOW];
    double t0 = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + n; ++i) {
        if (i == skip) t0 = MPI_Wtime();
        if (rank == 0) {
            for (int w = 0; w < WINDOW; ++w) MPI_Isend(out, bytes, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &requests[w]);
            MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
            MPI_Recv(&ack, 1, MPI_CHAR, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            for (int w = 0; w < WINDOW; ++w)
                MPI_Irecv(in, bytes, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &requests[w]);
            MPI_Waitall(WINDOW, requests, MPI_STATUSES_IGNORE);
            MPI_Send(&ack, 1, MPI_CHAR, 0, 101, MPI_COMM_WORLD);
        }
    }
    const double seconds = MPI_Wtime() - t0;
    free(out);
    free(in);
    return (double)bytes * WINDOW * n / seconds / 1e6;
}

static double barrier_us(void) {
    const int skip = 100, n = 1000;
    double t0 = 0;
    for (int i = 0; i < skip + n; ++i) {
        if (i == skip) t0 = MPI_Wtime();
        MPI_Barrier(MPI_COMM_WORLD);
    }
    return mean_over_ranks((MPI_Wtime() - t0) / n) * 1e6;
}

static double allreduce_us(int bytes) {
    const int large = bytes > LARGE_MESSAGE, skip = large ? 10 : 100, n = large ? 100 : 1000;
    signed char *in = alloc((size_t)bytes), *out = alloc((size_t)bytes);
    double busy = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < skip + n; ++i) {
        const double t0 = MPI_Wtime();
        MPI_Allreduce(in, out, bytes, MPI_SIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD);
        if (i >= skip) busy += MPI_Wtime() - t0;
        MPI_Barrier(MPI_COMM_WORLD);
    }
    free(in);
    free(out);
    return mean_over_ranks(busy / n) * 1e6;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *kind = argc > 1 ? argv[1] : "";
    const int pair = !strcmp(kind, "latency") || !strcmp(kind, "bw");
    if ((!pair && strcmp(kind, "barrier") && strcmp(kind, "allreduce")) || (pair && size < 2)) {
        if (rank == 0)
            fprintf(stderr, "usage: mpiexec -n 2 %s latency|bw|barrier|allreduce [BYTES ...] (2 ranks for "
                            "latency and bw)\n", argv[0]);
        MPI_Finalize();
        return 2;
    }
    if (!strcmp(kind, "barrier")) {
        const double us = barrier_us();
        if (rank == 0) printf("barrier 0 %.3f\n", us);
    }
    for (int a = 2; a < argc; ++a) {
        const int bytes = atoi(argv[a]);
        double value = 0;
        if (!strcmp(kind, "latency")) value = latency_us(bytes);
        else if (!strcmp(kind, "bw")) value = bandwidth_MBps(bytes);
        else if (!strcmp(kind, "allreduce")) value = allreduce_us(bytes);
        else continue;
        if (rank == 0) printf("%s %d %.3f\n", kind, bytes, value);
    }
    MPI_Finalize();
    return 0;
}
