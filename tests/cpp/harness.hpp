// A small MPI-aware test harness: every rank runs every test, failures are
// counted per rank, and the exit code is agreed so one failing rank fails the run.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace dmtest {

struct Test {
    const char *name;
    std::function<void()> body;
};

inline std::vector<Test> &registry() {
    static std::vector<Test> tests;
    return tests;
}

inline int &failures() {
    static int count = 0;
    return count;
}

struct Registrar {
    Registrar(const char *name, std::function<void()> body) { registry().push_back({name, std::move(body)}); }
};

inline void report(const char *file, int line, const std::string &what) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    std::fprintf(stderr, "[rank %d] %s:%d: check failed: %s\n", rank, file, line, what.c_str());
    ++failures();
}

inline int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

inline int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

// Whether a mistake in a hot-path call (execute, exchange) or a bad handle in a
// collective call comes back as an error on every rank: with one rank, or in checked
// mode (DATAMOTION_CHECK=1). Otherwise it ends the job by design, which
// tests/cpp/abort_on_one_rank.c covers.
inline bool mistakes_return() {
    const char *check = std::getenv("DATAMOTION_CHECK");
    const bool checked = check && *check && std::string(check) != "0";
    return world_size() == 1 || checked;
}
// Whether a NULL, freed or never created handle in a collective call comes back as
// DM_ERR_STATE: only with one rank (the rank cannot know the call's communicator).
inline bool bad_handles_return() { return world_size() == 1; }

}  // namespace dmtest

#define DM_TEST(name)                                                   \
    static void name();                                                 \
    static const dmtest::Registrar name##_registrar(#name, name);      \
    static void name()

#define CHECK(cond)                                                     \
    do {                                                                \
        if (!(cond)) dmtest::report(__FILE__, __LINE__, #cond);         \
    } while (0)

// Text equality, showing both texts when they differ.
#define CHECK_TEXT(a, b)                                                \
    do {                                                                \
        const std::string check_a_ = (a), check_b_ = (b);               \
        if (check_a_ != check_b_)                                       \
            dmtest::report(__FILE__, __LINE__,                          \
                           std::string(#a " == " #b " (\"") + check_a_ + "\" vs \"" + check_b_ + "\")"); \
    } while (0)

#define CHECK_EQ(a, b)                                                  \
    do {                                                                \
        auto check_a_ = (a);                                            \
        auto check_b_ = (b);                                            \
        if (!(check_a_ == check_b_))                                    \
            dmtest::report(__FILE__, __LINE__,                          \
                           std::string(#a " == " #b " (") + std::to_string(check_a_) + " vs " + \
                               std::to_string(check_b_) + ")");         \
    } while (0)
