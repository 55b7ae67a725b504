#include "exchange/block.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dm::exchange {
namespace {

// The levels of a box shape in `k` storages at once (k = 1 or 2): an axis of one
// position vanishes, an axis that continues the run (or the outermost level so
// far) in every storage joins it, any other axis becomes a level.
struct Folded {
    int levels = 0;
    std::int64_t run = 0;
    std::int64_t count[kMaxLevels] = {};
    std::int64_t stride[2][kMaxLevels] = {};
};

Folded fold(int n, const std::int64_t *size, const std::int64_t *const *strides, int k, std::int64_t elsize) {
    Folded f;
    f.run = elsize;
    for (int a = n - 1; a >= 0; --a) {  // innermost first; reversed below
        if (size[a] == 1) continue;
        if (size[a] <= 0) return Folded{};  // an empty box
        const int top = f.levels - 1;
        bool into_run = f.levels == 0, into_level = f.levels > 0;
        for (int j = 0; j < k; ++j) {
            into_run = into_run && strides[j][a] == f.run;
            into_level = into_level && strides[j][a] == f.count[top] * f.stride[j][top];
        }
        if (into_run) {
            f.run *= size[a];
        } else if (into_level) {
            f.count[top] *= size[a];
        } else {
            f.count[f.levels] = size[a];
            for (int j = 0; j < k; ++j) f.stride[j][f.levels] = strides[j][a];
            ++f.levels;
        }
    }
    std::reverse(f.count, f.count + f.levels);
    for (int j = 0; j < k; ++j) std::reverse(f.stride[j], f.stride[j] + f.levels);
    return f;
}

Block block_of(const Folded &f, int j, int slot, std::int64_t offset) {
    Block b;
    b.slot = slot, b.levels = f.levels, b.offset = offset, b.run = f.run;
    std::copy(f.count, f.count + f.levels, b.count);
    std::copy(f.stride[j], f.stride[j] + f.levels, b.stride);
    return b;
}

std::int64_t offset_of(int n, const std::int64_t *start, const std::int64_t *strides, std::int64_t origin) {
    for (int a = 0; a < n; ++a) origin += start[a] * strides[a];
    return origin;
}

// Calls run(offset in a, offset in b) for every run of two blocks with the same
// counts, in order.
template <class Visit>
void for_each_run(const Block &a, const Block &b, Visit &&run) {
    const std::int64_t *const strides[2] = {a.stride, b.stride};
    array::for_each_index(a.levels, a.count, strides, std::array<std::int64_t, 2>{a.offset, b.offset},
                          [&](const std::int64_t *, const std::array<std::int64_t, 2> &at) { run(at[0], at[1]); });
}

// One run of a fixed size as a constant-size memcpy, which compilers turn into a
// few loads and stores; short runs of other multiples of 8 bytes as a loop of
// 8-byte words; any other run as one memcpy (long runs, where it is fastest).
template <std::size_t R>
struct Fixed {
    static constexpr std::size_t kBytes = R;
    static void move(std::byte *to, const std::byte *from, std::size_t) { std::memcpy(to, from, R); }
};
struct Words {
    static constexpr std::size_t kBytes = 0;  // no fixed size
    static void move(std::byte *to, const std::byte *from, std::size_t bytes) {
        for (std::size_t i = 0; i < bytes; i += 8) std::memcpy(to + i, from + i, 8);
    }
};
struct Any {
    static constexpr std::size_t kBytes = 0;
    static void move(std::byte *to, const std::byte *from, std::size_t bytes) { std::memcpy(to, from, bytes); }
};

template <class Kernel>
std::byte *pack_with(std::byte *out, const std::byte *base, const Block &b) {
    const std::size_t run = static_cast<std::size_t>(b.run);
    for_each_run(b, [&](std::int64_t at) {
        Kernel::move(out, base + at, run);
        out += run;
    });
    return out;
}

template <class Kernel>
const std::byte *unpack_with(std::byte *base, const Block &b, const std::byte *in) {
    const std::size_t run = static_cast<std::size_t>(b.run);
    for_each_run(b, [&](std::int64_t at) {
        Kernel::move(base + at, in, run);
        in += run;
    });
    return in;
}

template <class Kernel>
void copy_with(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from) {
    const std::size_t run = static_cast<std::size_t>(to.run);
    for_each_run(to, from, [&](std::int64_t t, std::int64_t f) { Kernel::move(to_base + t, from_base + f, run); });
}

// A transpose: the two innermost levels of a block where the inner one strides
// far (more than kFarStride bytes) while the outer one steps one run, so that
// each run of the inner level starts another cache line and, past a page, another
// page (a transposed source: every element of a row of a column-major matrix).
// Walked level by level that costs a cache and TLB miss per element; in tiles of
// kTile x kTile, with the contiguous level innermost, both sides stay in L1 and
// the TLB (an 8-byte transpose of 4000 x 4000 on one rank: 106 ms walked plainly,
// 75 ms in tiles of 8, 46 of 16, 38 of 64, 38-41 of 128 and 256).
constexpr std::int64_t kTile = 64, kFarStride = 512;


// Where the runs of the two innermost levels lie in one buffer: the offset of the
// first, and the steps of the outer and the inner level (bytes).
struct Steps {
    std::int64_t at, outer, inner;
};

// Moves the runs at positions [o0, oe) x [i0, ie) of the two innermost levels one
// by one, the outer level fastest (pointers stepped, not recomputed).
template <class Kernel>
void move_runs(std::byte *to, Steps t, const std::byte *from, Steps f, std::int64_t o0, std::int64_t oe,
               std::int64_t i0, std::int64_t ie, std::size_t run) {
    for (std::int64_t i = i0; i < ie; ++i) {
        std::byte *pt = to + t.at + o0 * t.outer + i * t.inner;
        const std::byte *pf = from + f.at + o0 * f.outer + i * f.inner;
        for (std::int64_t o = o0; o < oe; ++o, pt += t.outer, pf += f.outer) Kernel::move(pt, pf, run);
    }
}

// An unsigned word of R bytes, to move elements of that size through registers.
template <std::size_t R>
using WordOf = std::conditional_t<
    R == 1, std::uint8_t,
    std::conditional_t<R == 2, std::uint16_t, std::conditional_t<R == 4, std::uint32_t, std::uint64_t>>>;

// A transpose goes in rectangles kept in registers, which compilers turn into
// shuffles: L lines of `from`, C elements of each, become C lines of `to` of L
// elements. Written into the cache, squares of 8 are the fastest measured (none
// for 16-byte elements, which gain nothing); streamed past the cache (non-temporal
// stores of whole 64-byte lines, which skip reading each destination line before
// it is written), a written line is one cache line, 8 of them at a time. Measured
// on one rank: 4000 x 4000 8-byte elements 34 ms run by run in tiles, 32 in
// squares, 14.6 streamed (memcpy 11); 4-byte 16.4 in squares of 4, 8.8 streamed
// (memcpy 5.3); 2000 x 2000 16-byte 4.9 streamed (memcpy 5.1).
constexpr std::int64_t kLine = 64;
template <std::size_t R>
constexpr int kCachedLines = R == 1 || R == 2 || R == 4 || R == 8 ? 8 : 0;  // and as many elements
template <std::size_t R>
constexpr int kStreamedLines = R == 4 || R == 8 || R == 16 ? static_cast<int>(kLine / R) : 0;
constexpr int kStreamedElements = 8;
// Streamed only where a block is this large: a smaller one may be read from the
// cache right after (a piece about to be sent). The blocks of a block-cyclic
// layout are often small and many, so the bar is per block, not per operation.
constexpr std::int64_t kStreamBytes = std::int64_t{64} << 10;
#if defined(__SSE2__)
constexpr bool kCanStream = true;
#else
constexpr bool kCanStream = false;
#endif

struct Word16 {
    std::uint64_t half[2];
};
template <std::size_t R>
using ElementOf = std::conditional_t<R == 16, Word16, WordOf<R>>;

// Writes one cache line, 64-byte aligned, past the cache.
inline void stream_line(std::byte *to, const void *line) {
#if defined(__SSE2__)
    const auto *from = static_cast<const __m128i *>(line);
    auto *out = reinterpret_cast<__m128i *>(to);
    for (int k = 0; k < 4; ++k) _mm_stream_si128(out + k, _mm_loadu_si128(from + k));
#else
    std::memcpy(to, line, kLine);
#endif
}

// Transposes L lines of C R-byte elements (`from`'s lines from_line bytes apart,
// elements contiguous) into C lines of L elements (to_line apart): element x of
// line y becomes element y of line x.
template <std::size_t R, int L, int C, bool Stream>
void transpose_rectangle(std::byte *to, std::int64_t to_line, const std::byte *from, std::int64_t from_line) {
    using Element = ElementOf<R>;
    Element read[L][C];
    for (int y = 0; y < L; ++y) std::memcpy(read[y], from + y * from_line, C * R);
    for (int x = 0; x < C; ++x) {
        Element line[L];
        for (int y = 0; y < L; ++y) line[y] = read[y][x];
        if constexpr (Stream)
            stream_line(to + x * to_line, line);
        else
            std::memcpy(to + x * to_line, line, L * R);
    }
}

// to[c][l] = from[l][c] for l < nl, c < nc: R-byte elements, contiguous along c in
// `from` (its lines from_line bytes apart) and along l in `to` (to_line apart).
template <std::size_t R>
class LineTranspose {
public:
    LineTranspose(std::byte *to, std::int64_t to_line, const std::byte *from, std::int64_t from_line)
        : to_(to), from_(from), to_line_(to_line), from_line_(from_line) {}

