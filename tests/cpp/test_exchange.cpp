// The exchange engine: its copy kernels against a byte-by-byte reference, and the
// split-phase C calls (dm_halo_begin/_end, dm_pshift_begin/_end, dm_redist_begin/_end)
// with every executor (forced through DM_EXCHANGE) against serial oracles, and
// their misuse.
#include "harness.hpp"

#include "exchange/block.hpp"
#include "exchange/plan.hpp"

#include <datamotion/datamotion.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

using dm::exchange::Block;

std::mt19937 &rng() {
    static std::mt19937 r(4242);  // the same on every rank: every rank draws the same cases
    return r;
}

int draw(int lo, int hi) { return lo + static_cast<int>(rng()() % static_cast<unsigned>(hi - lo + 1)); }

// Calls f(offset) for each run of `b`, in row-major order over its levels.
template <class F>
void each_run(const Block &b, F &&f) {
    std::vector<std::int64_t> index(static_cast<size_t>(b.levels), 0);
    while (true) {
        std::int64_t at = b.offset;
        for (int l = 0; l < b.levels; ++l) at += index[l] * b.stride[l];
        f(at);
        int l = b.levels - 1;
        for (; l >= 0; --l) {
            if (++index[l] < b.count[l]) break;
            index[l] = 0;
        }
        if (l < 0) return;
    }
}

// A random block of `run`-byte runs whose runs do not overlap, and the bytes it spans.
Block random_block(std::int64_t run, std::int64_t &span) {
    Block b;
    b.levels = draw(0, 3);
    b.run = run;
    b.offset = draw(0, 9);
    std::int64_t extent = run;  // bytes spanned by the inner levels
    for (int l = b.levels - 1; l >= 0; --l) {
        b.count[l] = draw(1, 5);
        b.stride[l] = extent + draw(0, 12);
        extent = b.stride[l] * (b.count[l] - 1) + extent;
    }
    span = b.offset + extent;
    return b;
}

// A 2-d, 3-d or 1-d halo of an int64 array with prefilled ghosts, checked element by
// element: a ghost position filled from the global array (wrapped: every axis is
// periodic) unless it lies outside the owned range on two or more axes without corners.
struct HaloCase {
    std::vector<std::int64_t> shape;
    std::vector<int> ghost;
    int corners;
};

std::vector<std::int64_t> global_values(const std::vector<std::int64_t> &shape) {
    std::int64_t total = 1;
    for (auto n : shape) total *= n;
    std::vector<std::int64_t> x(static_cast<size_t>(total));
    for (std::int64_t i = 0; i < total; ++i) x[i] = 100 + 7 * i;
    return x;
}

void fill_storage(dm_array a, std::int64_t value) {
    void *data = nullptr;
    std::int64_t ext[3] = {1, 1, 1};
    int ndims = 0;
    dm_array_ndims(a, &ndims);
    dm_array_storage(a, &data, ext);
    std::int64_t n = 1;
    for (int d = 0; d < ndims; ++d) n *= ext[d];
    auto *s = static_cast<std::int64_t *>(data);
    for (std::int64_t i = 0; i < n; ++i) s[i] = value;
}

// Problems found in `a`'s storage after a halo exchange (0 when all is right).
int halo_problems(dm_grid grid, dm_array a, const HaloCase &c, const std::vector<std::int64_t> &x,
                  std::int64_t interior_value, bool interior_written) {
    const int n = static_cast<int>(c.shape.size());
    void *data = nullptr;
    std::int64_t storage[3] = {1, 1, 1}, ext[3] = {1, 1, 1}, g0[3] = {0, 0, 0};
    int coords[3], dims[3];
    dm_dist dists[3];
    dm_array_storage(a, &data, storage);
    dm_array_local(a, nullptr, ext, nullptr);
    dm_grid_coords(grid, coords);
    dm_grid_dims(grid, dims);
    dm_array_dists(a, dists);
    for (int d = 0; d < n; ++d) {
        if (ext[d] == 0) return 0;  // owns nothing: no halo to fill
        dm_dist_to_global(dists[d], c.shape[d], dims[d], coords[d], 0, &g0[d]);
    }
    const auto *s = static_cast<const std::int64_t *>(data);
    std::int64_t total = 1;
    for (int d = 0; d < n; ++d) total *= storage[d];
    int problems = 0;
    for (std::int64_t flat = 0; flat < total; ++flat) {
        std::int64_t rest = flat, idx[3] = {0, 0, 0}, global = 0;
        for (int d = n - 1; d >= 0; --d) idx[d] = rest % storage[d], rest /= storage[d];
        int outside = 0;
        for (int d = 0; d < n; ++d) {
            const std::int64_t local = idx[d] - c.ghost[d];
            outside += local < 0 || local >= ext[d];
            const std::int64_t g = ((g0[d] + local) % c.shape[d] + c.shape[d]) % c.shape[d];
            global = global * c.shape[d] + g;
        }
        std::int64_t want = x[global];
        if (outside == 0 && interior_written) want = interior_value;
        if (outside > 1 && !c.corners) want = -1;
        if (s[flat] != want && ++problems <= 3)
            dmtest::report(__FILE__, __LINE__, "storage element " + std::to_string(flat) + " holds " +
                                                   std::to_string(s[flat]) + ", want " + std::to_string(want));
    }
    return problems;
}

