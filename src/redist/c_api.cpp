// extern "C" entry points of the redistribution capability.
#include "array/handle.hpp"
#include "core/checked.hpp"
#include "core/error.hpp"
#include "core/handles.hpp"
#include "core/text.hpp"
#include "redist/plan.hpp"

struct dm_redist_s {
    std::unique_ptr<dm::redist::RedistPlan> plan;
};

namespace {
using dm::c_boundary;
using dm::fail;

dm::redist::RedistPlan &plan_of(dm_redist handle) {
    dm::handles::require_live(handle, "redist plan", "dm_redist_setup");
    return *handle->plan;
}

// An array handle that may be NULL (this rank holds no such array).
dm::array::DistArray *optional_array(dm_array handle) {
    return handle ? &dm::array::array_of(handle) : nullptr;
}

dm_redist register_plan(std::unique_ptr<dm_redist_s> handle) {
    dm::handles::add(handle.get(), "redist plan");
    return handle.release();
}

// dm_redist_execute or dm_redist_begin: the handles checked (hot path), then run(plan, src, dst).
template <class Call>
int with_redist_arrays(const char *call, dm_redist plan, dm_array src, dm_array dst, Call &&run) {
    return dm::c_boundary(call, [&] {
        auto &p = dm::communicator_handle(call, [&]() -> auto & { return plan_of(plan); });
        dm::array::DistArray *from = nullptr, *to = nullptr;
        dm::hot_path(p.comm(), call, [&] {
            from = optional_array(src);
            to = optional_array(dst);
        });
        run(p, from, to);
    });
}
}  // namespace

extern "C" {

int dm_redist_setup(dm_array src, dm_array dst, dm_redist_method method, dm_redist *plan) {
    return c_boundary(__func__, [&] {
        const auto &from =
            dm::communicator_handle("dm_redist_setup", [&]() -> auto & { return dm::array::array_of(src); });
        const dm::array::DistArray *to = nullptr;
        dm::collective(from.grid().comm(), [&] {
            dm::require_pointer(plan, "dm_redist_setup: plan");
            to = &dm::array::array_of(dst);
        });
        *plan = nullptr;
        auto handle = std::make_unique<dm_redist_s>();
        handle->plan = std::make_unique<dm::redist::RedistPlan>(from, *to, dm::enum_value(method));
        *plan = register_plan(std::move(handle));
    });
}

int dm_redist_setup_groups(MPI_Comm comm, dm_array src, dm_array dst, dm_redist_method method, dm_redist *plan) {
    return c_boundary(__func__, [&] {
        dm::require_mpi_initialized();
        if (comm == MPI_COMM_NULL) fail(DM_ERR_ARG, "dm_redist_setup_groups: communicator is MPI_COMM_NULL");
        const dm::array::DistArray *from = nullptr, *to = nullptr;
        dm::collective(comm, [&] {
            dm::require_pointer(plan, "dm_redist_setup_groups: plan");
            from = optional_array(src);
            to = optional_array(dst);
        });
        *plan = nullptr;
        auto handle = std::make_unique<dm_redist_s>();
        handle->plan = std::make_unique<dm::redist::RedistPlan>(comm, from, to, dm::enum_value(method));
        *plan = register_plan(std::move(handle));
    });
}

int dm_redist_execute(dm_redist plan, dm_array src, dm_array dst) {
    return with_redist_arrays("dm_redist_execute", plan, src, dst, [](auto &p, auto *from, auto *to) { p.execute(from, to); });
}

int dm_redist_begin(dm_redist plan, dm_array src, dm_array dst) {
    return with_redist_arrays("dm_redist_begin", plan, src, dst, [](auto &p, auto *from, auto *to) { p.begin(from, to); });
}

int dm_redist_end(dm_redist plan) {
    return c_boundary(__func__, [&] {
        dm::communicator_handle("dm_redist_end", [&]() -> auto & { return plan_of(plan); }).end();
    });
}

int dm_redist_test(dm_redist plan, int *done) {
    return c_boundary(__func__, [&] {
        if (!done) fail(DM_ERR_ARG, "dm_redist_test: done is NULL");
        *done = plan_of(plan).test() ? 1 : 0;
    });
}

int dm_redist_describe(dm_redist plan, char *text, size_t size, size_t *length) {
    return c_boundary(__func__, [&] { dm::write_text(plan_of(plan).describe(), text, size, length); });
}

int dm_redist_free(dm_redist *plan) {
    return c_boundary(__func__, [&] {
        if (!plan || !*plan) return;
        if (plan_of(*plan).in_flight())
            fail(DM_ERR_STATE, "dm_redist_free: the plan has an execution in flight (call dm_redist_end first)");
        dm::handles::remove(*plan);
        delete *plan;
        *plan = nullptr;
    });
}

int dm_redist_method_used(dm_redist plan, dm_redist_method *method) {
    return c_boundary(__func__, [&] {
        dm::require_pointer(method, "dm_redist_method_used: method");
        *method = plan_of(plan).method();
    });
}

int dm_redist_volume(dm_redist plan, int64_t *messages_sent, int64_t *messages_received, int64_t *elements_sent,
                     int64_t *phases) {
    return c_boundary(__func__, [&] {
        const auto &p = plan_of(plan);
        if (messages_sent) *messages_sent = p.messages_sent();
        if (messages_received) *messages_received = p.messages_received();
        if (elements_sent) *elements_sent = p.elements_sent();
        if (phases) *phases = p.phases();
    });
}

}  // extern "C"