    // Streams where the lines of `to` can start on cache lines together; the first
    // `head` elements of each are written into the cache.
    bool streams(std::int64_t bytes, std::int64_t &head) const {
        constexpr std::int64_t r = static_cast<std::int64_t>(R);
        const auto at = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(to_) % kLine);
        if (!kCanStream || kStreamedLines<R> == 0 || bytes < kStreamBytes || to_line_ % kLine != 0 || at % r != 0)
            return false;
        head = (kLine - at) % kLine / r;
        return true;
    }

    void move(std::int64_t nl, std::int64_t nc, bool stream, std::int64_t head) const {
        if constexpr (kStreamedLines<R> > 0) {
            if (stream) {
                head = std::min(head, nl);
                runs(0, head, 0, nc);
                rectangles<kStreamedLines<R>, kStreamedElements, true>(head, nl, 0, nc);
#if defined(__SSE2__)
                _mm_sfence();  // streamed lines are seen by whoever reads them next
#endif
                return;
            }
        }
        for (std::int64_t l0 = 0; l0 < nl; l0 += kTile)
            for (std::int64_t c0 = 0; c0 < nc; c0 += kTile)
                rectangles<kCachedLines<R>, kCachedLines<R>, false>(l0, std::min(l0 + kTile, nl), c0, std::min(c0 + kTile, nc));
    }

private:
    // Rectangles over [l0, l1) x [c0, c1), the bands of lines outermost; the
    // fringe element by element.
    template <int L, int C, bool Stream>
    void rectangles(std::int64_t l0, std::int64_t l1, std::int64_t c0, std::int64_t c1) const {
        if constexpr (L == 0) {
            runs(l0, l1, c0, c1);
        } else {
            const std::int64_t lm = l0 + (l1 - l0) / L * L, cm = c0 + (c1 - c0) / C * C;
            for (std::int64_t l = l0; l < lm; l += L)
                for (std::int64_t c = c0; c < cm; c += C)
                    transpose_rectangle<R, L, C, Stream>(at_to(l, c), to_line_, at_from(l, c), from_line_);
            runs(l0, lm, cm, c1);
            runs(lm, l1, c0, c1);
        }
    }
    void runs(std::int64_t l0, std::int64_t l1, std::int64_t c0, std::int64_t c1) const {
        for (std::int64_t l = l0; l < l1; ++l)
            for (std::int64_t c = c0; c < c1; ++c) std::memcpy(at_to(l, c), at_from(l, c), R);
    }
    std::byte *at_to(std::int64_t l, std::int64_t c) const {
        return to_ + c * to_line_ + l * static_cast<std::int64_t>(R);
    }
    const std::byte *at_from(std::int64_t l, std::int64_t c) const {
        return from_ + l * from_line_ + c * static_cast<std::int64_t>(R);
    }