// DM_EXCHANGE for the plans made while it lives ("" leaves the choice to the plan).
struct ForcedExecutor {
    explicit ForcedExecutor(const char *name) {
        if (*name) setenv("DM_EXCHANGE", name, 1);
    }
    ~ForcedExecutor() { unsetenv("DM_EXCHANGE"); }
};

// Every executor DM_EXCHANGE may name, from the registry ("" for auto).
const std::vector<const char *> &executors() {
    static const std::vector<std::string> names = dm::exchange::executor_names(true);
    static const std::vector<const char *> out = [] {
        std::vector<const char *> list;
        for (const std::string &name : names) list.push_back(name == "auto" ? "" : name.c_str());
        return list;
    }();
    return out;
}

bool says_executor(const std::string &text, const char *executor) {
    return !*executor || text.find(std::string("executor ") + executor) != std::string::npos;
}

std::string halo_text(dm_halo h) {
    std::vector<char> text(4096);
    size_t length = 0;
    dm_halo_describe(h, text.data(), text.size(), &length);
    return text.data();
}

}  // namespace

DM_TEST(kernels_match_a_byte_by_byte_reference) {
    // Every run size the kernels specialise (fixed sizes, 8-byte words) and others.
    const std::int64_t runs[] = {1, 2, 3, 4, 5, 8, 12, 16, 20, 24, 32, 40, 48, 56, 64, 72, 100, 128, 520};
    for (std::int64_t run : runs)
        for (int trial = 0; trial < 20; ++trial) {
            std::int64_t span_a = 0, span_b = 0;
            Block a = random_block(run, span_a);
            Block b = random_block(run, span_b);
            // b takes a's counts (the shape of a copy) with strides of its own.
            b.levels = a.levels;
            std::int64_t extent = run;
            for (int l = b.levels - 1; l >= 0; --l) {
                b.count[l] = a.count[l];
                b.stride[l] = extent + draw(0, 12);
                extent = b.stride[l] * (b.count[l] - 1) + extent;
            }
            span_b = b.offset + extent;
            std::vector<std::byte> src(static_cast<size_t>(span_a)), packed(static_cast<size_t>(a.bytes()) + 1),
                want(static_cast<size_t>(a.bytes()));
            for (auto &v : src) v = static_cast<std::byte>(rng()());
            std::int64_t at = 0;
            each_run(a, [&](std::int64_t off) {
                std::memcpy(want.data() + at, src.data() + off, static_cast<size_t>(run));
                at += run;
            });
            packed.back() = std::byte{0x5a};
            std::byte *end = dm::exchange::pack(packed.data(), src.data(), a);
            CHECK(end == packed.data() + a.bytes());
            CHECK(std::memcmp(packed.data(), want.data(), want.size()) == 0);
            CHECK(packed.back() == std::byte{0x5a});  // nothing written past the packed bytes

            // Unpack into b's layout, and copy from a's layout into b's: the same bytes.
            std::vector<std::byte> unpacked(static_cast<size_t>(span_b), std::byte{0x11}),
                copied(static_cast<size_t>(span_b), std::byte{0x11}), expected(static_cast<size_t>(span_b), std::byte{0x11});
            at = 0;
            each_run(b, [&](std::int64_t off) {
                std::memcpy(expected.data() + off, want.data() + at, static_cast<size_t>(run));
                at += run;
            });
            const std::byte *in = dm::exchange::unpack(unpacked.data(), b, want.data());
            CHECK(in == want.data() + b.bytes());
            dm::exchange::copy(copied.data(), b, src.data(), a);
            if (unpacked != expected || copied != expected)
                dmtest::report(__FILE__, __LINE__, "unpack or copy of runs of " + std::to_string(run) + " bytes, trial " +
                                                       std::to_string(trial));
        }
}

