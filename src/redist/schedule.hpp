// Contention-free communication schedules for expanding a block-cyclic block
// size by an integer factor K on P processes (Walker and Otto, 1996, Eqs. 5-11).
//
// A superblock is P*K consecutive blocks of size r. In each of K phases every
// process sends one block position of every superblock to exactly one process
// and receives one from exactly one, so no process is a hot spot and the phases
// need no buffering beyond the data itself.
#pragma once

#include <cstdint>
#include <vector>

namespace dm::redist {

// K x P tables, row-major: entry (k, p) at [k * P + p].
struct Schedule {
    int P = 1, K = 1;
    std::vector<std::int64_t> send_block;  // B(k, p): global block (within a superblock) p sends in phase k
    std::vector<int> send_proc;            // q(k, p) = floor(B / K) mod P: where it goes
    std::vector<int> send_local;           // b(k, p) = floor(B / P): its local block index on p
    std::vector<std::int64_t> recv_block;  // C(k, q): global block q receives in phase k
    std::vector<int> recv_proc;            // p(k, q) = C mod P: where it comes from
    std::vector<int> recv_slot;            // t(k, q) = C mod K: the slot of q's expanded block it fills

    std::size_t at(int k, int p) const { return static_cast<std::size_t>(k) * P + p; }
};

// The optimal schedule (layout (a) of the permutation blocks, Eqs. 8-11).
// Throws DM_ERR_ARG unless P >= 1 and K >= 1.
Schedule optimal_schedule(int P, int K);

// The simple schedule of the nonblocking algorithms: B(k, p) = k P + p (Eq. 2).
// Receivers learn their sources from the data, so only the send tables are set.
Schedule simple_schedule(int P, int K);

// A random send order: each process sends its K local blocks in an order drawn
// from `seed` (the same on every process), as in the paper's Section 2.2.2.
Schedule random_schedule(int P, int K, std::uint64_t seed);

}  // namespace dm::redist