    std::byte *to_;
    const std::byte *from_;
    std::int64_t to_line_, from_line_;
};

// Moves the co x ci runs of `run` bytes of two innermost levels from one buffer to
// the other in tiles. Where one side is contiguous along one level and the other
// along the other (a transpose of single elements), it goes in rectangles, streamed
// past the cache when `bytes` (the whole move) is large.
template <class Kernel>
void move_tiles(std::byte *to, Steps t, const std::byte *from, Steps f, std::int64_t co, std::int64_t ci,
                std::size_t run, std::int64_t bytes) {
    constexpr std::size_t R = Kernel::kBytes;
    if constexpr (kCachedLines<R> > 0 || kStreamedLines<R> > 0) {
        const std::int64_t r = static_cast<std::int64_t>(R);
        // from contiguous along o and to along i (lines of `from` at each i), or the
        // other way round (lines of `from` at each o)
        const bool along_o = f.outer == r && t.inner == r, along_i = f.inner == r && t.outer == r;
        if (along_o || along_i) {
            const LineTranspose<R> lines(to + t.at, along_o ? t.outer : t.inner, from + f.at,
                                         along_o ? f.inner : f.outer);
            std::int64_t head = 0;
            const bool stream = lines.streams(bytes, head);
            lines.move(along_o ? ci : co, along_o ? co : ci, stream, head);
            return;
        }
    }
    for (std::int64_t o0 = 0; o0 < co; o0 += kTile)
        for (std::int64_t i0 = 0; i0 < ci; i0 += kTile)
            move_runs<Kernel>(to, t, from, f, o0, std::min(o0 + kTile, co), i0, std::min(i0 + kTile, ci), run);
}