// A 2-level block of co x ci elements of `run` bytes at `offset`, its levels
// `outer` and `inner` bytes apart, with `stack` copies of it `stack_stride` apart
// as a third, outermost level where stack > 1.
Block strided_block(std::int64_t run, std::int64_t co, std::int64_t ci, std::int64_t outer, std::int64_t inner,
                    std::int64_t offset, std::int64_t stack = 1, std::int64_t stack_stride = 0) {
    Block b;
    b.run = run, b.offset = offset;
    const std::int64_t count[] = {stack, co, ci}, stride[] = {stack_stride, outer, inner};
    const int first = stack > 1 ? 0 : 1;
    b.levels = 3 - first;
    for (int l = first; l < 3; ++l) b.count[l - first] = count[l], b.stride[l - first] = stride[l];
    return b;
}

std::int64_t span_of(const Block &b) {
    std::int64_t span = b.offset + b.run;
    for (int l = 0; l < b.levels; ++l) span += (b.count[l] - 1) * b.stride[l];
    return span;
}

DM_TEST(transposing_kernels_match_a_byte_by_byte_reference) {
    // A transposed side (its outer level one element apart, its inner level far):
    // moved in squares, and past the cache (non-temporal lines) where a move is over
    // 64 KiB and the other side's lines start on cache lines together; every element
    // size, fringes, heads before the first aligned line, stacked slabs. Local work,
    // the same at every rank count: run once, at one rank.
    if (dmtest::world_size() != 1) return;
    const std::int64_t runs[] = {1, 2, 3, 4, 8, 12, 16};
    for (std::int64_t run : runs)
        for (int shape = 0; shape < 3; ++shape)
            for (int variant = 0; variant < 3; ++variant) {
                const std::int64_t co = shape == 0 ? 3 : shape == 1 ? 67 : 301;
                std::int64_t ci = shape == 0 ? 5 : shape == 1 ? 130 : ((std::int64_t{5} << 17) / (run * co) + 9);
                const std::int64_t stack = variant == 2 ? 2 : 1;
                // The transposed side: column-major co x ci with a padded leading dimension.
                const std::int64_t ld = co + 3 + 520 / run;
                Block a = strided_block(run, co, ci, run, ld * run, variant * run, stack, ld * ci * run + 8 * run);
                // The row-major side: lines aligned together (a multiple of 64 bytes) or not.
                const std::int64_t line = variant == 1 ? ci * run + run : (ci * run + 63) / 64 * 64;
                Block b = strided_block(run, co, ci, line, run, variant == 0 ? 0 : 3 * run, stack, line * co + 64);
                CHECK(dm::exchange::crosses_levels(a));
                std::vector<std::byte> src(static_cast<size_t>(span_of(a))), want(static_cast<size_t>(a.bytes()));
                for (auto &v : src) v = static_cast<std::byte>(rng()());
                std::int64_t at = 0;
                each_run(a, [&](std::int64_t off) {
                    std::memcpy(want.data() + at, src.data() + off, static_cast<size_t>(run));
                    at += run;
                });
                std::vector<std::byte> packed(static_cast<size_t>(a.bytes()) + 1);
                packed.back() = std::byte{0x5a};
                CHECK(dm::exchange::pack(packed.data(), src.data(), a) == packed.data() + a.bytes());
                CHECK(std::memcmp(packed.data(), want.data(), want.size()) == 0);
                CHECK(packed.back() == std::byte{0x5a});

                std::vector<std::byte> expected(static_cast<size_t>(span_of(b)), std::byte{0x11});
                at = 0;
                each_run(b, [&](std::int64_t off) {
                    std::memcpy(expected.data() + off, want.data() + at, static_cast<size_t>(run));
                    at += run;
                });
                std::vector<std::byte> copied(expected.size(), std::byte{0x11}), back(src.size(), std::byte{0x22}),
                    unpacked(src.size(), std::byte{0x22}), want_back(src.size(), std::byte{0x22});
                dm::exchange::copy(copied.data(), b, src.data(), a);
                dm::exchange::copy(back.data(), a, copied.data(), b);  // the other way: into the transposed side
                dm::exchange::unpack(unpacked.data(), a, want.data());
                each_run(a, [&](std::int64_t off) {
                    std::memcpy(want_back.data() + off, src.data() + off, static_cast<size_t>(run));
                });
                if (copied != expected || back != want_back || unpacked != want_back)
                    dmtest::report(__FILE__, __LINE__, "transposing copy of " + std::to_string(co) + " x " +
                                                           std::to_string(ci) + " runs of " + std::to_string(run) +
                                                           " bytes, variant " + std::to_string(variant));
            }
}

