#include "core/error.hpp"

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <new>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

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
    const StepOutcome step = agreement_step(comm, "errors", local != nullptr, nullptr, 0);
    int rank = 0, size = 1;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    if (step.failing_rank == size) return;
    auto [code, text] = rank == step.failing_rank ? describe(local) : std::pair<int, std::string>{DM_OK, std::string()};
    raise_agreed(comm, step.failing_rank, code, text);
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
    if (initialized && !finalized) {
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        MPI_Comm_size(MPI_COMM_WORLD, &size);
    }
    std::string line = "datamotion: error on rank " + std::to_string(rank) + " of " + std::to_string(size) + ": " +
                       call + ": " + message + " [" + dm_status_name(code) + "]; ending the job, since the other " +
                       "ranks cannot be told (DATAMOTION_CHECK=1 turns argument mistakes into errors on every rank)";
    end_job(code, line);
}

void end_job(int code, const std::string &line) {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
    // MPI_Abort makes the launcher end every process at once; a moment first lets it
    // forward this message, which it may otherwise drop.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (initialized && !finalized) {
        // MPICH (and MPICH-based MPIs) print a line of their own from MPI_Abort,
        // "Abort(1) on node 1 (rank 1 in comm 0): application called MPI_Abort(...)",
        // which MPIR_CVAR_SUPPRESS_ABORT_MESSAGE shortens but does not remove: this
        // process's stderr goes to /dev/null first, so the mistake is the one line above.
        // (Open MPI's paragraph comes from its launcher, mpiexec --quiet drops it.)
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) dup2(devnull, STDERR_FILENO);
        MPI_Abort(MPI_COMM_WORLD, code > 0 ? code : 1);
        _exit(code > 0 ? code : 1);  // MPICH's MPI_Abort may return until the launcher's kill arrives
    }
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
