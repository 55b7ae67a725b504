#include "redist/schedule.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <numeric>
#include <random>

namespace dm::redist {
namespace {

void check(int P, int K) {
    if (P < 1 || K < 1) fail(DM_ERR_ARG, "redist: schedules need P >= 1 and K >= 1 (got P = ", P, ", K = ", K, ")");
}

std::int64_t mod(std::int64_t a, std::int64_t m) { return ((a % m) + m) % m; }

// x with a * x = 1 (mod m), for coprime a and m (extended Euclid).
std::int64_t inverse(std::int64_t a, std::int64_t m) {
    std::int64_t r0 = mod(a, m), r1 = m, x0 = 1, x1 = 0;
    while (r1 != 0) {
        const std::int64_t q = r0 / r1;
        std::int64_t t = r0 - q * r1;
        r0 = r1, r1 = t;
        t = x0 - q * x1;
        x0 = x1, x1 = t;
    }
    return m == 1 ? 0 : mod(x0, m);
}

// Fills the process and local tables from the global ones.
void derive(Schedule &s) {
    const std::size_t n = static_cast<std::size_t>(s.P) * s.K;
    s.send_proc.resize(n), s.send_local.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.send_proc[i] = static_cast<int>((s.send_block[i] / s.K) % s.P);
        s.send_local[i] = static_cast<int>(s.send_block[i] / s.P);
    }
    if (s.recv_block.empty()) return;
    s.recv_proc.resize(n), s.recv_slot.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.recv_proc[i] = static_cast<int>(s.recv_block[i] % s.P);
        s.recv_slot[i] = static_cast<int>(s.recv_block[i] % s.K);
    }
}

}  // namespace

Schedule optimal_schedule(int P, int K) {
    check(P, K);
    Schedule s;
    s.P = P, s.K = K;
    const std::int64_t g = std::gcd(P, K), Pr = P / g, Kr = K / g;
    // The reduced system B' = q'K' + k' = b'P' + p' has, for coprime P' and K',
    // one solution B' in [0, P'K') per (k', p'): the Chinese remainder theorem.
    const std::int64_t toK = Pr * inverse(Pr, Kr), toP = Kr * inverse(Kr, Pr);
    const std::size_t n = static_cast<std::size_t>(P) * K;
    s.send_block.resize(n), s.recv_block.resize(n);
    for (int k = 0; k < K; ++k) {
        const std::int64_t kr = k / g, gamma = k % g;
        for (int p = 0; p < P; ++p) {
            const std::int64_t pr = p / g, alpha = p % g;
            const std::int64_t reduced = mod(kr * toK + pr * toP, Pr * Kr);
            const std::int64_t beta = mod(alpha - gamma, g);  // layout (a): Eqs. 9-10
            s.send_block[s.at(k, p)] = g * reduced + P * Kr * beta + alpha;  // Eq. 8
        }
        for (int q = 0; q < P; ++q)  // Eq. 11
            s.recv_block[s.at(k, q)] = std::int64_t(K) * q + g * (k / g) + mod(q / Pr + k % g, g);
    }
    derive(s);
    return s;
}

Schedule simple_schedule(int P, int K) {
    check(P, K);
    Schedule s;
    s.P = P, s.K = K;
    s.send_block.resize(static_cast<std::size_t>(P) * K);
    for (int k = 0; k < K; ++k)
        for (int p = 0; p < P; ++p) s.send_block[s.at(k, p)] = std::int64_t(k) * P + p;
    derive(s);
    return s;
}

Schedule random_schedule(int P, int K, std::uint64_t seed) {
    Schedule s = simple_schedule(P, K);
    std::mt19937_64 rng(seed);
    std::vector<int> order(K);
    for (int p = 0; p < P; ++p) {
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (int k = 0; k < K; ++k) s.send_block[s.at(k, p)] = std::int64_t(order[k]) * P + p;
    }
    derive(s);
    return s;
}

}  // namespace dm::redist