// The cache lines a list of blocks really spans, counted line by line.
std::int64_t distinct_lines(const std::vector<Block> &blocks) {
    std::vector<std::int64_t> lines;
    for (const Block &b : blocks)
        each_run(b, [&](std::int64_t off) {
            for (std::int64_t l = off / 64; l <= (off + b.run - 1) / 64; ++l) lines.push_back(l);
        });
    std::sort(lines.begin(), lines.end());
    return static_cast<std::int64_t>(std::unique(lines.begin(), lines.end()) - lines.begin());
}

DM_TEST(block_lines_estimate_the_cache_lines_a_reader_fetches) {
    using dm::exchange::lines;
    auto block = [](std::int64_t offset, std::int64_t run, std::vector<std::pair<std::int64_t, std::int64_t>> levels) {
        Block b;
        b.offset = offset, b.run = run, b.levels = static_cast<int>(levels.size());
        for (int l = 0; l < b.levels; ++l) b.count[l] = levels[l].first, b.stride[l] = levels[l].second;
        return b;
    };
    // One contiguous run; a face of 8-byte runs a row apart (sparse); rows of 24-byte
    // runs one after another, the rows 16 bytes apart (one span) or far apart (three).
    CHECK(block(0, 4096, {}).lines() == 65);
    CHECK(block(0, 8, {{4096, 528}}).lines() == 4096);
    CHECK(block(0, 24, {{85, 24}, {3, 2056}}).lines() == (2 * 2056 + 2040) / 64 + 1);
    CHECK(block(0, 24, {{85, 24}, {3, 4096}}).lines() == 3 * (2040 / 64 + 1));
    // Single runs that follow one another share lines; far apart, they do not.
    std::vector<Block> dense, sparse;
    for (int k = 0; k < 100; ++k) dense.push_back(block(24 * k, 24, {})), sparse.push_back(block(1000 * k, 24, {}));
    CHECK(lines(dense.data(), dense.size()) == 2400 / 64 + 1);
    CHECK(lines(sparse.data(), sparse.size()) == 100);
    // Random blocks: within a factor of two of the truth (alignment), never below half.
    for (int trial = 0; trial < 200; ++trial) {
        std::int64_t span = 0;
        const std::vector<Block> one{random_block(draw(1, 200), span)};
        const std::int64_t truth = distinct_lines(one), estimate = lines(one.data(), one.size());
        if (estimate < truth / 2 || estimate > 2 * truth + 1)
            dmtest::report(__FILE__, __LINE__, "trial " + std::to_string(trial) + ": " + std::to_string(estimate) +
                                                   " lines estimated, " + std::to_string(truth) + " spanned");
    }
}

