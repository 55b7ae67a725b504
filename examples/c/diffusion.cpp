// diffusion.cpp — datamotion's C API from C++: each handle owned by a std::unique_ptr,
// each failed call an exception.
//
//   mpiexec -n 4 ./diffusion
//   (with the mpiexec of the MPI datamotion was built with: .venv/bin/mpiexec after ./dev install)
//
// A C++ program includes the same headers as a C one (they declare the API extern "C")
// and links datamotion::datamotion, or only the layers it uses. The owners below call
// dm_x_free(&h) when they go out of scope, on every path out, the throw included. That
// is safe because the calls that create, use and free the handles are collective and
// fail on every rank alike: every rank throws at the same call and frees the same
// handles in the same order.
//
// The program diffuses heat along a periodic ring of N cells: one plan of two CSHIFTs,
// set up once, brings every cell both neighbours each step, u' = u + k (left - 2u + right);
// rank 0 checks the result against the same steps done serially.
#include <datamotion/datamotion.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace {

constexpr std::int64_t N = 37;  // not a multiple of the ranks: blocks of unequal size
constexpr int STEPS = 10;
constexpr double K = 0.25;

// A failed call as an exception carrying datamotion's message.
void check(int status, const char *call) {
    if (status != DM_OK)
        throw std::runtime_error(std::string(call) + ": " + dm_status_name(status) + ": " + dm_last_error_message());
}

// The owner of one kind of handle: a unique_ptr whose deleter is that kind's dm_x_free.
template <class Handle, int (*Free)(Handle *)>
struct Freer {
    void operator()(Handle handle) const { Free(&handle); }  // a destructor has no one to report to
};
template <class Handle, int (*Free)(Handle *)>
using Owned = std::unique_ptr<std::remove_pointer_t<Handle>, Freer<Handle, Free>>;
using Grid = Owned<dm_grid, dm_grid_free>;
using Array = Owned<dm_array, dm_array_free>;
using PShift = Owned<dm_pshift, dm_pshift_free>;

Grid make_grid(MPI_Comm comm) {
    dm_grid grid = nullptr;
    check(dm_grid_create(comm, 1, nullptr, nullptr, DM_ORDER_SEND, &grid), "dm_grid_create");
    return Grid(grid);
}

// A 1-d float64 array of N elements in CM blocks; `filled` zeroes it, else its storage
// is left for a shift to write.
Array make_array(const Grid &grid, bool filled) {
    dm_array array = nullptr;
    auto create = filled ? dm_array_create : dm_array_create_empty;
    check(create(grid.get(), DM_FLOAT64, 1, &N, nullptr, nullptr, &array),
          filled ? "dm_array_create" : "dm_array_create_empty");
    return Array(array);
}

// This rank's elements of a 1-d array without ghosts (contiguous).
double *local(const Array &array, std::int64_t *count) {
    void *data = nullptr;
    check(dm_array_local(array.get(), &data, count, nullptr), "dm_array_local");
    return static_cast<double *>(data);
}

// The ring after STEPS steps, computed by the ranks of comm; rank 0 gets it whole.
std::vector<double> diffuse(MPI_Comm comm, const std::vector<double> &start, int rank) {
    const Grid grid = make_grid(comm);
    const Array u = make_array(grid, true), left = make_array(grid, false), right = make_array(grid, false);
    check(dm_array_scatter(u.get(), start.data(), DM_ALL_RANKS), "dm_array_scatter");

    // r[i] = u[i - 1] is the left neighbour, r[i] = u[i + 1] the right one.
    const dm_shift_spec specs[2] = {{DM_CSHIFT, 0, -1, DM_BOUNDARY_ZERO}, {DM_CSHIFT, 0, +1, DM_BOUNDARY_ZERO}};
    dm_pshift raw = nullptr;
    check(dm_pshift_setup(u.get(), 2, specs, &raw), "dm_pshift_setup");
    const PShift plan(raw);
    const dm_array dsts[2] = {left.get(), right.get()}, srcs[2] = {u.get(), u.get()};

    std::int64_t count = 0;
    double *x = local(u, &count), *l = local(left, nullptr), *r = local(right, nullptr);
    for (int step = 0; step < STEPS; ++step) {
        check(dm_pshift_execute(plan.get(), dsts, srcs, nullptr), "dm_pshift_execute");
        for (std::int64_t i = 0; i < count; ++i) x[i] += K * (l[i] - 2 * x[i] + r[i]);
    }

    std::vector<double> result(rank == 0 ? N : 0);
    check(dm_array_gather(u.get(), rank == 0 ? result.data() : nullptr, 0), "dm_array_gather");
    return result;
}  // plan, arrays and grid freed here, in reverse order of creation

}  // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);

    std::vector<double> start(N, 0.0), serial(N);
    start[N / 2] = 1.0;  // all the heat in one cell
    int status = 0;
    try {
        const std::vector<double> result = diffuse(MPI_COMM_WORLD, start, rank);
        if (rank == 0) {
            std::vector<double> u = start;
            for (int step = 0; step < STEPS; ++step) {
                for (std::int64_t i = 0; i < N; ++i)
                    serial[i] = u[i] + K * (u[(i + N - 1) % N] - 2 * u[i] + u[(i + 1) % N]);
                u.swap(serial);
            }
            double err = 0;
            for (std::int64_t i = 0; i < N; ++i) err = std::fmax(err, std::fabs(result[i] - u[i]));
            std::printf("heat on a ring of %lld cells, %d steps of one PSHIFT each: max difference from serial %.1e (%s)\n",
                        static_cast<long long>(N), STEPS, err, err < 1e-12 ? "ok" : "WRONG");
            status = err < 1e-12 ? 0 : 1;
        }
    } catch (const std::exception &e) {
        // Every rank failed the same collective call: one of them says so.
        if (rank == 0) std::fprintf(stderr, "diffusion: %s\n", e.what());
        status = 1;
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);  // rank 0's check decides every rank's exit status
    MPI_Finalize();
    return status;
}
