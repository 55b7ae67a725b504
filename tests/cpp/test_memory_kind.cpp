// A memory kind is one file plus one registration (docs/architecture.md): this file
// is that file. "scrambled" is host memory in which the byte at address a holds its
// value XOR-ed with a hash of a, so that any byte moved without the kind's kernels
// (a host copy, MPI reading or writing it, a peer reading it in place) arrives
// wrong; its kernels also count the bytes they move. Plans over scrambled slots, and
// over slots of both kinds, are checked at any rank count with every executor: the
// data against an oracle, and the counts against what the plan sends, receives and
// copies, so that every byte went through the kind's kernels.
#include "harness.hpp"

#include "array/dist_array.hpp"
#include "core/error.hpp"
#include "core/memory_kind.hpp"
#include "exchange/block.hpp"
#include "exchange/memory_kind.hpp"
#include "exchange/plan.hpp"
#include "layout/grid.hpp"
#include "redist/plan.hpp"
#include "shift/halo.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace {

using dm::MemoryKind;
using dm::exchange::Block;

// The kind: what its bytes hold, its kernels, and the bytes each kernel moved.
std::byte key(const std::byte *at) {
    const auto a = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(at));
    return static_cast<std::byte>((a * 0x9E3779B97F4A7C15ull) >> 56);
}
std::byte read(const std::byte *at) { return *at ^ key(at); }
void write(std::byte *at, std::byte value) { *at = value ^ key(at); }

struct Counts {
    std::int64_t packed = 0, unpacked = 0, copied = 0;
};
Counts counts;

std::byte *pack(std::byte *out, const std::byte *base, const Block &b) {
    dm::exchange::for_each_run(b, [&](std::int64_t at) {
        for (std::int64_t i = 0; i < b.run; ++i) *out++ = read(base + at + i);
    });
    counts.packed += b.bytes();
    return out;
}

const std::byte *unpack(std::byte *base, const Block &b, const std::byte *in) {
    dm::exchange::for_each_run(b, [&](std::int64_t at) {
        for (std::int64_t i = 0; i < b.run; ++i) write(base + at + i, *in++);
    });
    counts.unpacked += b.bytes();
    return in;
}

void copy(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from) {
    std::vector<std::int64_t> from_runs;
    dm::exchange::for_each_run(from, [&](std::int64_t at) { from_runs.push_back(at); });
    std::size_t k = 0;
    dm::exchange::for_each_run(to, [&](std::int64_t at) {
        for (std::int64_t i = 0; i < to.run; ++i) write(to_base + at + i, read(from_base + from_runs[k] + i));
        ++k;
    });
    counts.copied += to.bytes();
}

void *allocate(std::size_t bytes) {  // zero-filled: zeros as the kind stores them
    auto *p = static_cast<std::byte *>(std::malloc(bytes));
    for (std::size_t i = 0; p && i < bytes; ++i) write(p + i, std::byte{0});
    return p;
}

// The one registration.
MemoryKind scrambled() {
    static const MemoryKind kind = dm::exchange::register_memory_kind({"scrambled", {pack, unpack, copy}, allocate, std::free});
    return kind;
}

// The plan: every rank sends every other rank bytes_to(r, q) bytes as runs of 3
// bytes 5 apart, or (`contiguous`) as one run, from slot 0, and receives them as
// runs of 2 bytes 4 apart into slot 1; and copies 12 bytes from slot 0 to slot 1
// without MPI, as runs of 4 bytes 6 apart there and 8 apart here.
std::int64_t bytes_to(int from, int to) { return 6 * (1 + (from + 2 * to) % 4); }
std::byte byte_of(int from, int to, std::int64_t at) {
    return static_cast<std::byte>((from * 131 + to * 17 + at * 7 + 1) & 0xff);
}
constexpr std::int64_t kCopied = 12;

struct Ring {
    std::vector<std::int64_t> sent_at, received_at;  // per peer: the first byte's offset
    std::int64_t source_bytes = 0, target_bytes = 0, copy_from = 0, copy_to = 0;
    std::int64_t sent = 0, received = 0;  // bytes, excluding the copy
};