DM_TEST(halo_begin_end_with_every_executor_matches_the_oracle) {
    const std::vector<HaloCase> cases = {{{9, 7}, {1, 2}, 1}, {{9, 7}, {2, 1}, 0}, {{5, 6, 4}, {1, 1, 2}, 1},
                                         {{5, 6, 4}, {2, 1, 1}, 0}, {{11}, {3}, 0}, {{3, 2}, {4, 5}, 1}};
    for (const char *executor : executors())
        for (const HaloCase &c : cases) {
            ForcedExecutor forced(executor);
            const int n = static_cast<int>(c.shape.size());
            const std::vector<int> periods(static_cast<size_t>(n), 1);
            dm_grid grid = nullptr;
            CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, n, nullptr, periods.data(), DM_ORDER_NEWS, &grid), DM_OK);
            const auto x = global_values(c.shape);
            dm_array a = nullptr, b = nullptr;
            CHECK_EQ(dm_array_create(grid, DM_INT64, n, c.shape.data(), nullptr, c.ghost.data(), &a), DM_OK);
            CHECK_EQ(dm_array_create(grid, DM_INT64, n, c.shape.data(), nullptr, c.ghost.data(), &b), DM_OK);
            dm_halo halo = nullptr;
            CHECK_EQ(dm_halo_setup(a, c.corners, &halo), DM_OK);
            CHECK(says_executor(halo_text(halo), executor));
            for (int repeat = 0; repeat < 2; ++repeat) {  // the second reuses the bound requests
                fill_storage(a, -1), fill_storage(b, -1);
                CHECK_EQ(dm_array_scatter(a, x.data(), DM_ALL_RANKS), DM_OK);
                CHECK_EQ(dm_array_scatter(b, x.data(), DM_ALL_RANKS), DM_OK);
                // Split phase, writing the interior in between where every byte travels
                // by MPI: the ghosts hold the values of begin, the interior the new ones.
                // (The on-node transport reads the interior in place at end: there it
                // must not change in between.)
                const bool write_in_flight = std::string(executor) != "onnode";
                CHECK_EQ(dm_halo_begin(halo, a), DM_OK);
                void *data = nullptr;
                std::int64_t ext[3] = {1, 1, 1}, strides[3] = {8, 8, 8};
                dm_array_local(a, &data, ext, strides);
                for (std::int64_t i = 0; write_in_flight && i < (n > 0 ? ext[0] : 1); ++i)
                    for (std::int64_t j = 0; j < (n > 1 ? ext[1] : 1); ++j)
                        for (std::int64_t k = 0; k < (n > 2 ? ext[2] : 1); ++k)
                            *reinterpret_cast<std::int64_t *>(static_cast<char *>(data) + i * strides[0] +
                                                              (n > 1 ? j * strides[1] : 0) +
                                                              (n > 2 ? k * strides[2] : 0)) = -7;
                CHECK_EQ(dm_halo_end(halo), DM_OK);
                CHECK_EQ(halo_problems(grid, a, c, x, write_in_flight ? -7 : 0, write_in_flight), 0);
                // Blocking, on another array of the same layout.
                CHECK_EQ(dm_halo_exchange(halo, b), DM_OK);
                CHECK_EQ(halo_problems(grid, b, c, x, 0, false), 0);
            }
            CHECK_EQ(dm_halo_free(&halo), DM_OK);
            dm_array_free(&a), dm_array_free(&b);
            dm_grid_free(&grid);
        }
}

DM_TEST(pshift_begin_end_with_every_executor_equals_execute) {
    const std::int64_t shape[2] = {9, 6};
    std::vector<std::int64_t> x(54);
    for (int i = 0; i < 54; ++i) x[i] = 3 * i + 1;
    const dm_shift_spec specs[3] = {{DM_CSHIFT, 0, 2, DM_BOUNDARY_ZERO},
                                    {DM_EOSHIFT, 1, -2, DM_BOUNDARY_ONE},
                                    {DM_CSHIFT, 1, 1, DM_BOUNDARY_ZERO}};
    for (const char *executor : executors()) {
        ForcedExecutor forced(executor);
        dm_grid grid = nullptr;
        CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
        const int ghost[2] = {1, 0};
        dm_array src = nullptr, split[3], blocking[3];
        CHECK_EQ(dm_array_create(grid, DM_INT64, 2, shape, nullptr, ghost, &src), DM_OK);
        CHECK_EQ(dm_array_scatter(src, x.data(), DM_ALL_RANKS), DM_OK);
        for (int k = 0; k < 3; ++k) {
            dm_array_create(grid, DM_INT64, 2, shape, nullptr, ghost, &split[k]);
            dm_array_create(grid, DM_INT64, 2, shape, nullptr, ghost, &blocking[k]);
        }
        dm_array srcs[3] = {src, src, src};
        dm_pshift plan = nullptr;
        CHECK_EQ(dm_pshift_setup(src, 3, specs, &plan), DM_OK);
        std::vector<char> text(4096);
        size_t length = 0;
        CHECK_EQ(dm_pshift_describe(plan, text.data(), text.size(), &length), DM_OK);
        CHECK(says_executor(text.data(), executor));
        CHECK_EQ(dm_pshift_begin(plan, split, srcs, nullptr), DM_OK);
        CHECK_EQ(dm_pshift_end(plan), DM_OK);
        CHECK_EQ(dm_pshift_execute(plan, blocking, srcs, nullptr), DM_OK);
        for (int k = 0; k < 3; ++k) {
            std::vector<std::int64_t> got(54, -1), want(54, -1), serial(54);
            dm_array_gather(split[k], got.data(), DM_ALL_RANKS);
            dm_array_gather(blocking[k], want.data(), DM_ALL_RANKS);
            for (std::int64_t i = 0; i < 9; ++i)
                for (std::int64_t j = 0; j < 6; ++j) {
                    const dm_shift_spec &s = specs[k];
                    std::int64_t si = i, sj = j;
                    (s.axis == 0 ? si : sj) += s.shift;
                    const std::int64_t len = s.axis == 0 ? 9 : 6;
                    std::int64_t &moved = s.axis == 0 ? si : sj;
                    if (s.kind == DM_CSHIFT) moved = (moved % len + len) % len;
                    serial[i * 6 + j] = moved >= 0 && moved < len ? x[si * 6 + sj] : 1;
                }
            CHECK(got == serial);
            CHECK(want == serial);
            dm_array_free(&split[k]), dm_array_free(&blocking[k]);
        }
        CHECK_EQ(dm_pshift_free(&plan), DM_OK);
        dm_array_free(&src);
        dm_grid_free(&grid);
    }
}

