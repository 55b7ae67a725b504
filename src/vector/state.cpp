// This file defines Self, which cvl.h declares const for programs; C++ rejects a
// definition of another type beside that declaration, so cvl.h leaves it out here.
#define CVL_DEFINES_SELF
#include "vector/state.hpp"

#include "core/host_memory.hpp"
#include "core/node_memory.hpp"
#include "exchange/mpi_bytes.hpp"
#include "vector/ops.hpp"

#include <cvl.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

static_assert(CVL_OK == DM_OK && CVL_ERR_ARG == DM_ERR_ARG && CVL_ERR_MISMATCH == DM_ERR_MISMATCH && CVL_ERR_MEMORY == DM_ERR_MEMORY &&
                  CVL_ERR_STATE == DM_ERR_STATE && CVL_ERR_INTERNAL == DM_ERR_INTERNAL,
              "cvl.h error codes follow datamotion's status codes");
static_assert(sizeof(vec_p) == sizeof(dm::vector::Handle) && sizeof(cvl_bool) == 1, "cvl.h types");

namespace dm::vector {
namespace {

// CVL's context (CVL_init to CVL_quit) and its error state.
enum class ErrorMode { print, quiet, abort };
// Never destroyed: a program that exits without CVL_quit (NESL's vinterp does on every
// error, out of vector memory included) leaves the context to the system, since at
// static destruction the node memory and MPI it holds may be gone already.
std::unique_ptr<Context> &g_cvl = *new std::unique_ptr<Context>;
int g_error_code = DM_OK;
std::string g_error_message;
ErrorMode g_error_mode = ErrorMode::print;
bool g_cvl_owns_mpi = false;  // CVL_init initialised MPI

// The innermost SpaceScope's context on this thread.
thread_local Context *t_space = nullptr;

bool mpi_usable() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

// Rank 0 of CVL's communicator (or of MPI_COMM_WORLD before CVL_init) prints.
bool printing_rank() {
    if (g_cvl) return g_cvl->rank == 0;
    if (!mpi_usable()) return true;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0;
}

ErrorMode error_mode_from_environment() {
    const char *mode = std::getenv("CVL_ERRORS");
    if (!mode) return ErrorMode::print;
    if (std::strcmp(mode, "quiet") == 0) return ErrorMode::quiet;
    if (std::strcmp(mode, "abort") == 0) return ErrorMode::abort;
    return ErrorMode::print;
}

template <OpKind K, class T>
MPI_Op make_op() {
    MPI_Op op = MPI_OP_NULL;
    dm::check_mpi(MPI_Op_create(&pair_combine<K, T>, 0, &op), "MPI_Op_create");
    return op;
}

int delete_space(MPI_Comm, int, void *space, void *) {
    delete static_cast<Context *>(space);
    return MPI_SUCCESS;
}

}  // namespace

// ------------------------------------------------------------------ Memory

void Memory::place_on_node(MPI_Comm comm) {
    if (!dm::node::available(comm)) return;
    // Makes the pool's first window where there is none yet; allocations then take
    // from it locally (a rank allocating alone never waits for the others).
    dm::node::release(dm::node::allocate(comm, 0));
    node_comm_ = comm;
}

std::byte *Memory::node_bytes(int64_t bytes) const {
    return node_comm_ == MPI_COMM_NULL ? nullptr : dm::node::take(node_comm_, bytes);
}

// ------------------------------------------------------------------ Arena

Arena::~Arena() { clear(); }

void Arena::clear() {
    if (base_on_node_)
        dm::node::release(base_);
    else
        std::free(base_);
    base_ = nullptr;
    base_on_node_ = false;
    capacity_ = 0;
    top_ = 1;
    used_.clear();
    free_.clear();
}

Handle Arena::allocate(int64_t units, int nranks) {
    if (units < 0) fail(DM_ERR_ARG, "size ", units, " is negative");
    const int64_t need = units > 0 ? units : 1;
    for (auto it = free_.begin(); it != free_.end(); ++it) {
        if (it->second < need) continue;
        const int64_t offset = it->first, rest = it->second - need;
        free_.erase(it);
        if (rest > 0) free_.emplace(offset + need, rest);
        used_.emplace(offset, need);
        return static_cast<Handle>(offset);
    }
    if (top_ + need > static_cast<int64_t>(INT_MAX))
        fail(DM_ERR_MEMORY, "cannot allocate ", units, " units: vector memory is limited to ", INT_MAX,
             " units per rank and ", top_ - 1, " are in use or fragmented");
    if (top_ + need > capacity_) {
        // Growth is local (every rank makes the same calls, so every rank grows at the
        // same call, but none waits for the others): a rank that makes an allocation
        // alone never hangs. An allocation failure need not be shared, so with more
        // than one rank it ends the job (entry's bad_alloc path) rather than leaving
        // the ranks with different vector memory.
        const int64_t wanted = std::max({top_ + need, 2 * capacity_, int64_t(1) << 16});
        const int64_t grown = std::min<int64_t>(wanted, int64_t(INT_MAX) + 1);
        const auto bytes = static_cast<std::size_t>(grown * kUnit);
        // Node memory where the pool has room (peers of the node then read vectors in
        // place), else the system's; the units in use move along.
        void *p = node_bytes(grown * kUnit);
        const bool on_node = p != nullptr;
        if (!on_node) p = base_on_node_ ? std::malloc(bytes) : std::realloc(base_, bytes);
        if (!p) {
            if (nranks > 1) throw std::bad_alloc();
            fail(DM_ERR_MEMORY, "out of memory: cannot grow vector memory to ", grown, " units (", grown * kUnit,
                 " bytes)");
        }
        if (on_node || base_on_node_) {
            if (base_) std::memcpy(p, base_, static_cast<std::size_t>(top_ * kUnit));
            if (base_on_node_)
                dm::node::release(base_);
            else
                std::free(base_);
        }
        base_ = static_cast<std::uint64_t *>(p);
        base_on_node_ = on_node;
        capacity_ = grown;
    }
    const int64_t offset = top_;
    top_ += need;
    used_.emplace(offset, need);
    return static_cast<Handle>(offset);
}

void Arena::release(Handle h) {
    if (h == 0) return;  // like free(NULL)
    auto it = used_.find(h);
    if (it == used_.end()) fail(DM_ERR_ARG, "handle ", h, " is not the start of an allocated block");
    int64_t offset = it->first, size = it->second;
    used_.erase(it);
    auto next = free_.find(offset + size);
    if (next != free_.end()) {
        size += next->second;
        free_.erase(next);
    }
    auto prev = free_.lower_bound(offset);
    if (prev != free_.begin()) {
        --prev;
        if (prev->first + prev->second == offset) {
            offset = prev->first;
            size += prev->second;
            free_.erase(prev);
        }
    }
    if (offset + size == top_)
        top_ = offset;
    else
        free_.emplace(offset, size);
}

void Arena::require(Handle h, int64_t units, const char *what) const {
    if (units == 0) return;
    auto it = used_.upper_bound(h);
    if (h >= 1 && it != used_.begin()) {
        --it;
        if (static_cast<int64_t>(h) + units <= it->first + it->second) return;
    }
    fail(DM_ERR_ARG, what, " (handle ", h, ", ", units, " units) is not inside one allocated block of vector memory");
}

// ------------------------------------------------------------------ Table

void Table::require(Handle h, int64_t, int64_t local, const char *what) const {
    if (local == 0) return;
    auto it = allocations_.find(h);
    if (it == allocations_.end())
        fail(DM_ERR_ARG, what, " (handle ", h, ") is not a live vector of this communicator");
    if (it->second.bytes < local)
        fail(DM_ERR_ARG, what, " (handle ", h, ") holds ", it->second.bytes, " bytes on this rank, not the ", local,
             " its length needs");
}

const Table::Allocation &Table::find(Handle h) const {
    auto it = allocations_.find(h);
    if (it == allocations_.end()) fail(DM_ERR_ARG, "handle ", h, " is not a live vector of this communicator");
    return it->second;
}

Handle Table::add(Allocation allocation) {
    if (next_ == INT_MAX) fail(DM_ERR_MEMORY, "out of vector handles: 2^31 vectors were created on this communicator");
    allocations_.emplace(next_, std::move(allocation));
    return next_++;
}

void Table::give_back(const Allocation &block) noexcept {
    if (block.owner == Owner::Node) dm::node::release(block.data);
    if (block.owner == Owner::Host) dm::host::release(block.data, block.allocated);
}

Table::~Table() {
    for (auto &entry : allocations_) give_back(entry.second);
}

Handle Table::allocate(int64_t bytes, bool zero) {
    if (bytes < 0) fail(DM_ERR_ARG, "size ", bytes, " is negative");
    Allocation block;
    const auto words = std::max<std::size_t>(static_cast<std::size_t>((bytes + kUnit - 1) / kUnit), 1);
    block.allocated = words * kUnit;
    block.data = node_bytes(static_cast<int64_t>(block.allocated));
    block.owner = block.data ? Owner::Node : Owner::Host;
    if (!block.data) block.data = static_cast<std::byte *>(dm::host::allocate(block.allocated));
    if (!block.data) throw std::bad_alloc();  // as `new` did: the entry path ends the job
    if (zero) std::memset(block.data, 0, block.allocated);
    block.bytes = bytes;
    try {
        return add(block);
    } catch (...) {
        give_back(block);
        throw;
    }
}

Handle Table::borrow(void *data, int64_t bytes) {
    if (bytes < 0) fail(DM_ERR_ARG, "size ", bytes, " is negative");
    if (!data && bytes > 0) fail(DM_ERR_ARG, "borrowed memory is NULL");
    Allocation block;
    block.data = static_cast<std::byte *>(data);
    block.bytes = bytes;
    return add(std::move(block));
}

void Table::release(Handle h) {
    auto it = h != 0 ? allocations_.find(h) : allocations_.end();
    if (it == allocations_.end()) return;
    give_back(it->second);
    allocations_.erase(it);
}

// ---------------------------------------------------------------- Context

Context::Context(MPI_Comm user, std::unique_ptr<Memory> mem) : memory(std::move(mem)) {
    for (auto &row : pair_ops_)
        for (auto &op : row) op = MPI_OP_NULL;
    dm::check_mpi(MPI_Comm_dup(user, &comm), "MPI_Comm_dup");
    dm::check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    dm::check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    const auto p = static_cast<std::size_t>(nranks);
    scount.assign(p, 0);
    sdispl.assign(p, 0);
    rcount.assign(p, 0);
    rdispl.assign(p, 0);
    hdr_send.assign(p * (1 + CallSignature::kWords), 0);
    hdr_recv.assign(p * (1 + CallSignature::kWords), 0);
    memory->place_on_node(comm);
    // The engine's shared byte types: committed once per process, freed by MPI_Finalize.
    using dm::exchange::shared_bytes_type;
    pair_types_[static_cast<int>(ElemKind::int_)] = shared_bytes_type(sizeof(Pair<int>));
    pair_types_[static_cast<int>(ElemKind::dbl)] = shared_bytes_type(sizeof(Pair<double>));
    pair_types_[static_cast<int>(ElemKind::bool_)] = shared_bytes_type(sizeof(Pair<cvl_bool_t>));
    auto set = [&](OpKind k, ElemKind e, MPI_Op op) { pair_ops_[static_cast<int>(k)][static_cast<int>(e)] = op; };
    set(OpKind::add, ElemKind::int_, make_op<OpKind::add, int>());
    set(OpKind::add, ElemKind::dbl, make_op<OpKind::add, double>());
    set(OpKind::mul, ElemKind::int_, make_op<OpKind::mul, int>());
    set(OpKind::mul, ElemKind::dbl, make_op<OpKind::mul, double>());
    set(OpKind::min, ElemKind::int_, make_op<OpKind::min, int>());
    set(OpKind::min, ElemKind::dbl, make_op<OpKind::min, double>());
    set(OpKind::max, ElemKind::int_, make_op<OpKind::max, int>());
    set(OpKind::max, ElemKind::dbl, make_op<OpKind::max, double>());
    set(OpKind::and_, ElemKind::int_, make_op<OpKind::and_, int>());
    set(OpKind::and_, ElemKind::bool_, make_op<OpKind::and_, cvl_bool_t>());
    set(OpKind::ior, ElemKind::int_, make_op<OpKind::ior, int>());
    set(OpKind::ior, ElemKind::bool_, make_op<OpKind::ior, cvl_bool_t>());
    set(OpKind::xor_, ElemKind::int_, make_op<OpKind::xor_, int>());
    set(OpKind::xor_, ElemKind::bool_, make_op<OpKind::xor_, cvl_bool_t>());
}

Context::~Context() {
    if (!mpi_usable()) return;
    for (auto &row : pair_ops_)
        for (auto &op : row)
            if (op != MPI_OP_NULL) MPI_Op_free(&op);
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
}

Arena &Context::arena() const {
    auto *a = dynamic_cast<Arena *>(memory.get());
    if (!a) fail(DM_ERR_STATE, call(), ": CVL's vector memory functions need CVL_init's context");
    return *a;
}

void Context::begin_call(const char *name, Args arguments) {
    sig.begin(name, arguments);
    if (dm::checked_mode() && nranks > 1) sig.require_same(comm);
}

Context &context() {
    if (t_space) return *t_space;
    if (!g_cvl) fail(DM_ERR_STATE, "CVL is not running: call CVL_init first");
    return *g_cvl;
}

SpaceScope::SpaceScope(Context &space) : outer_(t_space) { t_space = &space; }
SpaceScope::~SpaceScope() { t_space = outer_; }
bool in_space() { return t_space != nullptr; }

Context &space_of(MPI_Comm comm) {
    static int keyval = MPI_KEYVAL_INVALID;
    if (comm == MPI_COMM_NULL) fail(DM_ERR_ARG, "the communicator is MPI_COMM_NULL");
    if (keyval == MPI_KEYVAL_INVALID)
        dm::check_mpi(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &delete_space, &keyval, nullptr),
                  "MPI_Comm_create_keyval");
    void *value = nullptr;
    int found = 0;
    dm::check_mpi(MPI_Comm_get_attr(comm, keyval, &value, &found), "MPI_Comm_get_attr");
    if (found) return *static_cast<Context *>(value);
    // An agreement first: a rank alone in its first vector call on comm learns it there
    // (named, with its deadline) instead of waiting in the context's MPI_Comm_dup.
    dm::agree(comm, nullptr);
    auto space = std::make_unique<Context>(comm, std::make_unique<Table>());
    dm::check_mpi(MPI_Comm_set_attr(comm, keyval, space.get()), "MPI_Comm_set_attr");
    return *space.release();
}

