// Kernels of the Paragon/SP2/CS-2 paper (Bokhari, 1995) that the other kernels do
// not cover: its exchange of many messages at once, also under contention (its
// Section 7), and memcpy at chosen offsets from a page boundary (its Section 4).
#pragma once

#include "bench/patterns.hpp"

#include <mpi.h>

#include <cstddef>
#include <vector>

namespace dm::bench {

// Collective on comm. Ranks 0 .. 2*pairs-1 form a chain and rank i exchanges with
// rank 2*pairs-1-i, so every pair's messages cross the middle of the chain (the
// paper's contention experiment: `pairs` messages share its middle link); the
// other ranks only synchronise. Each member posts `messages` receives from its
// partner, all ranks meet in a barrier, then each member sends `messages`
// messages of `bytes` to its partner at once (nonblocking) and waits for all.
// A sample is the slowest rank's time from the barrier to the last completion
// (so `messages` in flight between one pair is contention on that pair's path).
// With validate, every message (distinct per sender, message and repetition) is
// checked; a wrong byte fails on every rank.
std::vector<double> chain_exchange(MPI_Comm comm, int pairs, int messages, const PatternOptions &o);

// Local. memcpy of `bytes` from `src_offset` bytes past a 4096-byte aligned
// source to `dst_offset` bytes past a 4096-byte aligned destination (offsets
// 0 .. 4095); both buffers are touched first. A sample is the mean over `iters`
// copies. With validate, before each repetition the source gets fresh bytes and
// the destination a guard pattern, and after it every copied byte and the guard
// bytes around the copy are checked (DM_ERR_INTERNAL on the first wrong one).
std::vector<double> memcpy_offsets(std::size_t bytes, int src_offset, int dst_offset, int reps, int warmup, int iters,
                                   bool validate);

}  // namespace dm::bench