DM_TEST(redist_begin_end_with_every_executor_matches_the_global_array) {
    const std::int64_t shape[2] = {13, 10};
    std::vector<double> x(130);
    for (int i = 0; i < 130; ++i) x[i] = 0.5 * i - 3;
    const dm_redist_method methods[] = {DM_REDIST_AUTO, DM_REDIST_NONBLOCKING, DM_REDIST_SENDRECV};
    for (const char *executor : executors())
        for (dm_redist_method method : methods) {
            ForcedExecutor forced(executor);
            dm_grid grid = nullptr;
            CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, nullptr, DM_ORDER_NEWS, &grid), DM_OK);
            const dm_dist from[2] = {dm_dist_block_cyclic(2, 0), dm_dist_block()};
            const dm_dist to[2] = {dm_dist_block_cyclic(4, 0), dm_dist_cyclic()};
            dm_array a = nullptr, b = nullptr;
            CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 2, shape, from, nullptr, &a), DM_OK);
            CHECK_EQ(dm_array_create(grid, DM_FLOAT64, 2, shape, to, nullptr, &b), DM_OK);
            CHECK_EQ(dm_array_scatter(a, x.data(), DM_ALL_RANKS), DM_OK);
            dm_redist plan = nullptr;
            CHECK_EQ(dm_redist_setup(a, b, method, &plan), DM_OK);
            std::vector<char> text(4096);
            size_t length = 0;
            CHECK_EQ(dm_redist_describe(plan, text.data(), text.size(), &length), DM_OK);
            for (int repeat = 0; repeat < 2; ++repeat) {
                CHECK_EQ(dm_redist_begin(plan, a, b), DM_OK);
                CHECK_EQ(dm_redist_end(plan), DM_OK);
                std::vector<double> got(130, -1);
                dm_array_gather(b, got.data(), DM_ALL_RANKS);
                if (got != x)
                    dmtest::report(__FILE__, __LINE__, std::string("redistribution, executor '") + executor +
                                                           "', method " + std::to_string(method) + ": " + text.data());
            }
            CHECK_EQ(dm_redist_free(&plan), DM_OK);
            dm_array_free(&a), dm_array_free(&b);
            dm_grid_free(&grid);
        }
}