// Calls tiles(offset in a, offset in b, index of the first run) at every position of
// the levels outside the two innermost of two blocks of equal counts.
template <class Tiles>
void for_each_tiled_level(const Block &a, const Block &b, Tiles &&tiles) {
    const int n = a.levels;
    const std::int64_t *const strides[2] = {a.stride, b.stride};
    std::int64_t first = 0;
    array::for_each_index(n - 2, a.count, strides, std::array<std::int64_t, 2>{a.offset, b.offset},
                          [&](const std::int64_t *, const std::array<std::int64_t, 2> &at) {
                              tiles(at[0], at[1], first);
                              first += a.count[n - 2] * a.count[n - 1];
                          });
}

template <class Kernel>
std::byte *pack_in_tiles(std::byte *out, const std::byte *base, const Block &b) {
    const int n = b.levels;
    const std::int64_t co = b.count[n - 2], ci = b.count[n - 1];
    for_each_tiled_level(b, b, [&](std::int64_t at, std::int64_t, std::int64_t first) {
        move_tiles<Kernel>(out, {first * b.run, ci * b.run, b.run}, base, {at, b.stride[n - 2], b.stride[n - 1]}, co,
                           ci, static_cast<std::size_t>(b.run), b.bytes());
    });
    return out + b.bytes();
}

template <class Kernel>
const std::byte *unpack_in_tiles(std::byte *base, const Block &b, const std::byte *in) {
    const int n = b.levels;
    const std::int64_t co = b.count[n - 2], ci = b.count[n - 1];
    for_each_tiled_level(b, b, [&](std::int64_t at, std::int64_t, std::int64_t first) {
        move_tiles<Kernel>(base, {at, b.stride[n - 2], b.stride[n - 1]}, in, {first * b.run, ci * b.run, b.run}, co,
                           ci, static_cast<std::size_t>(b.run), b.bytes());
    });
    return in + b.bytes();
}

