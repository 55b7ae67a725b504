#include "core/provenance.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <set>

#ifndef DATAMOTION_VERSION
#define DATAMOTION_VERSION "unknown"
#endif
#ifndef DATAMOTION_BUILD_TYPE
#define DATAMOTION_BUILD_TYPE "unknown"
#endif
#ifndef DATAMOTION_GIT_REVISION
#define DATAMOTION_GIT_REVISION "unknown"
#endif

namespace dm {
namespace {

std::string thread_level_name(int level) {
    if (level == MPI_THREAD_SINGLE) return "single";
    if (level == MPI_THREAD_FUNNELED) return "funneled";
    if (level == MPI_THREAD_SERIALIZED) return "serialized";
    if (level == MPI_THREAD_MULTIPLE) return "multiple";
    return "unknown";
}

// Sorted distinct host names of all ranks of comm.
std::vector<std::string> gather_hosts(MPI_Comm comm, int size) {
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len = 0;
    check_mpi(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
    std::vector<char> all(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
    check_mpi(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(),
                            MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm),
              "MPI_Allgather");
    std::set<std::string> hosts;
    for (int r = 0; r < size; ++r) {
        const char *h = all.data() + static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME;
        hosts.insert(std::string(h, strnlen(h, MPI_MAX_PROCESSOR_NAME)));
    }
    return {hosts.begin(), hosts.end()};
}

// Smallest nonzero step of steady_clock seen in a short busy loop.
double steady_clock_resolution() {
    using clock = std::chrono::steady_clock;
    double best = 1.0;
    for (int i = 0; i < 64; ++i) {
        auto t0 = clock::now(), t1 = t0;
        while (t1 == t0) t1 = clock::now();
        best = std::min(best, std::chrono::duration<double>(t1 - t0).count());
    }
    return best;
}

std::string number(double x) { return general_text(x, 6); }

}  // namespace

std::string json_string(const std::string &s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c == '\n') {
            out += "\\n";
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

std::vector<std::pair<std::string, std::string>> provenance(MPI_Comm comm) {
    require_mpi_initialized();
    int size = 0, version = 0, subversion = 0, thread_level = 0, len = 0;
    check_mpi(MPI_Comm_size(comm, &size), "MPI_Comm_size");
    check_mpi(MPI_Get_version(&version, &subversion), "MPI_Get_version");
    check_mpi(MPI_Query_thread(&thread_level), "MPI_Query_thread");
    char library[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    check_mpi(MPI_Get_library_version(library, &len), "MPI_Get_library_version");
    std::string lib(library, static_cast<size_t>(len));
    while (!lib.empty() && (lib.back() == '\n' || lib.back() == ' ' || lib.back() == '\0')) lib.pop_back();
    std::string first_line;  // e.g. "MPICH Version: 5.0.2", runs of blanks collapsed
    for (char c : lib.substr(0, lib.find('\n'))) {
        bool blank = c == ' ' || c == '\t';
        if (!(blank && (first_line.empty() || first_line.back() == ' '))) first_line += blank ? ' ' : c;
    }

    std::string hosts = "[";
    for (const auto &h : gather_hosts(comm, size)) hosts += (hosts.size() > 1 ? ", " : "") + json_string(h);
    hosts += "]";

    return {
        {"library", json_string("datamotion")},
        {"version", json_string(DATAMOTION_VERSION)},
        {"git_revision", json_string(DATAMOTION_GIT_REVISION)},
        {"build_type", json_string(DATAMOTION_BUILD_TYPE)},
        {"compiler", json_string(
#if defined(__clang__)
                         "clang " __clang_version__
#elif defined(__GNUC__)
                         "gcc " __VERSION__
#else
                         "unknown"
#endif
                         )},
        {"mpi_standard", json_string(std::to_string(version) + "." + std::to_string(subversion))},
        {"mpi_library", json_string(first_line)},
        {"mpi_library_full", json_string(lib)},
        {"ranks", std::to_string(size)},
        {"hosts", hosts},
        {"thread_level", json_string(thread_level_name(thread_level))},
        {"wtick_s", number(MPI_Wtick())},
        {"steady_clock_resolution_s", number(steady_clock_resolution())},
    };
}

std::string provenance_json(MPI_Comm comm) {
    std::string out = "{";
    for (const auto &[key, value] : provenance(comm)) {
        if (out.size() > 1) out += ", ";
        out += json_string(key) + ": " + value;
    }
    return out + "}";
}

}  // namespace dm

extern "C" {
const char *dm_version(void) { return DATAMOTION_VERSION; }
double dm_wtime(void) { return MPI_Wtime(); }
double dm_wtick(void) { return MPI_Wtick(); }

int dm_provenance_json(MPI_Comm comm, char *buf, size_t len, size_t *needed) {
    return dm::c_boundary(__func__, [&] {
        std::string text = dm::provenance_json(comm);
        if (needed) *needed = text.size() + 1;
        if (buf && len > 0) {
            size_t n = std::min(len - 1, text.size());
            std::memcpy(buf, text.data(), n);
            buf[n] = '\0';
        }
    });
}

}