// ----------------------------------------------------------------- errors

void require_length(int64_t len, const char *what) {
    if (len < 0) fail(DM_ERR_ARG, what, " ", len, " is negative");
}

void fatal(const char *name, const char *message) noexcept {
    // An internal failure need not be shared by the other ranks: do not leave them waiting.
    dm::abort_job(name, DM_ERR_INTERNAL, message);
}

void report(const char *name, int code, const char *message) {
    if (in_space()) throw dm::Error(code, message);
    try {
        std::string text = std::string(name) + ": " + message;
        if (g_error_code == DM_OK) {
            g_error_code = code;
            g_error_message = text;
        }
        if (g_error_mode != ErrorMode::quiet && printing_rank()) {
            std::fprintf(stderr, "CVL error: %s\n", text.c_str());
            std::fflush(stderr);
        }
    } catch (...) {
        g_error_code = code == DM_OK ? DM_ERR_INTERNAL : code;
    }
    if (g_error_mode == ErrorMode::abort) dm::abort_job(name, code, message);
}

void report_current_exception(const char *name) {
    try {
        throw;
    } catch (const dm::Error &e) {
        if (in_space()) throw;
        report(name, e.code(), e.what());
    } catch (const std::bad_alloc &) {
        fatal(name, "out of memory");
    } catch (const std::exception &e) {
        fatal(name, e.what());
    } catch (...) {
        fatal(name, "unknown exception");
    }
}

}  // namespace dm::vector

