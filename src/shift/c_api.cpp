// extern "C" entry points of the shift capability.
#include "array/handle.hpp"
#include "core/error.hpp"
#include "core/handles.hpp"
#include "core/text.hpp"
#include "shift/halo.hpp"
#include "shift/pshift.hpp"

#include <vector>

struct dm_pshift_s {
    std::unique_ptr<dm::shift::PShiftPlan> plan;
};

struct dm_halo_s {
    std::unique_ptr<dm::shift::HaloPlan> plan;
};

namespace {
using dm::c_boundary;
using dm::fail;

dm::shift::PShiftPlan &plan_of(dm_pshift handle) {
    dm::handles::require_live(handle, "pshift plan", "dm_pshift_setup");
    return *handle->plan;
}

dm::shift::HaloPlan &plan_of(dm_halo handle) {
    dm::handles::require_live(handle, "halo plan", "dm_halo_setup");
    return *handle->plan;
}

// The plan behind a handle of a collective call (see dm::communicator_handle).
template <class Handle>
auto &collective_plan(const char *call, Handle handle) {
    return dm::communicator_handle(call, [&]() -> auto & { return plan_of(handle); });
}

const dm::array::DistArray &collective_array(const char *call, dm_array handle) {
    return dm::communicator_handle(call, [&]() -> auto & { return dm::array::array_of(handle); });
}

// Releases a plan handle (NULL: nothing; freed or never set up: DM_ERR_STATE).
template <class Handle>
void free_plan(Handle *plan) {
    if (!plan || !*plan) return;
    if (plan_of(*plan).in_flight()) fail(DM_ERR_STATE, "the plan has an exchange in flight (call its end first)");
    dm::handles::remove(*plan);
    delete *plan;
    *plan = nullptr;
}

void write_volume(const dm::shift::Volume &v, int64_t *messages_sent, int64_t *messages_received,
                  int64_t *elements_sent, int64_t *elements_copied) {
    if (messages_sent) *messages_sent = v.messages_sent;
    if (messages_received) *messages_received = v.messages_received;
    if (elements_sent) *elements_sent = v.elements_sent;
    if (elements_copied) *elements_copied = v.elements_copied;
}
// dm_pshift_execute or dm_pshift_begin: the handles checked, then `run(plan, dsts, srcs)`.
template <class Call>
int with_pshift_arrays(const char *call, dm_pshift plan, dm_array const dsts[], dm_array const srcs[], Call &&run) {
    return c_boundary(call, [&] {
        auto &p = collective_plan(call, plan);
        const int n = p.nshifts();
        // Handles to arrays, on the stack for the common small counts.
        constexpr int kSmall = 32;
        dm::array::DistArray *d_small[kSmall];
        const dm::array::DistArray *s_small[kSmall];
        std::vector<dm::array::DistArray *> d_big;
        std::vector<const dm::array::DistArray *> s_big;
        if (n > kSmall) {
            d_big.resize(n);
            s_big.resize(n);
        }
        auto **d = n > kSmall ? d_big.data() : d_small;
        auto **s = n > kSmall ? s_big.data() : s_small;
        dm::hot_path(p.comm(), call, [&] {
            if ((!dsts || !srcs) && n > 0) fail(DM_ERR_ARG, call, ": dsts or srcs is NULL");
            for (int k = 0; k < n; ++k) {
                d[k] = &dm::array::array_of(dsts[k]);
                s[k] = &dm::array::array_of(srcs[k]);
            }
        });
        run(p, d, s);
    });
}


// dm_halo_exchange or dm_halo_begin: the handles checked (hot path), then run(plan, array).
template <class Call>
int with_halo_array(const char *call, dm_halo plan, dm_array array, Call &&run) {
    return c_boundary(call, [&] {
        auto &p = collective_plan(call, plan);
        dm::array::DistArray *a = nullptr;
        dm::hot_path(p.comm(), call, [&] { a = &dm::array::array_of(array); });
        run(p, *a);
    });
}

}  // namespace

