#include "core/signature.hpp"

#include <algorithm>
#include <string>
#include <utility>

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

void CallSignature::defer_to_next_collective(const char *name, NamedValues args) {
    defer(name, args);
    compare_due_ = true;
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
    std::int64_t words[kWords];
    write(words);
    if (!agreement_step(comm, "the call's arguments", false, words, kWords, call_).values_differ()) {
        deferred_ = 0;  // compared: start again
        compare_due_ = false;
        return;
    }
    // Each word and its negation under one MPI_MAX: the maximum and the minimum.
    std::int64_t mine[2 * kWords], out[2 * kWords];
    std::copy(words, words + kWords, mine);
    for (int w = 0; w < kWords; ++w) mine[kWords + w] = -words[w];
    check_mpi(MPI_Allreduce(mine, out, 2 * kWords, MPI_INT64_T, MPI_MAX, comm), "MPI_Allreduce");
    for (int w = 0; w < kWords; ++w) out[kWords + w] = -out[kWords + w];
    raise_if_different(comm, out + kWords, out,
                       [&](int w) { return ranks_holding(comm, words[w], out[kWords + w], out[w]); });
}

void CallSignature::require_same_rows(MPI_Comm comm, const std::int64_t *rows, std::size_t stride, int nranks) {
    std::int64_t lo[kWords], hi[kWords];
    auto word = [&](int r, int w) { return rows[static_cast<std::size_t>(r) * stride + static_cast<std::size_t>(w)]; };
    for (int w = 0; w < kWords; ++w) lo[w] = hi[w] = rows[w];
    for (int r = 1; r < nranks; ++r)
        for (int w = 0; w < kWords; ++w) {
            lo[w] = std::min(lo[w], word(r, w));
            hi[w] = std::max(hi[w], word(r, w));
        }
    raise_if_different(comm, lo, hi, [&](int w) {
        int low = 0, high = 0;
        while (word(low, w) != lo[w]) ++low;
        while (word(high, w) != hi[w]) ++high;
        return std::pair<int, int>{low, high};
    });
}

const char *CallSignature::name() const { return *current_call() ? current_call() : call_; }

void CallSignature::raise_if_different(MPI_Comm comm, const std::int64_t *lo, const std::int64_t *hi,
                                       const Holders &holders) {
    deferred_ = 0;  // compared: start again
    compare_due_ = false;
    const auto two_ranks = [&](int w) {
        auto [low, high] = holders(w);
        return std::pair<int, int>{std::min(low, high), std::max(low, high)};
    };
    if (lo[1] != hi[1]) {
        calls_ = hi[1];  // agree again from here on
        const auto [low, high] = holders(1);
        const auto [a, b] = names_of(comm, low, high, name());
        const auto side = [](std::int64_t calls, int rank, const std::string &last) {
            return std::to_string(calls) + " on rank " + std::to_string(rank) + " (the last " + last + ")";
        };
        std::string first = side(lo[1], low, a), second = side(hi[1], high, b);
        if (low > high) std::swap(first, second);  // in rank order
        mismatch("the ranks have made different numbers of calls: ", first, ", ", second,
                 ": a call was made on some ranks only");
    }
    if (lo[0] != hi[0]) {
        const auto [low, high] = two_ranks(0);
        const auto [a, b] = names_of(comm, low, high, name());
        mismatch("the ranks are in different collective calls: rank ", low, " is in ", a, ", rank ", high, " in ", b,
                 "; every rank must make every call, in the same order");
    }
    for (int k = 0; k < nargs_; ++k)
        if (lo[3 + k] != hi[3 + k]) {
            const auto [low, high] = holders(3 + k);
            mismatch(differs_text(std::string("argument ") + args_[k].name, std::to_string(lo[3 + k]), low,
                                  std::to_string(hi[3 + k]), high),
                     ": every rank must pass the same value");
        }
    if (lo[2] != hi[2]) {
        const auto [low, high] = two_ranks(2);
        mismatch("the vectors made since the previous collective call differ between rank ", low, " and rank ", high,
                 " (in number, length or element type: a Local constructor such as Vector.from_numpy or CVL's "
                 "alo_foz was given different sizes)");
    }
}

}  // namespace dm
