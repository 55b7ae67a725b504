#include "core/error.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <new>
#include <thread>

namespace dm {
namespace {
thread_local std::string last_error_message;

// Code and message of an exception; anything not a dm::Error is a bug or a resource failure.
std::pair<int, std::string> describe(std::exception_ptr e) {
    try {
        std::rethrow_exception(e);
    } catch (const Error &err) {
        return {err.code(), err.what()};
    } catch (const std::bad_alloc &) {
        return {DM_ERR_MEMORY, "out of memory"};
    } catch (const std::exception &err) {
        return {DM_ERR_INTERNAL, std::string("internal error: ") + err.what()};
    } catch (...) {
        return {DM_ERR_INTERNAL, "internal error: unknown exception"};
    }
}
}  // namespace

void check_mpi(int rc, const char *call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    fail(DM_ERR_MPI, call, " failed: ", std::string(text, static_cast<size_t>(len)));
}

void require_mpi_initialized() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (!initialized) fail(DM_ERR_STATE, "MPI is not initialised: call MPI_Init before datamotion");
    if (finalized) fail(DM_ERR_STATE, "MPI is already finalised");
}

void agree(MPI_Comm comm, std::exception_ptr local) {
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    int mine = local ? rank : size, first = size;
    check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce");
    if (first == size) return;

    auto [code, text] = rank == first ? describe(local) : std::pair<int, std::string>{DM_OK, std::string()};
    raise_agreed(comm, first, code, text);
}

void raise_agreed(MPI_Comm comm, int root, int code, const std::string &message) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    int header[2] = {code, 0};  // code, message length
    std::string text;
    if (rank == root) {
        text = message.size() > INT_MAX / 2 ? message.substr(0, INT_MAX / 2) : message;
        header[1] = static_cast<int>(text.size());
    }
    check_mpi(MPI_Bcast(header, 2, MPI_INT, root, comm), "MPI_Bcast");
    text.resize(static_cast<size_t>(header[1]));
    check_mpi(MPI_Bcast(text.data(), header[1], MPI_CHAR, root, comm), "MPI_Bcast");
    throw AgreedError(header[0], text);
}

void require_same(MPI_Comm comm, const std::vector<std::int64_t> &values, const std::string &what) {
    // One reduction of a fixed size, whatever the length of `values`: the length
    // and two independent 64-bit hashes, each with its negation, so that one
    // MPI_MAX yields both the maximum and the minimum over the ranks.
    std::uint64_t h1 = 1469598103934665603ull, h2 = 0x9E3779B97F4A7C15ull;
    for (std::int64_t v : values) {
        auto u = static_cast<std::uint64_t>(v);
        h1 = (h1 ^ u) * 1099511628211ull;                      // FNV-1a over whole words
        h2 = (h2 ^ (u + 0x9E3779B97F4A7C15ull + (h2 << 6) + (h2 >> 2))) * 0xff51afd7ed558ccdull;
    }
    const std::int64_t mine[3] = {static_cast<std::int64_t>(values.size()), static_cast<std::int64_t>(h1 >> 1),
                                  static_cast<std::int64_t>(h2 >> 1)};
    std::int64_t both[6], out[6];
    for (int i = 0; i < 3; ++i) {
        both[i] = mine[i];
        both[3 + i] = -mine[i];
    }
    check_mpi(MPI_Allreduce(both, out, 6, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    for (int i = 0; i < 3; ++i)
        if (out[i] != -out[3 + i]) fail(DM_ERR_MISMATCH, what, " differs across ranks");
}

bool checked_mode() {
    static const bool on = [] {
        const char *v = std::getenv("DATAMOTION_CHECK");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

void abort_job(const char *call, int code, const std::string &message) {
    int rank = -1, size = 0, initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    const bool usable = initialized && !finalized;
    if (usable) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    std::fprintf(stderr, "datamotion: error on rank %d of %d: %s: %s [%s]; ending the job, since the other ranks "
                 "cannot be told (DATAMOTION_CHECK=1 turns argument mistakes into errors on every rank)\n",
                 rank, size, call, message.c_str(), dm_status_name(code));
    std::fflush(stderr);
    // MPI_Abort makes the launcher end every process at once; a moment first lets it
    // forward this message, which it may otherwise drop.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (usable) MPI_Abort(MPI_COMM_WORLD, code > 0 ? code : 1);
    std::abort();
}

void fail_uncommunicable(const char *call, int code, const std::string &message) {
    int size = 1, initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized) MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size <= 1) throw Error(code, message);
    abort_job(call, code, message);
}

int record_current_exception() noexcept {
    auto [code, text] = describe(std::current_exception());
    try {
        last_error_message = text;
    } catch (...) {
        last_error_message.clear();
    }
    return code;
}

}  // namespace dm

extern "C" {
const char *dm_last_error_message(void) { return dm::last_error_message.c_str(); }

const char *dm_status_name(int status) {
    switch (status) {
        case DM_OK: return "DM_OK";
        case DM_ERR_ARG: return "DM_ERR_ARG";
        case DM_ERR_TYPE: return "DM_ERR_TYPE";
        case DM_ERR_MISMATCH: return "DM_ERR_MISMATCH";
        case DM_ERR_MPI: return "DM_ERR_MPI";
        case DM_ERR_MEMORY: return "DM_ERR_MEMORY";
        case DM_ERR_STATE: return "DM_ERR_STATE";
        case DM_ERR_UNSUPPORTED: return "DM_ERR_UNSUPPORTED";
        case DM_ERR_INTERNAL: return "DM_ERR_INTERNAL";
        default: return "DM_ERR_UNKNOWN";
    }
}
}
