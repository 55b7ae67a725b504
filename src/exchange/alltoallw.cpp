#include "exchange/alltoallw.hpp"

#include "core/error.hpp"
#include "exchange/point_to_point.hpp"

namespace dm::exchange {
namespace {

class Alltoallw final : public Transport {
public:
    explicit Alltoallw(const TransportSetup &setup) : comm_(setup.comm), chosen_(setup.chosen) {}
    ~Alltoallw() override {
        int finalized = 0;
        MPI_Finalized(&finalized);
        if (finalized) return;
        if (request_ != MPI_REQUEST_NULL) MPI_Wait(&request_, MPI_STATUS_IGNORE);
        free_types();
    }

    const char *name() const override { return "alltoallw"; }
    bool collective() const override { return true; }
    bool takes(const Message &, const Peer &, const char *&why) const override {
        why = "";
        return chosen_;
    }
    void add(std::size_t, const Message &m, const Peer &, bool sending) override {
        (sending ? sends_ : recvs_).push_back(&m);
    }
    bool setup(int) override {
        if (!chosen_) return false;
        int size = 1;
        MPI_Comm_size(comm_, &size);
        const auto n = static_cast<std::size_t>(size);
        counts_out_.assign(n, 0), counts_in_.assign(n, 0), displs_.assign(n, 0);
        types_out_.assign(n, MPI_BYTE), types_in_.assign(n, MPI_BYTE);
        return true;
    }
    // One type per message over absolute addresses, remade only when the slots move.
    void bind(const void *const *slots, const std::byte *) override {
        free_types();
        for (const Message *m : sends_) {
            const auto p = static_cast<std::size_t>(m->peer);
            counts_out_[p] = 1, types_out_[p] = blocks_type(m->blocks.data(), m->blocks.size(), slots);
        }
        for (const Message *m : recvs_) {
            const auto p = static_cast<std::size_t>(m->peer);
            counts_in_[p] = 1, types_in_[p] = blocks_type(m->blocks.data(), m->blocks.size(), slots);
        }
    }
    void start(const void *const *, bool) override {
        check_mpi(MPI_Ialltoallw(MPI_BOTTOM, counts_out_.data(), displs_.data(), types_out_.data(), MPI_BOTTOM,
                                 counts_in_.data(), displs_.data(), types_in_.data(), comm_, &request_),
                  "MPI_Ialltoallw");
    }
    bool progress(const void *const *, bool wait) override {
        if (wait) {
            check_mpi(MPI_Wait(&request_, MPI_STATUS_IGNORE), "MPI_Wait");
            return true;
        }
        int done = 0;
        check_mpi(MPI_Test(&request_, &done, MPI_STATUS_IGNORE), "MPI_Test");
        return done != 0 || request_ == MPI_REQUEST_NULL;
    }
    void finish() override {}

private:
    void free_types() {
        for (auto *types : {&types_out_, &types_in_})
            for (MPI_Datatype &t : *types)
                if (t != MPI_BYTE) MPI_Type_free(&t), t = MPI_BYTE;
    }

    MPI_Comm comm_;
    bool chosen_;
    std::vector<const Message *> sends_, recvs_;
    std::vector<int> counts_out_, counts_in_, displs_;
    std::vector<MPI_Datatype> types_out_, types_in_;
    MPI_Request request_ = MPI_REQUEST_NULL;
};

}  // namespace

std::unique_ptr<Transport> make_alltoallw(const TransportSetup &setup) { return std::make_unique<Alltoallw>(setup); }

}  // namespace dm::exchange