template <class Kernel>
void copy_in_tiles(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from) {
    const int n = to.levels;
    const std::int64_t co = to.count[n - 2], ci = to.count[n - 1];
    for_each_tiled_level(to, from, [&](std::int64_t t, std::int64_t f, std::int64_t) {
        move_tiles<Kernel>(to_base, {t, to.stride[n - 2], to.stride[n - 1]}, from_base,
                           {f, from.stride[n - 2], from.stride[n - 1]}, co, ci, static_cast<std::size_t>(to.run),
                           to.bytes());
    });
}

// Calls body(Kernel{}) with the kernel for runs of `run` bytes. Fixed sizes cover
// runs of 1 to 4 elements of every element size (a strided face of a ghost width
// up to 4); measured in cache on 4096 runs, they copy 1.3-3x faster than memcpy
// of a run-time length, and short word loops 1.2-2x.
constexpr std::int64_t kShortRun = 64;

template <class Body>
decltype(auto) by_run(std::int64_t run, Body &&body) {
    switch (run) {
        case 1: return body(Fixed<1>{});
        case 2: return body(Fixed<2>{});
        case 3: return body(Fixed<3>{});
        case 4: return body(Fixed<4>{});
        case 8: return body(Fixed<8>{});
        case 12: return body(Fixed<12>{});
        case 16: return body(Fixed<16>{});
        case 24: return body(Fixed<24>{});
        case 32: return body(Fixed<32>{});
        case 48: return body(Fixed<48>{});
        case 64: return body(Fixed<64>{});
        default: return run < kShortRun && run % 8 == 0 ? body(Words{}) : body(Any{});
    }
}

}  // namespace

bool crosses_levels(const Block &b) {
    return b.levels >= 2 && b.run <= 16 && b.stride[b.levels - 1] > kFarStride && b.stride[b.levels - 2] == b.run;
}

std::int64_t Block::runs() const {
    std::int64_t n = 1;
    for (int l = 0; l < levels; ++l) n *= count[l];
    return n;
}

std::int64_t lines(const Block *blocks, std::size_t n) {
    std::int64_t total = 0, start = 0, end = -1;
    int slot = -1;
    auto close = [&] {
        if (end >= 0) total += (end - start) / kCacheLine + 1;
        end = -1;
    };
    for (std::size_t i = 0; i < n; ++i) {
        const Block &b = blocks[i];
        if (b.runs() != 1) {
            close();
            total += b.lines();
        } else if (b.slot == slot && end >= 0 && b.offset >= end && b.offset - end < kCacheLine) {
            end = b.offset + b.run;  // continues the span
        } else {
            close();
            slot = b.slot, start = b.offset, end = b.offset + b.run;
        }
    }
    close();
    return total;
}

std::int64_t Block::lines() const {
    // Levels taken from the smallest stride up: one whose runs lie less than a line
    // apart makes them one span, the run of the next; the rest repeat the span.
    int order[kMaxLevels] = {};
    for (int l = 0; l < levels && l < kMaxLevels; ++l) {  // insertion sort by stride
        int at = l;
        for (; at > 0 && stride[order[at - 1]] > stride[l]; --at) order[at] = order[at - 1];
        order[at] = l;
    }
    std::int64_t span = run, repeats = 1;
    int l = 0;
    for (; l < levels && stride[order[l]] >= 0 && stride[order[l]] - span < kCacheLine; ++l)
        span += (count[order[l]] - 1) * stride[order[l]];
    for (; l < levels; ++l) repeats *= count[order[l]];
    return repeats * (span / kCacheLine + 1);
}

bool Block::same_shape(const Block &other) const {
    if (levels != other.levels || run != other.run) return false;
    for (int l = 0; l < levels; ++l)
        if (count[l] != other.count[l] || stride[l] != other.stride[l]) return false;
    return true;
}

Block box_block(int slot, int n, const std::int64_t *start, const std::int64_t *size, const std::int64_t *strides,
                std::int64_t origin, std::int64_t elsize) {
    const std::int64_t *sets[1] = {strides};
    return block_of(fold(n, size, sets, 1, elsize), 0, slot, offset_of(n, start, strides, origin));
}