std::int64_t sent_offset(const Ring &ring, int q, std::int64_t i, bool contiguous) {
    return ring.sent_at[static_cast<std::size_t>(q)] + (contiguous ? i : i / 3 * 5 + i % 3);
}
std::int64_t received_offset(const Ring &ring, int q, std::int64_t i) {
    return ring.received_at[static_cast<std::size_t>(q)] + i / 2 * 4 + i % 2;
}
std::int64_t copied_offset(std::int64_t first, std::int64_t stride, std::int64_t i) { return first + i / 4 * stride + i % 4; }

std::unique_ptr<dm::exchange::Plan> ring_plan(Ring &ring, const char *executor, bool contiguous,
                                              std::vector<MemoryKind> kinds, bool read_before_write = false) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    auto plan = std::make_unique<dm::exchange::Plan>(MPI_COMM_WORLD, 2, "memory kind test");
    ring.sent_at.assign(static_cast<std::size_t>(p), 0), ring.received_at.assign(static_cast<std::size_t>(p), 0);
    std::int64_t out = 0, in = 0;
    for (int q = 0; q < p; ++q) {
        if (q == me) continue;
        Block send;
        send.slot = 0, send.offset = out;
        if (contiguous) {
            send.run = bytes_to(me, q);
        } else {
            send.levels = 1, send.run = 3, send.count[0] = bytes_to(me, q) / 3, send.stride[0] = 5;
        }
        ring.sent_at[static_cast<std::size_t>(q)] = out;
        out += contiguous ? send.run : 5 * send.count[0];
        Block recv;
        recv.slot = 1, recv.levels = 1, recv.run = 2, recv.offset = in, recv.count[0] = bytes_to(q, me) / 2;
        recv.stride[0] = 4;
        ring.received_at[static_cast<std::size_t>(q)] = in;
        in += 4 * recv.count[0];
        plan->send(q, send);
        plan->recv(q, recv);
        ring.sent += send.bytes(), ring.received += recv.bytes();
    }
    dm::exchange::Copy c;  // both sides: the same run and counts
    c.from.slot = 0, c.from.levels = 1, c.from.run = 4, c.from.count[0] = kCopied / 4, c.from.stride[0] = 6;
    c.to = c.from;
    c.to.slot = 1, c.to.stride[0] = 8;
    ring.copy_from = c.from.offset = out, ring.copy_to = c.to.offset = in;
    plan->copy(c);
    ring.source_bytes = out + 6 * (kCopied / 4), ring.target_bytes = in + 8 * (kCopied / 4);
    plan->finish({dm::exchange::executor_named(executor), read_before_write, std::move(kinds)});
    return plan;
}

// A buffer of one kind: its bytes, read and written as that kind stores them.
struct Buffer {
    MemoryKind kind;
    std::vector<std::byte> bytes;
    Buffer(MemoryKind k, std::int64_t n) : kind(k), bytes(static_cast<std::size_t>(std::max<std::int64_t>(n, 1))) {
        for (std::int64_t i = 0; i < n; ++i) set(i, std::byte{0});
    }
    void set(std::int64_t i, std::byte v) {
        std::byte *at = bytes.data() + i;
        if (kind == MemoryKind::Host) *at = v;
        else write(at, v);
    }
    std::byte get(std::int64_t i) const {
        const std::byte *at = bytes.data() + i;
        return kind == MemoryKind::Host ? *at : read(at);
    }
};

void fill(const Ring &ring, Buffer &source, bool contiguous) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    for (int q = 0; q < p; ++q)
        for (std::int64_t i = 0; q != me && i < bytes_to(me, q); ++i)
            source.set(sent_offset(ring, q, i, contiguous), byte_of(me, q, i));
    for (std::int64_t i = 0; i < kCopied; ++i) source.set(copied_offset(ring.copy_from, 6, i), byte_of(me, me, i));
}