extern "C" {

int dm_pshift_setup(dm_array prototype, int nshifts, const dm_shift_spec specs[], dm_pshift *plan) {
    return c_boundary(__func__, [&] {
        auto &proto = collective_array("dm_pshift_setup", prototype);
        dm::collective(proto.grid().comm(), [&] {
            dm::require_pointer(plan, "dm_pshift_setup: plan");
            if (nshifts < 0) fail(DM_ERR_ARG, "dm_pshift_setup: nshifts is negative (", nshifts, ")");
            if (nshifts > 0 && !specs) fail(DM_ERR_ARG, "dm_pshift_setup: specs is NULL");
        });
        *plan = nullptr;
        auto handle = std::make_unique<dm_pshift_s>();
        handle->plan = std::make_unique<dm::shift::PShiftPlan>(proto, std::vector<dm_shift_spec>(specs, specs + nshifts));
        dm::handles::add(handle.get(), "pshift plan");
        *plan = handle.release();
    });
}

int dm_pshift_execute(dm_pshift plan, dm_array const dsts[], dm_array const srcs[], const void *const boundaries[]) {
    return with_pshift_arrays("dm_pshift_execute", plan, dsts, srcs,
                              [&](auto &p, auto **d, auto **s) { p.execute(d, s, boundaries); });
}

int dm_pshift_begin(dm_pshift plan, dm_array const dsts[], dm_array const srcs[], const void *const boundaries[]) {
    return with_pshift_arrays("dm_pshift_begin", plan, dsts, srcs,
                              [&](auto &p, auto **d, auto **s) { p.begin(d, s, boundaries); });
}

int dm_pshift_end(dm_pshift plan) {
    return c_boundary(__func__, [&] { collective_plan("dm_pshift_end", plan).end(); });
}

int dm_pshift_test(dm_pshift plan, int *done) {
    return c_boundary(__func__, [&] {
        if (!done) fail(DM_ERR_ARG, "dm_pshift_test: done is NULL");
        *done = plan_of(plan).test() ? 1 : 0;
    });
}

int dm_pshift_describe(dm_pshift plan, char *text, size_t size, size_t *length) {
    return c_boundary(__func__, [&] { dm::write_text(plan_of(plan).describe(), text, size, length); });
}

int dm_pshift_free(dm_pshift *plan) { return c_boundary(__func__, [&] { free_plan(plan); }); }

int dm_pshift_nshifts(dm_pshift plan, int *nshifts) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(nshifts, "nshifts");
        *nshifts = plan_of(plan).nshifts();
    });
}

int dm_pshift_volume(dm_pshift plan, int64_t *messages_sent, int64_t *messages_received, int64_t *elements_sent,
                     int64_t *elements_copied) {
    return c_boundary(__func__, [&] {
        write_volume(plan_of(plan).volume(), messages_sent, messages_received, elements_sent, elements_copied);
    });
}

int dm_halo_setup(dm_array prototype, int corners, dm_halo *plan) {
    return c_boundary(__func__, [&] {
        auto &proto = collective_array("dm_halo_setup", prototype);
        dm::collective(proto.grid().comm(), [&] { dm::require_pointer(plan, "dm_halo_setup: plan"); });
        *plan = nullptr;
        auto handle = std::make_unique<dm_halo_s>();
        handle->plan = std::make_unique<dm::shift::HaloPlan>(proto, corners != 0);
        dm::handles::add(handle.get(), "halo plan");
        *plan = handle.release();
    });
}

int dm_halo_exchange(dm_halo plan, dm_array array) {
    return with_halo_array("dm_halo_exchange", plan, array, [](auto &p, auto &a) { p.exchange(a); });
}

int dm_halo_begin(dm_halo plan, dm_array array) {
    return with_halo_array("dm_halo_begin", plan, array, [](auto &p, auto &a) { p.begin(a); });
}

int dm_halo_end(dm_halo plan) {
    return c_boundary(__func__, [&] { collective_plan("dm_halo_end", plan).end(); });
}

int dm_halo_test(dm_halo plan, int *done) {
    return c_boundary(__func__, [&] {
        if (!done) fail(DM_ERR_ARG, "dm_halo_test: done is NULL");
        *done = plan_of(plan).test() ? 1 : 0;
    });
}

int dm_halo_describe(dm_halo plan, char *text, size_t size, size_t *length) {
    return c_boundary(__func__, [&] { dm::write_text(plan_of(plan).describe(), text, size, length); });
}

int dm_halo_free(dm_halo *plan) { return c_boundary(__func__, [&] { free_plan(plan); }); }

int dm_halo_volume(dm_halo plan, int64_t *messages_sent, int64_t *messages_received, int64_t *elements_sent,
                   int64_t *elements_copied) {
    return c_boundary(__func__, [&] {
        write_volume(plan_of(plan).volume(), messages_sent, messages_received, elements_sent, elements_copied);
    });
}

}  // extern "C"
