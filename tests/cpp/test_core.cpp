// Core: status names, element types, collective error agreement, provenance.
#include "c_enums.h"
#include "harness.hpp"

#include "core/dtype.hpp"
#include "core/error.hpp"
#include "core/host_memory.hpp"

#include <datamotion/datamotion.h>

#include <cstdint>
#include <cstring>
#include <tuple>
#include <utility>
#include <vector>
#include <string>

namespace {

// The same string on every rank?
bool same_everywhere(const std::string &s) {
    int len = static_cast<int>(s.size()), lo = 0, hi = 0;
    MPI_Allreduce(&len, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&len, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi) return false;
    std::string root = s;
    MPI_Bcast(root.data(), len, MPI_CHAR, 0, MPI_COMM_WORLD);
    int differs = root != s, any = 0;
    MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return !any;
}

}  // namespace

DM_TEST(dtype_sizes_and_names) {
    const size_t sizes[DM_NUM_DTYPES] = {4, 8, 4, 8, 8, 16, 1};
    for (int t = 0; t < DM_NUM_DTYPES; ++t) {
        CHECK_EQ(dm_dtype_size(static_cast<dm_dtype>(t)), sizes[t]);
        MPI_Datatype mpi;
        CHECK_EQ(dm_dtype_mpi(static_cast<dm_dtype>(t), &mpi), DM_OK);
        int bytes = 0;
        MPI_Type_size(mpi, &bytes);
        CHECK_EQ(static_cast<size_t>(bytes), sizes[t]);
    }
    CHECK_EQ(dmtest_dtype_size(99), size_t{0});  // out of the enum's range: read as an integer
    CHECK_EQ(dmtest_dtype_size(-1), size_t{0});
    CHECK(std::strcmp(dmtest_dtype_name(1 << 30), "invalid") == 0);
    CHECK(std::strcmp(dm_dtype_name(DM_COMPLEX128), "complex128") == 0);
    MPI_Datatype mpi;
    CHECK_EQ(dmtest_dtype_mpi(-1, &mpi), DM_ERR_TYPE);
    CHECK(std::strstr(dm_last_error_message(),
                      "unsupported element type code -1 (supported: int32, int64, float32, float64, complex64, "
                      "complex128, bool)") != nullptr);
}

DM_TEST(status_names) {
    CHECK(std::strcmp(dm_status_name(DM_OK), "DM_OK") == 0);
    CHECK(std::strcmp(dm_status_name(DM_ERR_MISMATCH), "DM_ERR_MISMATCH") == 0);
    CHECK(std::strcmp(dm_status_name(12345), "DM_ERR_UNKNOWN") == 0);
}

DM_TEST(error_on_one_rank_is_raised_on_all) {
    const int rank = dmtest::world_rank(), size = dmtest::world_size();
    const int culprit = size - 1;
    int code = DM_OK;
    std::string message;
    try {
        dm::collective(MPI_COMM_WORLD, [&] {
            if (rank == culprit) dm::fail(DM_ERR_ARG, "bad argument on rank ", rank);
        });
    } catch (const dm::Error &e) {
        code = e.code();
        message = e.what();
    }
    CHECK_EQ(code, DM_ERR_ARG);
    CHECK(message == "bad argument on rank " + std::to_string(culprit));
    CHECK(same_everywhere(message));
}

DM_TEST(lowest_failing_rank_wins) {
    const int rank = dmtest::world_rank();
    std::string message;
    try {
        dm::collective(MPI_COMM_WORLD, [&] { dm::fail(DM_ERR_TYPE, "failure of rank ", rank); });
    } catch (const dm::Error &e) {
        message = e.what();
        CHECK_EQ(e.code(), DM_ERR_TYPE);
    }
    CHECK(message == "failure of rank 0");
}

DM_TEST(non_datamotion_exceptions_are_agreed_too) {
    std::string message;
    try {
        dm::collective(MPI_COMM_WORLD, [&] {
            if (dmtest::world_rank() == 0) throw std::logic_error("boom");
        });
    } catch (const dm::Error &e) {
        message = e.what();
        CHECK_EQ(e.code(), DM_ERR_INTERNAL);
    }
    CHECK(message == "internal error: boom");
}

DM_TEST(require_same_detects_mismatch) {
    const int rank = dmtest::world_rank(), size = dmtest::world_size();
    int code = DM_OK;
    try {
        dm::require_same(MPI_COMM_WORLD, {1, 2, 3}, "shape");
    } catch (const dm::Error &e) {
        code = e.code();
    }
    CHECK_EQ(code, DM_OK);
    // Different values, then different lengths, on the last rank only.
    for (int variant = 0; variant < 2; ++variant) {
        std::vector<std::int64_t> v = {1, 2, 3};
        if (rank == size - 1 && size > 1) {
            if (variant == 0) v[1] = 7;
            else v.push_back(4);
        }
        code = DM_OK;
        std::string message;
        try {
            dm::require_same(MPI_COMM_WORLD, v, "shape");
        } catch (const dm::Error &e) {
            code = e.code();
            message = e.what();
        }
        CHECK_EQ(code, size > 1 ? DM_ERR_MISMATCH : DM_OK);
        const std::string last = variant == 0 ? "(1, 7, 3)" : "(1, 2, 3, 4)";
        if (size > 1)
            CHECK_TEXT(message, "shape differs across ranks: (1, 2, 3) on rank 0, " + last + " on rank " +
                                  std::to_string(size - 1));
    }
}