bool arrived(const Ring &ring, const Buffer &target) {
    const int me = dmtest::world_rank(), p = dmtest::world_size();
    bool right = true;
    for (int q = 0; q < p; ++q)
        for (std::int64_t i = 0; q != me && i < bytes_to(q, me); ++i)
            right = right && target.get(received_offset(ring, q, i)) == byte_of(q, me, i);
    for (std::int64_t i = 0; i < kCopied; ++i)
        right = right && target.get(copied_offset(ring.copy_to, 8, i)) == byte_of(me, me, i);
    return right;
}

const char *const kExecutors[] = {"auto", "pack", "datatype", "hybrid", "onnode", "aggregate"};

}  // namespace

DM_TEST(a_registered_kind_has_a_name_and_kernels) {
    const MemoryKind kind = scrambled();
    CHECK(kind != MemoryKind::Host);
    CHECK(dm::memory::named("scrambled") == kind);
    CHECK_TEXT(dm::memory::info(kind).name, "scrambled");
    CHECK(dm::exchange::kernels_of(kind).pack == pack);
    CHECK(dm::exchange::kernels_of(MemoryKind::Host).pack == dm::exchange::pack);
    auto code_of = [](auto &&call) {
        try {
            call();
        } catch (const dm::Error &e) {
            return e.code();
        }
        return static_cast<int>(DM_OK);
    };
    for (const char *taken : {"scrambled", "host", ""})
        CHECK_EQ(code_of([&] { dm::exchange::register_memory_kind({taken, {pack, unpack, copy}}); }), DM_ERR_ARG);
    CHECK_EQ(code_of([] { dm::exchange::register_memory_kind({"no copy", {pack, unpack, nullptr}}); }), DM_ERR_ARG);
    CHECK_EQ(code_of([] { dm::memory::named("device"); }), DM_ERR_ARG);
    CHECK_EQ(code_of([] { dm::memory::info(static_cast<MemoryKind>(99)); }), DM_ERR_ARG);
    // A plan's kinds: one per slot.
    CHECK_EQ(code_of([] { dm::exchange::SlotKinds({MemoryKind::Host}, 2, "test"); }), DM_ERR_ARG);
}

DM_TEST(every_byte_of_a_scrambled_slot_goes_through_its_kernels) {
    const MemoryKind s = scrambled(), h = MemoryKind::Host;
    const int p = dmtest::world_size();
    for (const char *executor : kExecutors)
        for (bool contiguous : {false, true})
            for (const std::vector<MemoryKind> &kinds : {std::vector<MemoryKind>{s, s}, {h, s}, {s, h}}) {
                Ring ring;
                std::unique_ptr<dm::exchange::Plan> plan = ring_plan(ring, executor, contiguous, kinds);
                for (const dm::exchange::MessageShape &m : plan->messages()) {
                    if (m.peer < 0) continue;
                    CHECK(std::string(m.transport) != "onnode");  // never read in place
                    // The scrambled side of every message is packed by its kernels.
                    if (kinds[m.sending ? 0 : 1] == s) CHECK_TEXT(m.way, std::string(m.transport) == "aggregate" ? "" : "packed");
                }
                CHECK(plan->describe().find("memory: slot 0 " + std::string(kinds[0] == s ? "scrambled" : "host")) !=
                      std::string::npos);
                Buffer source(kinds[0], ring.source_bytes), target(kinds[1], ring.target_bytes);
                for (int pass = 0; pass < 2; ++pass) {  // reused, then split phase
                    fill(ring, source, contiguous);
                    counts = Counts{};
                    const void *slots[2] = {source.bytes.data(), target.bytes.data()};
                    plan->begin(slots);
                    if (pass == 1)
                        while (!plan->test()) {
                        }
                    plan->end();
                    CHECK(arrived(ring, target));
                    // What the kind's kernels moved: the sends from a scrambled source, the
                    // receives into a scrambled target, and the copy (between two kinds:
                    // packed by one, unpacked by the other).
                    const bool from = kinds[0] == s, to = kinds[1] == s;
                    CHECK_EQ(counts.packed, (from ? ring.sent : 0) + (from && !to ? kCopied : 0));
                    CHECK_EQ(counts.unpacked, (to ? ring.received : 0) + (to && !from ? kCopied : 0));
                    CHECK_EQ(counts.copied, from && to ? kCopied : 0);
                }
                CHECK(p > 1 || ring.sent == 0);
            }
}

