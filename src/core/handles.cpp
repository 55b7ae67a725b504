#include "core/handles.hpp"

#include "core/error.hpp"

#include <cstring>
#include <mutex>
#include <unordered_map>

namespace dm::handles {
namespace {
std::mutex table_mutex;
// Kinds are string literals: compared by content, so that every translation unit agrees.
std::unordered_map<const void *, const char *> &table() {
    static auto *live_handles = new std::unordered_map<const void *, const char *>;  // never destroyed: used at exit
    return *live_handles;
}
}  // namespace

void add(const void *handle, const char *kind) {
    std::lock_guard<std::mutex> lock(table_mutex);
    table()[handle] = kind;
}

void remove(const void *handle) {
    std::lock_guard<std::mutex> lock(table_mutex);
    table().erase(handle);
}

bool live(const void *handle, const char *kind) {
    if (!handle) return false;
    std::lock_guard<std::mutex> lock(table_mutex);
    const auto it = table().find(handle);
    return it != table().end() && std::strcmp(it->second, kind) == 0;
}

void require_live(const void *handle, const char *kind, const char *create) {
    if (live(handle, kind)) return;
    fail(DM_ERR_STATE, kind, " handle is ", handle ? "not a live handle (freed, or never created)" : "NULL",
         ": call ", create, "() first");
}

}  // namespace dm::handles
