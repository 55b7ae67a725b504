#include "harness.hpp"

#include <exception>

int main(int argc, char **argv) {
    int provided = 0;
    // MPI_THREAD_MULTIPLE also keeps MPICH from spinning hard when ranks outnumber cores.
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    const int rank = dmtest::world_rank(), size = dmtest::world_size();
    int failed_tests = 0, passed_tests = 0;
    for (const auto &test : dmtest::registry()) {
        const int before = dmtest::failures();
        const double start = MPI_Wtime();
        try {
            test.body();
        } catch (const std::exception &e) {
            dmtest::report(__FILE__, __LINE__, std::string(test.name) + " threw: " + e.what());
        }
        int mine = dmtest::failures() > before, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            // The time shows where a run's budget goes.
            std::printf("%-48s %s (%d ranks, %.2f s)\n", test.name, any ? "FAILED" : "ok", size, MPI_Wtime() - start);
            std::fflush(stdout);  // a launcher may kill the job as soon as any rank exits non-zero
        }
        (any ? failed_tests : passed_tests) += 1;
    }
    if (rank == 0) {
        std::printf("%d passed, %d failed\n", passed_tests, failed_tests);
        std::fflush(stdout);
    }
    MPI_Finalize();
    return failed_tests ? 1 : 0;
}