DM_TEST(aliased_scrambled_slots_are_staged_through_the_kernels) {
    const MemoryKind s = scrambled();
    for (const char *executor : {"auto", "pack", "aggregate"}) {
        Ring ring;
        std::unique_ptr<dm::exchange::Plan> plan = ring_plan(ring, executor, false, {s, s}, true);
        Buffer source(s, ring.source_bytes), both(s, std::max(ring.source_bytes, ring.target_bytes));
        fill(ring, source, false);
        for (std::int64_t i = 0; i < ring.source_bytes; ++i) both.set(i, source.get(i));
        counts = Counts{};
        const void *slots[2] = {both.bytes.data(), both.bytes.data()};
        plan->begin(slots);
        plan->end();
        CHECK(arrived(ring, both));
        // Every byte read into the stage before any is written, and written from it.
        CHECK_EQ(counts.packed, ring.sent + kCopied);
        CHECK_EQ(counts.unpacked, ring.received + kCopied);
        CHECK_EQ(counts.copied, 0);
    }
}

DM_TEST(alltoallw_refuses_memory_other_than_host) {
    int code = DM_OK;
    try {
        Ring ring;
        ring_plan(ring, "alltoallw", false, {scrambled(), MemoryKind::Host});
    } catch (const dm::Error &e) {
        code = e.code();
        CHECK(std::string(e.what()).find("host memory only") != std::string::npos);
    }
    CHECK_EQ(code, DM_ERR_ARG);
}

DM_TEST(arrays_carry_their_memory_kind) {
    const MemoryKind s = scrambled();
    auto grid = std::make_shared<const dm::layout::ProcessGrid>(MPI_COMM_WORLD, std::vector<int>{0},
                                                                std::vector<int>{1}, DM_ORDER_SEND);
    const std::vector<std::int64_t> shape{4 * dmtest::world_size()};
    dm::array::Storage kind_storage;
    kind_storage.kind = s;
    dm::array::DistArray mine(grid, DM_INT32, shape, {}, {1}, kind_storage);  // the kind's allocator
    dm::array::DistArray host(grid, DM_INT32, shape, {}, {1});
    CHECK(mine.memory_kind() == s);
    CHECK(host.memory_kind() == MemoryKind::Host);
    const auto bytes = static_cast<std::int64_t>(6 * sizeof(std::int32_t));  // 4 owned, 2 ghosts
    bool zero = true;
    for (std::int64_t i = 0; i < bytes; ++i) zero = zero && read(mine.storage() + i) == std::byte{0};
    CHECK(zero);
    // A plan made for one kind refuses an array of another.
    CHECK(!(mine.layout_key() == host.layout_key()));
    CHECK_TEXT(dm::array::DistArray::layout_difference(host.layout_key(), mine.layout_key()),
               "memory kind host expected, scrambled given");
    // Adopted memory of the kind.
    std::vector<std::int32_t> memory(6);
    dm::array::Storage adopted;
    adopted.adopt = true, adopted.memory = memory.data(), adopted.bytes = bytes, adopted.kind = s;
    dm::array::DistArray borrowed(grid, DM_INT32, shape, {}, {1}, adopted);
    CHECK(borrowed.memory_kind() == s && borrowed.adopted());
    // Scatter and gather move host memory: refused on every rank alike.
    int code = DM_OK;
    std::vector<std::int32_t> global(static_cast<std::size_t>(shape[0]));
    try {
        mine.scatter(global.data(), DM_ALL_RANKS);
    } catch (const dm::Error &e) {
        code = e.code();
        CHECK(std::string(e.what()).find("scrambled memory") != std::string::npos);
    }
    CHECK_EQ(code, DM_ERR_ARG);
}

