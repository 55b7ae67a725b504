#include "exchange/mpi_bytes.hpp"

#include "core/error.hpp"

#include <climits>
#include <map>
#include <mutex>

namespace dm::exchange {

MPI_Datatype bytes_type(std::int64_t bytes) {
    if (bytes < 0) fail(DM_ERR_ARG, "a byte datatype of ", bytes, " bytes");
    MPI_Datatype type = MPI_DATATYPE_NULL;
    if (bytes <= INT_MAX) {
        check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &type), "MPI_Type_contiguous");
        return type;
    }
    MPI_Datatype piece = MPI_DATATYPE_NULL, parts[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    check_mpi(MPI_Type_contiguous(static_cast<int>(kLargestMessage), MPI_BYTE, &piece), "MPI_Type_contiguous");
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes / kLargestMessage), piece, &parts[0]), "MPI_Type_contiguous");
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes % kLargestMessage), MPI_BYTE, &parts[1]),
              "MPI_Type_contiguous");
    int lengths[2] = {1, 1};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(bytes / kLargestMessage * kLargestMessage)};
    check_mpi(MPI_Type_create_struct(2, lengths, displs, parts, &type), "MPI_Type_create_struct");
    MPI_Type_free(&piece);
    MPI_Type_free(&parts[0]);
    MPI_Type_free(&parts[1]);
    return type;
}

namespace {

struct SharedTypes {
    std::mutex lock;
    std::map<std::int64_t, MPI_Datatype> types;
    int keyval = MPI_KEYVAL_INVALID;
};

// Never destroyed: MPI_Finalize may run after static destructors (from an atexit
// handler registered before the first use here) and still needs the map.
SharedTypes &shared() {
    static auto *s = new SharedTypes;
    return *s;
}

// MPI_Finalize deletes MPI_COMM_SELF's attributes first, while types can still be freed.
int free_shared_types(MPI_Comm, int, void *, void *) {
    SharedTypes &s = shared();
    const std::lock_guard<std::mutex> hold(s.lock);
    for (auto &entry : s.types) MPI_Type_free(&entry.second);
    s.types.clear();
    return MPI_SUCCESS;
}

}  // namespace

MPI_Datatype shared_bytes_type(std::int64_t bytes) {
    SharedTypes &s = shared();
    const std::lock_guard<std::mutex> hold(s.lock);
    const auto found = s.types.find(bytes);
    if (found != s.types.end()) return found->second;
    if (s.keyval == MPI_KEYVAL_INVALID) {
        check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_shared_types, &s.keyval, nullptr),
                  "MPI_Comm_create_keyval");
        check_mpi(MPI_Comm_set_attr(MPI_COMM_SELF, s.keyval, nullptr), "MPI_Comm_set_attr");
    }
    MPI_Datatype type = bytes_type(bytes);
    const int rc = MPI_Type_commit(&type);
    if (rc != MPI_SUCCESS) MPI_Type_free(&type);
    check_mpi(rc, "MPI_Type_commit");
    s.types.emplace(bytes, type);
    return type;
}

}  // namespace dm::exchange