DM_TEST(misuse_of_an_exchange_in_flight_fails_cleanly) {
    dm_grid grid = nullptr;
    const int periods[2] = {1, 1};
    CHECK_EQ(dm_grid_create(MPI_COMM_WORLD, 2, nullptr, periods, DM_ORDER_NEWS, &grid), DM_OK);
    const std::int64_t shape[2] = {8, 6};
    const int ghost[2] = {1, 1};
    dm_array a = nullptr, d = nullptr, c = nullptr;
    dm_array_create(grid, DM_FLOAT64, 2, shape, nullptr, ghost, &a);
    dm_array_create(grid, DM_FLOAT64, 2, shape, nullptr, ghost, &d);
    const dm_dist cyclic[2] = {dm_dist_cyclic(), dm_dist_cyclic()};
    dm_array_create(grid, DM_FLOAT64, 2, shape, cyclic, nullptr, &c);
    dm_halo halo = nullptr;
    dm_pshift shift = nullptr;
    dm_redist redist = nullptr;
    const dm_shift_spec spec{DM_CSHIFT, 0, 1, DM_BOUNDARY_ZERO};
    CHECK_EQ(dm_halo_setup(a, 1, &halo), DM_OK);
    CHECK_EQ(dm_pshift_setup(a, 1, &spec, &shift), DM_OK);
    CHECK_EQ(dm_redist_setup(a, c, DM_REDIST_AUTO, &redist), DM_OK);

    auto message_has = [](const char *text) { return std::string(dm_last_error_message()).find(text) != std::string::npos; };
    if (dmtest::mistakes_return()) {  // hot-path mistakes: an error on every rank
        CHECK_EQ(dm_halo_end(halo), DM_ERR_STATE);
        CHECK(message_has("end without begin"));
        CHECK_EQ(dm_pshift_end(shift), DM_ERR_STATE);
        CHECK(message_has("end without begin"));
        CHECK_EQ(dm_redist_end(redist), DM_ERR_STATE);
        CHECK(message_has("end without begin"));
    }
    // test() is local: a mistake in it is an error on the rank that made it.
    int done = -1;
    CHECK_EQ(dm_halo_test(halo, &done), DM_ERR_STATE);
    CHECK(message_has("test without begin"));
    CHECK_EQ(dm_pshift_test(shift, &done), DM_ERR_STATE);
    CHECK(message_has("test without begin"));
    CHECK_EQ(dm_redist_test(redist, &done), DM_ERR_STATE);
    CHECK(message_has("test without begin"));
    CHECK_EQ(done, -1);
    CHECK_EQ(dm_halo_begin(halo, a), DM_OK);
    CHECK_EQ(dm_halo_test(halo, nullptr), DM_ERR_ARG);
    CHECK(message_has("done is NULL"));
    if (dmtest::mistakes_return()) {
        CHECK_EQ(dm_halo_begin(halo, a), DM_ERR_STATE);
        CHECK(message_has("in flight"));
        CHECK_EQ(dm_halo_exchange(halo, a), DM_ERR_STATE);
        CHECK(message_has("in flight"));
    }
    // Local refusals, on every rank alike: the plan and its array stay as they were.
    CHECK_EQ(dm_halo_free(&halo), DM_ERR_STATE);
    CHECK(message_has("in flight"));
    CHECK(halo != nullptr);
    CHECK_EQ(dm_array_free(&a), DM_ERR_STATE);
    CHECK(message_has("in flight"));
    CHECK(a != nullptr);
    CHECK_EQ(dm_halo_end(halo), DM_OK);

    dm_array dsts[1] = {d}, srcs[1] = {a};
    CHECK_EQ(dm_pshift_begin(shift, dsts, srcs, nullptr), DM_OK);
    if (dmtest::mistakes_return()) {
        CHECK_EQ(dm_pshift_begin(shift, dsts, srcs, nullptr), DM_ERR_STATE);
        CHECK(message_has("in flight"));
    }
    CHECK_EQ(dm_pshift_free(&shift), DM_ERR_STATE);
    CHECK_EQ(dm_array_free(&d), DM_ERR_STATE);  // a destination in flight
    CHECK_EQ(dm_array_free(&a), DM_ERR_STATE);  // a source in flight
    CHECK_EQ(dm_pshift_end(shift), DM_OK);

    CHECK_EQ(dm_redist_begin(redist, a, c), DM_OK);
    if (dmtest::mistakes_return()) {
        CHECK_EQ(dm_redist_begin(redist, a, c), DM_ERR_STATE);
        CHECK(message_has("in flight"));
    }
    CHECK_EQ(dm_redist_free(&redist), DM_ERR_STATE);
    CHECK(message_has("in flight"));
    CHECK_EQ(dm_array_free(&c), DM_ERR_STATE);
    CHECK_EQ(dm_redist_end(redist), DM_OK);

    // Completed: everything frees, and the plans worked on after the refusals.
    CHECK_EQ(dm_halo_exchange(halo, a), DM_OK);
    CHECK_EQ(dm_halo_free(&halo), DM_OK);
    CHECK_EQ(dm_pshift_free(&shift), DM_OK);
    CHECK_EQ(dm_redist_free(&redist), DM_OK);
    CHECK(halo == nullptr && shift == nullptr && redist == nullptr);
    CHECK_EQ(dm_array_free(&a), DM_OK);
    CHECK_EQ(dm_array_free(&d), DM_OK);
    CHECK_EQ(dm_array_free(&c), DM_OK);
    dm_grid_free(&grid);
}
