#include "vector/state.hpp"

#include "vector/ops.hpp"

#include <cvl.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <chrono>
#include <new>
#include <thread>

static_assert(CVL_OK == DM_OK && CVL_ERR_ARG == DM_ERR_ARG && CVL_ERR_MISMATCH == DM_ERR_MISMATCH && CVL_ERR_MEMORY == DM_ERR_MEMORY &&
                  CVL_ERR_STATE == DM_ERR_STATE && CVL_ERR_INTERNAL == DM_ERR_INTERNAL,
              "cvl.h error codes follow datamotion's status codes");
static_assert(sizeof(vec_p) == sizeof(dm::vector::Handle) && sizeof(cvl_bool) == 1, "cvl.h types");

namespace dm::vector {
namespace {

std::unique_ptr<Context> g_context;
int g_error_code = DM_OK;
std::string g_error_message;
ErrorMode g_error_mode = ErrorMode::print;

bool mpi_usable() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    return initialized && !finalized;
}

// Rank 0 of the library (or of MPI_COMM_WORLD before CVL_init) prints.
bool printing_rank() {
    if (g_context) return g_context->rank == 0;
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
    check_mpi(MPI_Op_create(&pair_combine<K, T>, 0, &op), "MPI_Op_create");
    return op;
}

}  // namespace

// ------------------------------------------------------------------ Arena

Arena::~Arena() { clear(); }