using namespace dm::vector;

extern "C" {

// The 1995 MPI CVL's rank variable (see cvl.h): writable here, const to programs.
CVL_API int Self = 0;

void CVL_init(int *argc, char ***argv) {
    if (g_cvl) return;
    try {
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (finalized) dm::fail(DM_ERR_STATE, "MPI is already finalised");
        bool owns_mpi = false;
        if (!initialized) {
            // MPI_THREAD_MULTIPLE where the library offers it: with MPICH it also keeps
            // ranks that outnumber the cores from spinning at full speed while they wait.
            int provided = MPI_THREAD_SINGLE;
            dm::check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
            owns_mpi = true;
        }
        g_cvl = std::make_unique<Context>(MPI_COMM_WORLD, std::make_unique<Arena>());
        g_cvl_owns_mpi = owns_mpi;
        g_error_mode = error_mode_from_environment();
        g_error_code = DM_OK;
        g_error_message.clear();
        Self = g_cvl->rank;
    } catch (const dm::Error &e) {
        report("CVL_init", e.code(), e.what());
    } catch (const std::exception &e) {
        fatal("CVL_init", e.what());
    }
}

void CVL_quit(void) {
    if (!g_cvl) return;
    g_cvl.reset();
    if (g_cvl_owns_mpi && mpi_usable()) MPI_Finalize();
    g_cvl_owns_mpi = false;
}

int CVL_error(void) { return g_error_code; }

const char *CVL_error_message(void) { return g_error_message.c_str(); }

void CVL_clear_error(void) {
    g_error_code = DM_OK;
    g_error_message.clear();
}

int CVL_rank(void) { return g_cvl ? g_cvl->rank : 0; }

int CVL_nranks(void) { return g_cvl ? g_cvl->nranks : 1; }

}  // extern "C"
