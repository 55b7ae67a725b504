// Memory kinds: where the bytes of a buffer live. Host memory is kind 0, always
// there; any other (a device's later; tests/cpp/test_memory_kind.cpp adds one) is
// added by one call, exchange::register_memory_kind (exchange/memory_kind.hpp), which
// gives the kind its kernels in the engine and its entry here. This registry holds
// what the layers below the engine need of a kind: its name (for messages) and the
// allocator arrays of the kind take their storage from. Not thread safe: kinds are
// registered at start-up, before any array or plan uses them.
#pragma once

#include <cstddef>
#include <string>

namespace dm {

// A kind's id: its place in the registry, the same on every rank that registers the
// same kinds in the same order. Host is 0; others are registered ids.
enum class MemoryKind : int { Host = 0 };

struct MemoryKindInfo {
    const char *name = "host";  // a literal (or a string that outlives every array and plan)
    // Zero-filled storage of `bytes` bytes (at least 1), aligned for any element type,
    // freed by `release`; nullptr on failure. Where allocate is nullptr, arrays of the
    // kind adopt their storage (host: arrays allocate node memory or the heap's).
    void *(*allocate)(std::size_t bytes) = nullptr;
    void (*release)(void *p) = nullptr;
};

namespace memory {

// Local. Adds a kind after those registered before and returns its id; called by
// exchange::register_memory_kind, which registers its kernels too (call that one).
// DM_ERR_ARG for an empty or taken name, or an allocator without a release.
MemoryKind register_kind(const MemoryKindInfo &info);
// Local. The entry of a registered kind; DM_ERR_ARG naming the id otherwise.
const MemoryKindInfo &info(MemoryKind kind);
// Local. The kind registered as `name`; DM_ERR_ARG naming the registered ones otherwise.
MemoryKind named(const std::string &name);
// Local. How many kinds are registered (host included).
int count();

}  // namespace memory
}  // namespace dm