// Element k of int32 storage in memory of `kind` (scrambled or host), written and read
// as the kind stores it.
void put_int(std::byte *storage, MemoryKind kind, std::int64_t k, std::int32_t v) {
    std::byte *at = storage + k * static_cast<std::int64_t>(sizeof v);
    for (std::size_t i = 0; i < sizeof v; ++i) {
        const std::byte b = reinterpret_cast<const std::byte *>(&v)[i];
        if (kind == MemoryKind::Host) at[i] = b;
        else write(at + i, b);
    }
}
std::int32_t get_int(const std::byte *storage, MemoryKind kind, std::int64_t k) {
    const std::byte *at = storage + k * static_cast<std::int64_t>(sizeof(std::int32_t));
    std::int32_t v = 0;
    for (std::size_t i = 0; i < sizeof v; ++i)
        reinterpret_cast<std::byte *>(&v)[i] = kind == MemoryKind::Host ? at[i] : read(at + i);
    return v;
}

// A capability hands its arrays' kind to its plan: a halo exchange over a scrambled
// array fills the ghosts through the kind's kernels, under every executor.
DM_TEST(a_halo_over_an_array_of_the_kind) {
    const MemoryKind s = scrambled();
    const int p = dmtest::world_size(), r = dmtest::world_rank();
    auto grid = std::make_shared<const dm::layout::ProcessGrid>(MPI_COMM_WORLD, std::vector<int>{0},
                                                                std::vector<int>{1}, DM_ORDER_SEND);
    dm::array::Storage storage;
    storage.kind = s;
    dm::array::DistArray a(grid, DM_INT32, {4 * std::int64_t{p}}, {}, {1}, storage);
    auto put = [&](int k, std::int32_t v) { put_int(a.storage(), s, k, v); };
    auto get = [&](int k) { return get_int(a.storage(), s, k); };
    for (const std::string &name : dm::exchange::executor_names(true)) {
        for (int i = 0; i < 4; ++i) put(1 + i, 4 * r + i);  // storage: ghost, 4 owned, ghost
        put(0, -1), put(5, -1);
        dm::shift::HaloPlan halo(a, false, dm::exchange::executor_named(name));
        halo.exchange(a);
        CHECK_EQ(get(0), 4 * ((r + p - 1) % p) + 3);
        CHECK_EQ(get(5), 4 * ((r + 1) % p));
        for (int i = 0; i < 4; ++i) CHECK_EQ(get(1 + i), 4 * r + i);
    }
}

// Redistribution too, between arrays of the kind and of host memory, by every
// method that runs on point to point and under every executor.
DM_TEST(a_redistribution_between_arrays_of_the_kind) {
    const MemoryKind s = scrambled();
    const int p = dmtest::world_size();
    auto grid = std::make_shared<const dm::layout::ProcessGrid>(MPI_COMM_WORLD, std::vector<int>{0},
                                                                std::vector<int>{0}, DM_ORDER_SEND);
    const std::int64_t n = 5 * std::int64_t{p} + 3;
    dm::array::Storage scrambled_storage;
    scrambled_storage.kind = s;
    const std::pair<MemoryKind, MemoryKind> pairs[] = {{s, s}, {MemoryKind::Host, s}, {s, MemoryKind::Host}};
    for (const auto &[from_kind, to_kind] : pairs)
        for (const int method : {DM_REDIST_AUTO, DM_REDIST_NONBLOCKING, DM_REDIST_SENDRECV})
            for (const std::string &name : dm::exchange::executor_names(true)) {
                dm::array::Storage from_storage, to_storage;
                from_storage.kind = from_kind, to_storage.kind = to_kind;
                dm::array::DistArray a(grid, DM_INT32, {n}, {}, {}, from_storage);
                dm::array::DistArray b(grid, DM_INT32, {n}, {dm_dist_cyclic()}, {}, to_storage);
                const int coord = grid->coords()[0];
                const dm::layout::AxisMap &am = a.axis_map(0), &bm = b.axis_map(0);
                for (std::int64_t l = 0; l < am.extent(coord); ++l)
                    put_int(a.local_data(), from_kind, l, static_cast<std::int32_t>(am.global_index(coord, l)));
                dm::redist::RedistPlan plan(a, b, method, dm::exchange::executor_named(name));
                plan.execute(&a, &b);
                bool right = true;
                for (std::int64_t l = 0; l < bm.extent(coord); ++l)
                    right = right && get_int(b.local_data(), to_kind, l) == bm.global_index(coord, l);
                CHECK(right);
            }
}
