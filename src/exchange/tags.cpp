#include "exchange/tags.hpp"

#include "core/error.hpp"

#include <memory>

namespace dm::exchange {

namespace {

int delete_counter(MPI_Comm, int, void *value, void *) {
    delete static_cast<int *>(value);
    return MPI_SUCCESS;
}

}  // namespace

int largest_tag(MPI_Comm comm) {
    int *value = nullptr, found = 0;
    check_mpi(MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found), "MPI_Comm_get_attr");
    return found && value ? *value : 32767;
}

int next_plan_tag(MPI_Comm comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    if (keyval == MPI_KEYVAL_INVALID)
        check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_counter, &keyval, nullptr),
                  "MPI_Comm_create_keyval");
    int *counter = nullptr, found = 0;
    check_mpi(MPI_Comm_get_attr(comm, keyval, &counter, &found), "MPI_Comm_get_attr");
    if (!found) {
        auto fresh = std::make_unique<int>(kFirstPlanTag);
        check_mpi(MPI_Comm_set_attr(comm, keyval, fresh.get()), "MPI_Comm_set_attr");
        counter = fresh.release();
    }
    const int tag = *counter;
    *counter = tag >= largest_tag(comm) ? kFirstPlanTag : tag + 1;
    return tag;
}

}  // namespace dm::exchange
