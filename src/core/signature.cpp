#include "core/signature.hpp"

#include <algorithm>

namespace dm {
namespace {
std::uint64_t name_hash(const char *name) {
    std::uint64_t h = 1469598103934665603ull;
    for (; *name; ++name) h = (h ^ static_cast<unsigned char>(*name)) * 1099511628211ull;
    return h >> 1;  // non-negative, so that negation cannot overflow
}

template <class... Parts>
[[noreturn]] void mismatch(const Parts &...parts) {
    std::string message;
    (detail::append(message, parts), ...);
    throw AgreedError(DM_ERR_MISMATCH, message);
}
}  // namespace

void CallSignature::begin(const char *name, NamedValues args) {
    if (args.size() > static_cast<std::size_t>(kMaxArgs)) fail(DM_ERR_INTERNAL, name, ": too many arguments");
    call_ = name;
    nargs_ = 0;
    for (const NamedValue &a : args) args_[nargs_++] = a;
    ++calls_;
}

void CallSignature::defer(const char *name, NamedValues args) {
    ++calls_;
    std::uint64_t h = static_cast<std::uint64_t>(deferred_) ^ name_hash(name);
    for (const NamedValue &a : args) h = (h ^ static_cast<std::uint64_t>(a.value)) * 1099511628211ull;
    deferred_ = static_cast<std::int64_t>(h >> 1);
}

void CallSignature::write(std::int64_t *out) const {
    out[0] = static_cast<std::int64_t>(name_hash(call_));
    out[1] = calls_;
    out[2] = deferred_;
    for (int k = 0; k < kMaxArgs; ++k) out[3 + k] = k < nargs_ ? args_[k].value : 0;
}

std::int64_t CallSignature::hash() const {
    std::int64_t words[kWords];
    write(words);
    std::uint64_t h = 1469598103934665603ull;
    for (const std::int64_t w : words) h = (h ^ static_cast<std::uint64_t>(w)) * 1099511628211ull;
    return static_cast<std::int64_t>(h);
}

void CallSignature::require_same(MPI_Comm comm) {
    // Each word and its negation under one MPI_MAX: the maximum and the minimum.
    std::int64_t mine[2 * kWords], out[2 * kWords];
    write(mine);
    for (int w = 0; w < kWords; ++w) mine[kWords + w] = -mine[w];
    check_mpi(MPI_Allreduce(mine, out, 2 * kWords, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    for (int w = 0; w < kWords; ++w) out[kWords + w] = -out[kWords + w];
    raise_if_different(out + kWords, out);
}

void CallSignature::require_same_rows(const std::int64_t *rows, std::size_t stride, int nranks) {
    std::int64_t lo[kWords], hi[kWords];
    for (int w = 0; w < kWords; ++w) lo[w] = hi[w] = rows[w];
    for (int r = 1; r < nranks; ++r)
        for (int w = 0; w < kWords; ++w) {
            const std::int64_t v = rows[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(w)];
            lo[w] = std::min(lo[w], v);
            hi[w] = std::max(hi[w], v);
        }
    raise_if_different(lo, hi);
}

void CallSignature::raise_if_different(const std::int64_t *lo, const std::int64_t *hi) {
    deferred_ = 0;  // compared: start again
    if (lo[1] != hi[1]) {
        calls_ = hi[1];  // agree again from here on
        mismatch("the ranks have made different numbers of calls (", lo[1], " to ", hi[1],
                 "): a call was made on some ranks only");
    }
    if (lo[0] != hi[0]) mismatch("the ranks are in different calls: every rank must make every call, in the same order");
    if (lo[2] != hi[2]) mismatch("the allocations since the previous comparison differ across ranks");
    for (int k = 0; k < nargs_; ++k)
        if (lo[3 + k] != hi[3 + k])
            mismatch("argument ", args_[k].name, " differs across ranks (from ", lo[3 + k], " to ", hi[3 + k],
                     "): every rank must pass the same value");
}

}  // namespace dm