Copy box_copy(int n, const std::int64_t *size, int from_slot, const std::int64_t *from_start,
              const std::int64_t *from_strides, std::int64_t from_origin, int to_slot, const std::int64_t *to_start,
              const std::int64_t *to_strides, std::int64_t to_origin, std::int64_t elsize) {
    const std::int64_t *sets[2] = {from_strides, to_strides};
    const Folded f = fold(n, size, sets, 2, elsize);
    return {block_of(f, 0, from_slot, offset_of(n, from_start, from_strides, from_origin)),
            block_of(f, 1, to_slot, offset_of(n, to_start, to_strides, to_origin))};
}

namespace {

// `next` as one more copy of `last`'s shape at a fixed step: a new outermost level.
bool stack(const Block &last, const Block &next, Block &joined) {
    if (last.slot != next.slot || last.levels + 1 > kMaxLevels || next.offset == last.offset || !last.same_shape(next))
        return false;
    joined = last;
    joined.levels = last.levels + 1;
    std::copy_backward(last.count, last.count + last.levels, joined.count + joined.levels);
    std::copy_backward(last.stride, last.stride + last.levels, joined.stride + joined.levels);
    joined.count[0] = 2;
    joined.stride[0] = next.offset - last.offset;
    return true;
}

// The two sides of a copy move runs of one size in the same counts.
bool alike(const Block &a, const Block &b) {
    return a.run == b.run && a.levels == b.levels && std::equal(a.count, a.count + a.levels, b.count);
}

}  // namespace

bool join(const Block &last, const Block &next, Block &joined) {
    if (last.slot != next.slot) return false;
    if (last.levels == 0 && next.levels == 0 && last.offset + last.run == next.offset) {
        joined = last;
        joined.run += next.run;
        return true;
    }
    if (last.levels == next.levels + 1 && next.offset == last.offset + last.count[0] * last.stride[0]) {
        bool inner_same = last.run == next.run;
        for (int l = 0; inner_same && l < next.levels; ++l)
            inner_same = last.count[l + 1] == next.count[l] && last.stride[l + 1] == next.stride[l];
        if (inner_same) {
            joined = last;
            ++joined.count[0];
            return true;
        }
    }
    return stack(last, next, joined);
}

void append_copy(std::vector<Copy> &copies, const Copy &c) {
    if (!copies.empty()) {
        Copy &last = copies.back();
        Copy joined;
        // Each side joined its own way, where the two agree; else (one side
        // contiguous, the other not) both as one more copy at a step.
        if ((join(last.from, c.from, joined.from) && join(last.to, c.to, joined.to) && alike(joined.from, joined.to)) ||
            (stack(last.from, c.from, joined.from) && stack(last.to, c.to, joined.to))) {
            last = joined;
            return;
        }
    }
    copies.push_back(c);
}

std::byte *pack(std::byte *out, const std::byte *base, const Block &b) {
    if (crosses_levels(b)) return by_run(b.run, [&](auto kernel) { return pack_in_tiles<decltype(kernel)>(out, base, b); });
    return by_run(b.run, [&](auto kernel) { return pack_with<decltype(kernel)>(out, base, b); });
}

const std::byte *unpack(std::byte *base, const Block &b, const std::byte *in) {
    if (crosses_levels(b)) return by_run(b.run, [&](auto kernel) { return unpack_in_tiles<decltype(kernel)>(base, b, in); });
    return by_run(b.run, [&](auto kernel) { return unpack_with<decltype(kernel)>(base, b, in); });
}

void copy(std::byte *to_base, const Block &to, const std::byte *from_base, const Block &from) {
    if (to.levels == from.levels && (crosses_levels(to) || crosses_levels(from))) {
        by_run(to.run, [&](auto kernel) { copy_in_tiles<decltype(kernel)>(to_base, to, from_base, from); });
        return;
    }
    by_run(to.run, [&](auto kernel) { copy_with<decltype(kernel)>(to_base, to, from_base, from); });
}

}  // namespace dm::exchange
