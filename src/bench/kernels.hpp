// Measurement kernels: each returns raw per-repetition samples (seconds), so
// summaries, confidence intervals and fits happen above, on the same data.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dm::bench {

// A sample is the mean over `iters` operations timed as one block, after
// `warmup` unrecorded operations: with the counts of OSU 7.4 (chosen in Python,
// datamotion.measure.stats.osu_rules) a median of samples compares with OSU's average.
struct PairOptions {
    int a = 0, b = 1;                // the two ranks of the pair
    std::size_t bytes = 0;           // message size
    int reps = 10;                   // samples
    int warmup = 100;                // unrecorded operations first (OSU's "skip")
    int iters = 1;                   // operations per sample (the sample is their mean)
    int window = 64;                 // messages in flight (stream, bidir); osu_bw's window
    bool validate = false;           // fill, check and fail on a wrong byte
    std::int64_t corrupt_byte = -1;  // tests only: with validate, flip this received byte before the check
};

// Collective on comm; ranks other than a and b only synchronise. On a and b the
// samples are the one-way time of a blocking ping-pong (round trip / 2), each
// rank sending from one buffer and receiving into another (osu_latency).
std::vector<double> pingpong(MPI_Comm comm, const PairOptions &o);

// The Paragon paper's nonblocking exchange: both post the receive, barrier, send,
// wait, barrier; a sample is one exchange's time without the barriers (iters
// is not used: the barriers around each exchange are the definition).
std::vector<double> exchange(MPI_Comm comm, const PairOptions &o);

// Streaming (osu_bw): a sends `window` nonblocking messages, b receives them
// into one buffer, as osu_bw does (into distinct buffers with validate, to check
// each), and answers with a one-byte acknowledgement; a sample is the time per
// message, `iters` windows timed as one block.
std::vector<double> stream(MPI_Comm comm, const PairOptions &o);

// Bidirectional streaming: both send `window` messages to each other at once.
std::vector<double> bidirectional(MPI_Comm comm, const PairOptions &o);

// Options of the collective kernels; the fields mean what PairOptions' do.
struct CollectiveOptions {
    std::size_t bytes = 0;
    int reps = 10;
    int warmup = 100;
    int iters = 1;
    bool validate = false;
    std::int64_t corrupt_byte = -1;  // tests only: a byte of what the rank receives
};

// Collective on comm. A sample is the mean over ranks of each rank's mean time
// of `iters` back-to-back MPI_Barrier calls (osu_barrier's definition).
std::vector<double> barrier(MPI_Comm comm, int reps, int warmup, int iters);

// Collective on comm. A sample is the mean over ranks of each rank's mean time
// of `iters` calls of one collective, each followed by an untimed barrier
// (osu_allreduce's definition): "bcast" (bytes from rank 0), "reduce" and
// "allreduce" (sums of bytes / 8 doubles), "scan" and "exscan" (prefix sums of
// them), "allgather" (bytes from every rank), "alltoall" (bytes from every rank
// to every rank).
std::vector<double> collective_op(MPI_Comm comm, const std::string &op, const CollectiveOptions &o);

// Collective on comm. A sample is the slowest rank's time of one exclusive
// segmented scan (the CM-5 paper's section 6.1) over a distributed vector of
// `dtype` ("int64" or "float64") with `op` ("add", "max" or "min"): each rank
// owns bytes / 8 elements in rank order, and a segment starts at every global
// index that is a multiple of `segment_length`, so segments span ranks. One
// MPI_Exscan of (value, segment started) pairs carries each rank's tail into
// the next; a local pass finishes. With `validate` every result is compared
// with a serial scan of the same input.
std::vector<double> segmented_scan(MPI_Comm comm, const std::string &dtype, const std::string &op, std::size_t bytes,
                                   std::int64_t segment_length, int reps, int warmup, bool validate);

}  // namespace dm::bench
