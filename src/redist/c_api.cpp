// extern "C" entry points of the redistribution capability.
#include "array/handle.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "redist/plan.hpp"

struct dm_redist_s {
    std::unique_ptr<dm::redist::RedistPlan> plan;
};

namespace {
using dm::c_boundary;
using dm::fail;

dm::redist::RedistPlan &plan_of(dm_redist handle) {
    if (!handle || !handle->plan)
        fail(DM_ERR_STATE, "redist plan is NULL (freed, or never set up): call dm_redist_setup() first");
    return *handle->plan;
}
}  // namespace

extern "C" {

int dm_redist_setup(dm_array src, dm_array dst, dm_redist_method method, dm_redist *plan) {
    return c_boundary([&] {
        dm::require_pointer(plan, "dm_redist_setup: plan");
        *plan = nullptr;
        auto handle = std::make_unique<dm_redist_s>();
        handle->plan = std::make_unique<dm::redist::RedistPlan>(dm::array::array_of(src), dm::array::array_of(dst),
                                                                dm::enum_value(method));
        *plan = handle.release();
    });
}

int dm_redist_setup_groups(MPI_Comm comm, dm_array src, dm_array dst, dm_redist_method method, dm_redist *plan) {
    return c_boundary([&] {
        dm::require_pointer(plan, "dm_redist_setup_groups: plan");
        *plan = nullptr;
        dm::require_mpi_initialized();
        auto handle = std::make_unique<dm_redist_s>();
        handle->plan = std::make_unique<dm::redist::RedistPlan>(comm, src ? &dm::array::array_of(src) : nullptr,
                                                                dst ? &dm::array::array_of(dst) : nullptr,
                                                                dm::enum_value(method));
        *plan = handle.release();
    });
}

int dm_redist_execute(dm_redist plan, dm_array src, dm_array dst) {
    return c_boundary([&] {
        auto &p = plan_of(plan);
        p.execute(src ? &dm::array::array_of(src) : nullptr, dst ? &dm::array::array_of(dst) : nullptr);
    });
}

int dm_redist_free(dm_redist *plan) {
    return c_boundary([&] {
        if (!plan || !*plan) return;
        delete *plan;
        *plan = nullptr;
    });
}

int dm_redist_method_used(dm_redist plan, dm_redist_method *method) {
    return c_boundary([&] {
        dm::require_pointer(method, "dm_redist_method_used: method");
        *method = plan_of(plan).method();
    });
}

int dm_redist_volume(dm_redist plan, int64_t *messages_sent, int64_t *messages_received, int64_t *elements_sent,
                     int64_t *phases) {
    return c_boundary([&] {
        const auto &p = plan_of(plan);
        if (messages_sent) *messages_sent = p.messages_sent();
        if (messages_received) *messages_received = p.messages_received();
        if (elements_sent) *elements_sent = p.elements_sent();
        if (phases) *phases = p.phases();
    });
}

}  // extern "C"
