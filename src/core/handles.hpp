// The table of live C handles. A handle is an address handed to the caller; the
// table records it from creation to release, so that a freed or never-created
// handle is recognised without reading the memory it points to. (An address that a
// later creation reuses is live again: a stale copy then names the new object.)
#pragma once

namespace dm::handles {

// Records `handle` of `kind` ("array", "grid", ...) as live. Thread-safe.
void add(const void *handle, const char *kind);
// Forgets `handle`. Thread-safe.
void remove(const void *handle);
// Whether `handle` is live and of `kind`. Thread-safe.
bool live(const void *handle, const char *kind);

// Throws DM_ERR_STATE naming `kind` and what to call first (`create`) unless `handle`
// is live and of `kind`.
void require_live(const void *handle, const char *kind, const char *create);

}  // namespace dm::handles
