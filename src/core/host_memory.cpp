#include "core/host_memory.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace dm::host {
namespace {

// The huge page size of x86-64 and most 64-bit ARM kernels: blocks are mapped in
// multiples of it, starting on one, so that every page of a block can be huge.
constexpr std::size_t kHuge = std::size_t{2} << 20;
constexpr std::size_t kKeptBlocks = 8;

struct Block {
    std::byte *at;
    std::size_t bytes;
};

struct Large {
    std::mutex lock;
    std::map<const void *, std::size_t> live;  // handed out: start -> mapped bytes
    std::vector<Block> kept;                   // freed, oldest first
    std::size_t kept_bytes = 0;
};

Large &large() {
    static Large *l = new Large;  // never destroyed: blocks may be freed during exit
    return *l;
}

std::size_t rounded(std::size_t bytes) { return (bytes + kHuge - 1) / kHuge * kHuge; }

// A fresh mapping of `bytes` (a multiple of kHuge) starting on a huge page boundary.
std::byte *map(std::size_t bytes) {
    void *p = mmap(nullptr, bytes + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return nullptr;
    auto *base = static_cast<std::byte *>(p);
    const auto at = reinterpret_cast<std::uintptr_t>(base);
    const std::size_t head = (kHuge - at % kHuge) % kHuge, tail = kHuge - head;
    if (head > 0) munmap(base, head);
    if (tail > 0) munmap(base + head + bytes, tail);
#if defined(MADV_HUGEPAGE)
    madvise(base + head, bytes, MADV_HUGEPAGE);  // advice: a kernel without THP ignores it
#endif
    return base + head;
}

}  // namespace

void *allocate(std::size_t bytes) {
    if (bytes < kLargeBytes) return std::aligned_alloc(64, bytes == 0 ? 64 : (bytes + 63) / 64 * 64);
    const std::size_t want = rounded(bytes);
    Large &l = large();
    std::lock_guard<std::mutex> guard(l.lock);
    // The smallest kept block that holds the request without wasting more than it.
    std::size_t best = l.kept.size();
    for (std::size_t k = 0; k < l.kept.size(); ++k) {
        const std::size_t have = l.kept[k].bytes;
        if (have >= want && have <= 2 * want && (best == l.kept.size() || have < l.kept[best].bytes)) best = k;
    }
    Block b{nullptr, want};
    if (best < l.kept.size()) {
        b = l.kept[best];
        l.kept.erase(l.kept.begin() + static_cast<std::ptrdiff_t>(best));
        l.kept_bytes -= b.bytes;
    } else {
        b.at = map(want);
        if (!b.at) return nullptr;
    }
    l.live.emplace(b.at, b.bytes);
    return b.at;
}

void release(void *p, std::size_t bytes) noexcept {
    if (!p) return;
    if (bytes < kLargeBytes) {
        std::free(p);
        return;
    }
    Large &l = large();
    std::lock_guard<std::mutex> guard(l.lock);
    auto it = l.live.find(p);
    if (it == l.live.end()) return;  // not ours: never handed out here
    l.kept.push_back({static_cast<std::byte *>(p), it->second});
    l.kept_bytes += it->second;
    l.live.erase(it);
    while (l.kept.size() > kKeptBlocks || l.kept_bytes > kKeptBytes) {
        munmap(l.kept.front().at, l.kept.front().bytes);
        l.kept_bytes -= l.kept.front().bytes;
        l.kept.erase(l.kept.begin());
    }
}

Kept kept() {
    Large &l = large();
    std::lock_guard<std::mutex> guard(l.lock);
    return {l.kept.size(), l.kept_bytes};
}

}  // namespace dm::host