// Runs `body` and returns the code and message of the dm::Error it throws (DM_OK, "" if none).
template <class F>
std::pair<int, std::string> outcome_of(F &&body) {
    try {
        body();
    } catch (const dm::Error &e) {
        return {e.code(), e.what()};
    }
    return {DM_OK, ""};
}

DM_TEST(ranks_in_different_calls_are_told_which) {
    // The last rank is in another call, whose first agreement has another shape
    // (an error agreement against a comparison of values): every rank gets the same
    // DM_ERR_MISMATCH naming both calls, and no MPI error.
    const int rank = dmtest::world_rank(), size = dmtest::world_size();
    if (size == 1) return;
    const bool odd = rank == size - 1;
    auto [code, message] = outcome_of([&] {
        dm::CallScope call(odd ? "redistribute" : "DistArray.to_global");
        if (odd) dm::agree(MPI_COMM_WORLD, nullptr);
        else dm::require_same(MPI_COMM_WORLD, {1, 2, 3, 4, 5, 6, 7, 8, 9}, "root");
    });
    CHECK_EQ(code, DM_ERR_MISMATCH);
    CHECK_TEXT(message, "the ranks are in different collective calls: rank 0 is in DistArray.to_global, rank " +
                          std::to_string(size - 1) + " in redistribute; every rank of the communicator must make the " +
                          "same collective calls in the same order");
    // The same call at different checks.
    std::tie(code, message) = outcome_of([&] {
        dm::CallScope call("DistArray.zeros");
        dm::CallScope inner("ignored: the outermost scope names the call");
        dm::require_same(MPI_COMM_WORLD, {3}, odd ? "element type" : "global shape");
    });
    CHECK_EQ(code, DM_ERR_MISMATCH);
    CHECK(message.find("the ranks took different paths through DistArray.zeros: rank 0 checks global shape, rank " +
                       std::to_string(size - 1) + " checks element type") == 0);
    CHECK_TEXT(dm::current_call(), "");
    // Agreement still works afterwards.
    std::tie(code, message) = outcome_of([&] { dm::require_same(MPI_COMM_WORLD, {1}, "x"); });
    CHECK_EQ(code, DM_OK);
}

DM_TEST(provenance_is_json_with_mpi_and_ranks) {
    size_t needed = 0;
    CHECK_EQ(dm_provenance_json(MPI_COMM_WORLD, nullptr, 0, &needed), DM_OK);
    // Clock measurements may change the length between calls: leave room.
    std::string text(needed + 256, '\0');
    CHECK_EQ(dm_provenance_json(MPI_COMM_WORLD, text.data(), text.size(), nullptr), DM_OK);
    text.resize(std::strlen(text.c_str()));
    CHECK(text.front() == '{' && text.back() == '}');
    CHECK(text.find("\"mpi_library\"") != std::string::npos);
    CHECK(text.find("\"ranks\": " + std::to_string(dmtest::world_size())) != std::string::npos);
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    const char *name = level == MPI_THREAD_MULTIPLE ? "multiple" : level == MPI_THREAD_SERIALIZED ? "serialized"
                     : level == MPI_THREAD_FUNNELED ? "funneled" : "single";
    CHECK(text.find(std::string("\"thread_level\": \"") + name + "\"") != std::string::npos);
    const double t0 = dm_wtime(), t1 = dm_wtime();
    CHECK(dm_wtick() > 0.0 && t1 >= t0);
}

DM_TEST(host_memory_keeps_freed_large_blocks_for_the_next) {
    using dm::host::kLargeBytes;
    const auto before = dm::host::kept();
    // Small blocks: the heap's, aligned, never kept.
    void *small = dm::host::allocate(100);
    CHECK(small && reinterpret_cast<std::uintptr_t>(small) % 64 == 0);
    std::memset(small, 1, 100);
    dm::host::release(small, 100);
    CHECK(dm::host::kept().blocks == before.blocks);
    // A large block freed and asked for again (a result per call) is the same memory.
    const std::size_t big = 5 * kLargeBytes + 5;
    auto *a = static_cast<unsigned char *>(dm::host::allocate(big));
    CHECK(a && reinterpret_cast<std::uintptr_t>(a) % 64 == 0);
    std::memset(a, 7, big);
    dm::host::release(a, big);
    CHECK(dm::host::kept().blocks == before.blocks + 1);
    void *again = dm::host::allocate(big - 100);
    CHECK(again == a);
    CHECK(dm::host::kept().blocks == before.blocks);
    // A kept block more than twice a request is not handed to it; both are kept after.
    void *other = dm::host::allocate(kLargeBytes);
    dm::host::release(again, big - 100);
    void *third = dm::host::allocate(kLargeBytes);
    CHECK(third != a);
    dm::host::release(other, kLargeBytes);
    dm::host::release(third, kLargeBytes);
    // What is kept stays bounded however many blocks are freed.
    std::vector<void *> many;
    for (int k = 0; k < 12; ++k) many.push_back(dm::host::allocate(kLargeBytes));
    for (void *p : many) dm::host::release(p, kLargeBytes);
    const auto after = dm::host::kept();
    CHECK(after.blocks <= 8 && after.bytes <= dm::host::kKeptBytes);
    dm::host::release(nullptr, kLargeBytes);  // ignored, like free(NULL)
}
