// Pieces shared by the shift plans: messages as boxes of storage, local copies,
// and persistent requests kept while the same buffers come back.
#pragma once

#include "array/box.hpp"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace dm::shift {

struct Message {
    int peer, tag;
    MPI_Datatype type;  // a box of the storage: sent from it, or received into it
    std::int64_t count;
};

struct LocalCopy {
    array::Box from, to;
};

// What one execution moves on this rank.
struct Volume {
    std::int64_t messages_sent = 0, messages_received = 0, elements_sent = 0, elements_copied = 0;
    void add(const std::vector<Message> &sends, const std::vector<Message> &recvs, const std::vector<LocalCopy> &copies);
};

void free_types(std::vector<Message> &messages);

// Persistent requests bound to a set of buffers. bind() recreates them only when
// the buffers differ from the last call, so repeated use allocates nothing.
class PersistentRequests {
public:
    PersistentRequests() = default;
    PersistentRequests(const PersistentRequests &) = delete;
    PersistentRequests &operator=(const PersistentRequests &) = delete;
    ~PersistentRequests() { release(); }

    void reserve(std::size_t n) { requests_.reserve(n); }
    // `make(requests)` appends the requests for `buffers` when they are new.
    template <class Make>
    void bind(const std::vector<const void *> &buffers, Make &&make) {
        if (buffers == bound_ && !requests_.empty()) return;
        release();
        make(requests_);
        bound_ = buffers;
    }
    void start();
    void wait();
    void release();

private:
    std::vector<MPI_Request> requests_;
    std::vector<const void *> bound_;
};

// The largest tag MPI allows on comm.
int tag_upper_bound(MPI_Comm comm);

// Appends persistent receives into `target` and sends from `source` for the messages.
void init_messages(std::vector<MPI_Request> &out, const std::vector<Message> &recvs, void *target,
                   const std::vector<Message> &sends, const void *source, MPI_Comm comm);

}  // namespace dm::shift