void Arena::clear() {
    std::free(base_);
    base_ = nullptr;
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
        void *p = std::realloc(base_, static_cast<std::size_t>(grown * kUnit));
        if (!p) {
            if (nranks > 1) throw std::bad_alloc();
            fail(DM_ERR_MEMORY, "out of memory: cannot grow vector memory to ", grown, " units (", grown * kUnit,
                 " bytes)");
        }
        base_ = static_cast<std::uint64_t *>(p);
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

// ---------------------------------------------------------------- Context

MPI_Datatype Context::bytes_type(std::size_t bytes) {
    auto it = bytes_types_.find(bytes);
    if (it != bytes_types_.end()) return it->second;
    MPI_Datatype t = MPI_DATATYPE_NULL;
    check_mpi(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t), "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(&t), "MPI_Type_commit");
    bytes_types_.emplace(bytes, t);
    return t;
}

void Context::setup_mpi_objects() {
    pair_types_[static_cast<int>(ElemKind::int_)] = bytes_type(sizeof(Pair<int>));
    pair_types_[static_cast<int>(ElemKind::dbl)] = bytes_type(sizeof(Pair<double>));
    pair_types_[static_cast<int>(ElemKind::bool_)] = bytes_type(sizeof(Pair<cvl_bool_t>));
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

void Context::free_mpi_objects() {
    for (auto &row : pair_ops_)
        for (auto &op : row)
            if (op != MPI_OP_NULL) {
                MPI_Op_free(&op);
                op = MPI_OP_NULL;
            }
    for (auto &entry : bytes_types_) MPI_Type_free(&entry.second);
    bytes_types_.clear();
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
    comm = MPI_COMM_NULL;
}

namespace {
std::uint64_t name_hash(const char *name) {
    std::uint64_t h = 1469598103934665603ull;
    for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ull;
    return h >> 1;  // non-negative, so that negation cannot overflow
}
}  // namespace

void Context::begin_call(const char *name, Args arguments) {
    if (arguments.size() > static_cast<std::size_t>(kMaxArgs)) fatal(name, "internal error: too many arguments");
    call = name;
    nargs = 0;
    for (const Arg &a : arguments) args[nargs++] = a;
    ++calls;
    if (!checked_mode() || nranks == 1) return;
    // Each word and its negation under one MPI_MAX: the maximum and the minimum.
    int64_t mine[2 * kSignatureWords], out[2 * kSignatureWords];
    signature(mine);
    for (int w = 0; w < kSignatureWords; ++w) mine[kSignatureWords + w] = -mine[w];
    check_mpi(MPI_Allreduce(mine, out, 2 * kSignatureWords, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    for (int w = 0; w < kSignatureWords; ++w) out[kSignatureWords + w] = -out[kSignatureWords + w];
    raise_mismatch(*this, out + kSignatureWords, out);
}

void Context::defer_call(const char *name, Args arguments) {
    ++calls;
    std::uint64_t h = static_cast<std::uint64_t>(deferred) ^ name_hash(name);
    for (const Arg &a : arguments) h = (h ^ static_cast<std::uint64_t>(a.value)) * 1099511628211ull;
    deferred = static_cast<int64_t>(h >> 1);
}

void Context::signature(int64_t *out) const {
    out[0] = static_cast<int64_t>(name_hash(call));
    out[1] = calls;
    out[2] = deferred;
    for (int k = 0; k < kMaxArgs; ++k) out[3 + k] = k < nargs ? args[k].value : 0;
}

int64_t Context::signature_hash() const {
    int64_t words[kSignatureWords];
    signature(words);
    std::uint64_t h = 1469598103934665603ull;
    for (const int64_t w : words) h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ull;
    return static_cast<int64_t>(h);
}

void raise_mismatch(Context &c, const int64_t *lo, const int64_t *hi) {
    c.deferred = 0;  // compared: start again
    if (lo[1] != hi[1]) {
        c.calls = hi[1];  // agree again from here on
        fail_everywhere(DM_ERR_MISMATCH, "the ranks have made different numbers of CVL calls (", lo[1], " to ",
                        hi[1], "): a call was made on some ranks only");
    }
    if (lo[0] != hi[0])
        fail_everywhere(DM_ERR_MISMATCH,
                        "the ranks are in different CVL calls: every rank must make every call, in the same order");
    if (lo[2] != hi[2])
        fail_everywhere(DM_ERR_MISMATCH,
                        "the vector memory allocations (alo_foz) since the previous comparison differ across ranks");
    for (int k = 0; k < c.nargs; ++k)
        if (lo[3 + k] != hi[3 + k])
            fail_everywhere(DM_ERR_MISMATCH, "argument ", c.args[k].name, " differs across ranks (from ", lo[3 + k],
                            " to ", hi[3 + k], "): every rank must pass the same value");
}

void require_same_signature(Context &c, const int64_t *rows, std::size_t stride) {
    int64_t lo[kSignatureWords], hi[kSignatureWords];
    for (int w = 0; w < kSignatureWords; ++w) lo[w] = hi[w] = rows[w];
    for (int r = 1; r < c.nranks; ++r)
        for (int w = 0; w < kSignatureWords; ++w) {
            const int64_t v = rows[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(w)];
            lo[w] = std::min(lo[w], v);
            hi[w] = std::max(hi[w], v);
        }
    raise_mismatch(c, lo, hi);
}

bool checked_mode() {
    static const bool on = [] {
        const char *v = std::getenv("DATAMOTION_CHECK");
        return v && *v && std::strcmp(v, "0") != 0;
    }();
    return on;
}

Context &context() {
    if (!g_context) fail(DM_ERR_STATE, "CVL is not running: call CVL_init first");
    return *g_context;
}

// ----------------------------------------------------------------- errors

void check_mpi(int rc, const char *call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    // An MPI failure need not be shared by the other ranks: do not leave them waiting.
    std::string message = std::string(call) + " failed: " + std::string(text, static_cast<std::size_t>(len));
    fatal("MPI", message.c_str());
}

void require_length(int64_t len, const char *what) {
    if (len < 0) fail(DM_ERR_ARG, what, " ", len, " is negative");
}

void agree(Context &c, const LocalFault &fault) {
    if (c.nranks == 1) {
        if (fault.bad) throw dm::Error(DM_ERR_ARG, fault.message);
        return;
    }
    int mine = fault.bad ? c.rank : c.nranks, first = c.nranks;
    check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, c.comm), "MPI_Allreduce");
    if (first < c.nranks) raise_fault(c, first, fault);
}

void raise_fault(Context &c, int failing_rank, const LocalFault &fault) {
    if (c.nranks == 1) throw dm::Error(DM_ERR_ARG, fault.message);
    std::string message = c.rank == failing_rank ? fault.message : std::string();
    int len = static_cast<int>(std::min<std::size_t>(message.size(), 4096));
    check_mpi(MPI_Bcast(&len, 1, MPI_INT, failing_rank, c.comm), "MPI_Bcast");
    message.resize(static_cast<std::size_t>(len));
    check_mpi(MPI_Bcast(message.data(), len, MPI_CHAR, failing_rank, c.comm), "MPI_Bcast");
    throw SharedError(DM_ERR_ARG, message);
}

void report(const char *name, int code, const char *message) noexcept {
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
        if (g_error_mode == ErrorMode::abort && mpi_usable())
            MPI_Abort(g_context ? g_context->comm : MPI_COMM_WORLD, 1);
    } catch (...) {
        g_error_code = code == DM_OK ? DM_ERR_INTERNAL : code;
    }
}

void fatal(const char *name, const char *message) noexcept {
    int rank = g_context ? g_context->rank : -1, nranks = g_context ? g_context->nranks : 0;
    // check_mpi names the MPI function; the CVL call that made it is the context's.
    const char *call = g_context && *g_context->call && std::strcmp(g_context->call, name) != 0 ? g_context->call : "";
    std::fprintf(stderr, "CVL fatal error on rank %d of %d: %s%s%s: %s; ending the job\n", rank, nranks, call,
                 *call ? ": " : "", name, message);
    std::fflush(stderr);
    // A moment before MPI_Abort lets the launcher forward the message (see dm::abort_job).
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    if (mpi_usable()) MPI_Abort(g_context ? g_context->comm : MPI_COMM_WORLD, 1);
    std::abort();
}

}  // namespace dm::vector

