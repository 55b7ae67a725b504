#include "core/memory_kind.hpp"

#include "core/error.hpp"

#include <vector>

namespace dm::memory {
namespace {

std::vector<MemoryKindInfo> &table() {
    static std::vector<MemoryKindInfo> registered = {MemoryKindInfo{}};  // host, id 0
    return registered;
}

}  // namespace

MemoryKind register_kind(const MemoryKindInfo &info) {
    const std::string name = info.name ? info.name : "";
    if (name.empty()) fail(DM_ERR_ARG, "memory kinds: a kind needs a name");
    if (info.allocate && !info.release)
        fail(DM_ERR_ARG, "memory kinds: kind '", name, "' has an allocator but no release");
    for (const MemoryKindInfo &k : table())
        if (name == k.name) fail(DM_ERR_ARG, "memory kinds: a kind named '", name, "' is already registered");
    table().push_back(info);
    return static_cast<MemoryKind>(table().size() - 1);
}

const MemoryKindInfo &info(MemoryKind kind) {
    const int id = static_cast<int>(kind);
    if (id < 0 || id >= count()) fail(DM_ERR_ARG, "memory kinds: no kind has id ", id, " (", count(), " registered)");
    return table()[static_cast<std::size_t>(id)];
}

MemoryKind named(const std::string &name) {
    std::string names;
    for (std::size_t i = 0; i < table().size(); ++i) {
        if (name == table()[i].name) return static_cast<MemoryKind>(i);
        names += (i ? ", " : "") + std::string(table()[i].name);
    }
    fail(DM_ERR_ARG, "memory kinds: unknown kind '", name, "' (registered: ", names, ")");
}

int count() { return static_cast<int>(table().size()); }

}  // namespace dm::memory
