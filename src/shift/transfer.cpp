#include "shift/transfer.hpp"

#include "core/error.hpp"

namespace dm::shift {

void Volume::add(const std::vector<Message> &sends, const std::vector<Message> &recvs,
                 const std::vector<LocalCopy> &copies) {
    messages_sent += static_cast<std::int64_t>(sends.size());
    messages_received += static_cast<std::int64_t>(recvs.size());
    for (const auto &m : sends) elements_sent += m.count;
    for (const auto &c : copies) elements_copied += c.to.count();
}

void free_types(std::vector<Message> &messages) {
    for (auto &m : messages)
        if (m.type != MPI_DATATYPE_NULL) MPI_Type_free(&m.type);
}

int tag_upper_bound(MPI_Comm comm) {
    int *value = nullptr, found = 0;
    check_mpi(MPI_Comm_get_attr(comm, MPI_TAG_UB, &value, &found), "MPI_Comm_get_attr");
    return found && value ? *value : 32767;
}

void PersistentRequests::start() {
    if (!requests_.empty())
        check_mpi(MPI_Startall(static_cast<int>(requests_.size()), requests_.data()), "MPI_Startall");
}

void PersistentRequests::wait() {
    if (!requests_.empty())
        check_mpi(MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall");
}

void PersistentRequests::release() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        for (MPI_Request &r : requests_)
            if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    requests_.clear();
    bound_.clear();
}

void init_messages(std::vector<MPI_Request> &out, const std::vector<Message> &recvs, void *target,
                   const std::vector<Message> &sends, const void *source, MPI_Comm comm) {
    for (const Message &m : recvs) {
        out.push_back(MPI_REQUEST_NULL);
        check_mpi(MPI_Recv_init(target, 1, m.type, m.peer, m.tag, comm, &out.back()), "MPI_Recv_init");
    }
    for (const Message &m : sends) {
        out.push_back(MPI_REQUEST_NULL);
        check_mpi(MPI_Send_init(source, 1, m.type, m.peer, m.tag, comm, &out.back()), "MPI_Send_init");
    }
}

}  // namespace dm::shift
