// Errors inside datamotion: C++ code throws dm::Error; every extern "C" entry
// catches it (c_boundary) and every collective entry agrees on it (collective),
// so one rank's failure becomes the same failure on every rank of the call.
#pragma once

#include <datamotion/core.h>

#include "core/agreement.hpp"

#include <charconv>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace dm {

class Error : public std::runtime_error {
public:
    Error(int code, const std::string &message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

// An error that every rank of a call raises alike, because the ranks agreed on it by
// communicating (agree, raise_agreed, CallSignature): a caller that must not leave
// other ranks waiting can tell it from an error this rank found alone.
class AgreedError : public Error {
public:
    using Error::Error;
};

namespace detail {
// Message pieces are appended without iostreams: their locale machinery has
// crashed inside extension modules whose toolchain links libstdc++ statically.
inline void append(std::string &out, const std::string &s) { out += s; }
inline void append(std::string &out, const char *s) { out += s ? s : "(null)"; }
inline void append(std::string &out, char c) { out += c; }
// Numbers as C++ writes them in any locale: integers in full, floating point in
// the shortest text that reads back the same (0.1, 3, 1e+300).
template <class T, class = std::enable_if_t<std::is_arithmetic_v<T>>>
void append(std::string &out, T value) {
    if constexpr (std::is_floating_point_v<T>) {
        char buf[64];
        const std::to_chars_result r = std::to_chars(buf, buf + sizeof buf, value);
        out.append(buf, r.ec == std::errc() ? r.ptr : buf);
    } else {
        out += std::to_string(value);
    }
}
}  // namespace detail

// Builds a message from parts (strings and numbers): fail(DM_ERR_ARG, "axis ", a, " out of range").
template <class... Parts>
[[noreturn]] void fail(int code, const Parts &...parts) {
    std::string message;
    (detail::append(message, parts), ...);
    throw Error(code, message);
}

// Throws DM_ERR_MPI naming the call when an MPI function did not return MPI_SUCCESS.
void check_mpi(int rc, const char *call);

// Throws DM_ERR_STATE unless MPI is initialised and not yet finalised.
void require_mpi_initialized();

// Collective on comm: if `local` holds an exception on any rank, every rank throws
// the error of the lowest failing rank (same code, same message) as an AgreedError.
// Costs one agreement step (agreement.hpp) when nothing failed.
void agree(MPI_Comm comm, std::exception_ptr local);

// Collective on comm: every rank knows that `root` is the lowest rank that failed;
// root's `code` and `message` (read on root only) are broadcast and every rank throws
// them as an AgreedError. Two MPI_Bcast.
[[noreturn]] void raise_agreed(MPI_Comm comm, int root, int code, const std::string &message);

// Collective on comm: runs `check` and agrees on its outcome.
template <class F>
void collective(MPI_Comm comm, F &&check) {
    std::exception_ptr local;
    try {
        check();
    } catch (...) {
        local = std::current_exception();
    }
    agree(comm, local);
}

// Collective on comm: fails with DM_ERR_MISMATCH on every rank unless `values`
// is identical on all ranks (lengths may differ). `what` names the argument; the
// message shows its value on two ranks that disagree, written by `show`
// ("global shape differs across ranks: (12, 12) on rank 0, (13, 12) on rank 1").
// One agreement step (a fixed-size MPI_Allreduce: the length and two 64-bit hashes).
void require_same(MPI_Comm comm, const std::vector<std::int64_t> &values, const std::string &what,
                  ValuesText show = values_text);

// Checked mode: DATAMOTION_CHECK=1 (or any value but "" and "0") in the environment
// when the library is first used. Every call then verifies, collectively, that the
// arguments which must agree across ranks do agree, hot paths included. Read once.
bool checked_mode();

// Ends the whole job: prints "datamotion: error on rank R of P: <call>: <message>"
// on stderr and calls MPI_Abort(MPI_COMM_WORLD). For mistakes that the other ranks
// cannot be told about: they are already inside the call's messages, or this rank
// does not know the communicator (a NULL or freed handle).
[[noreturn]] void abort_job(const char *call, int code, const std::string &message);

// Ends the whole job: prints `line` (one line, without its newline) on stderr and calls
// MPI_Abort(MPI_COMM_WORLD, code) with stderr sent to /dev/null (MPICH's own "Abort(...)"
// line is not shown), or std::abort where MPI is not running.
[[noreturn]] void end_job(int code, const std::string &line);

// A mistake found by a collective call in a rank-local argument. With one rank in
// MPI_COMM_WORLD nobody can be left waiting, so it is an ordinary error; otherwise
// the job ends naming the call (abort_job).
[[noreturn]] void fail_uncommunicable(const char *call, int code, const std::string &message);

// For a collective call whose communicator comes from a handle: returns get() (the
// object behind that handle), or, if it fails (a NULL, freed or never created
// handle), ends the job by fail_uncommunicable, since this rank cannot tell the
// others, which wait on a communicator it does not know.
template <class F>
decltype(auto) communicator_handle(const char *call, F &&get) {
    try {
        return get();
    } catch (const Error &e) {
        fail_uncommunicable(call, e.code(), e.what());
    }
}

// The rule for the arguments of a hot-path call (execute, exchange) on comm: no
// extra collective by default. `check` runs on every rank; in checked mode its
// outcome is agreed (the same error on every rank); otherwise a failure ends the
// job naming the call, because the other ranks may already be exchanging.
template <class F>
void hot_path(MPI_Comm comm, const char *call, F &&check) {
    if (checked_mode()) {
        CallScope scope(call);
        collective(comm, check);
        return;
    }
    try {
        check();
    } catch (const Error &e) {
        int size = 1;
        MPI_Comm_size(comm, &size);
        if (size == 1) throw;
        fail_uncommunicable(call, e.code(), e.what());
    }
}

// For C entry points: DM_ERR_ARG naming a pointer argument that is NULL.
template <class T>
void require_pointer(const T *p, const char *name) {
    if (!p) fail(DM_ERR_ARG, name, " is NULL");
}

// C boundary: records the message of the active exception and returns its status.
int record_current_exception() noexcept;

// Runs `body` for the extern "C" entry point `call` (its __func__) and returns its status.
template <class F>
int c_boundary(const char *call, F &&body) noexcept {
    CallScope scope(call);
    try {
        body();
        return DM_OK;
    } catch (...) {
        return record_current_exception();
    }
}

}  // namespace dm