using namespace dm::vector;

extern "C" {

void CVL_init(int *argc, char ***argv) {
    if (g_context) return;
    try {
        int initialized = 0, finalized = 0;
        MPI_Initialized(&initialized);
        MPI_Finalized(&finalized);
        if (finalized) dm::fail(DM_ERR_STATE, "MPI is already finalised");
        auto c = std::make_unique<Context>();
        if (!initialized) {
            // MPI_THREAD_MULTIPLE where the library offers it: with MPICH it also keeps
            // ranks that outnumber the cores from spinning at full speed while they wait.
            int provided = MPI_THREAD_SINGLE;
            check_mpi(MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided), "MPI_Init_thread");
            c->owns_mpi = true;
        }
        check_mpi(MPI_Comm_dup(MPI_COMM_WORLD, &c->comm), "MPI_Comm_dup");
        // MPI errors come back to check_mpi, which ends the job naming rank and call.
        check_mpi(MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
        check_mpi(MPI_Comm_rank(c->comm, &c->rank), "MPI_Comm_rank");
        check_mpi(MPI_Comm_size(c->comm, &c->nranks), "MPI_Comm_size");
        const auto p = static_cast<std::size_t>(c->nranks);
        c->scount.assign(p, 0);
        c->sdispl.assign(p, 0);
        c->rcount.assign(p, 0);
        c->rdispl.assign(p, 0);
        c->hdr_send.assign(p * (1 + kSignatureWords), 0);
        c->hdr_recv.assign(p * (1 + kSignatureWords), 0);
        c->setup_mpi_objects();
        g_error_mode = error_mode_from_environment();
        g_error_code = DM_OK;
        g_error_message.clear();
        g_context = std::move(c);
    } catch (const dm::Error &e) {
        report("CVL_init", e.code(), e.what());
    } catch (const std::exception &e) {
        fatal("CVL_init", e.what());
    }
}

void CVL_quit(void) {
    if (!g_context) return;
    const bool owns = g_context->owns_mpi;
    if (mpi_usable()) g_context->free_mpi_objects();
    g_context.reset();
    if (owns && mpi_usable()) MPI_Finalize();
}

int CVL_error(void) { return g_error_code; }

const char *CVL_error_message(void) { return g_error_message.c_str(); }

void CVL_clear_error(void) {
    g_error_code = DM_OK;
    g_error_message.clear();
}

int CVL_rank(void) { return g_context ? g_context->rank : 0; }

int CVL_nranks(void) { return g_context ? g_context->nranks : 1; }

}  // extern "C"
