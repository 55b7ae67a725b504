// datamotion._core.PShift: a polyshift plan over DistArrays.
#include "bindings.hpp"

#include "core/error.hpp"
#include "shift/halo.hpp"
#include "shift/pshift.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <optional>

namespace dm::python {

using array::DistArray;
using shift::PShiftPlan;

namespace {
using Boundary = nb::ndarray<nb::ro, nb::c_contig, nb::device::cpu>;
using SpecTuple = std::tuple<int, int, std::int64_t, int>;  // kind, axis, shift, boundary kind

// The C++ arrays of a list or tuple of n datamotion.DistArray (their `_a`), into
// `out`, each held in `keep` (the call releases the GIL: another thread may drop
// the list); false for anything else.
bool core_arrays(nb::handle list, int n, DistArray **out, nb::object *keep) {
    PyObject *seq = list.ptr();
    const bool is_list = PyList_CheckExact(seq), is_tuple = PyTuple_CheckExact(seq);
    if (!(is_list || is_tuple) || Py_SIZE(seq) != n) return false;
    static PyObject *const name = PyUnicode_InternFromString("_a");
    for (int k = 0; k < n; ++k) {
        PyObject *item = is_list ? PyList_GET_ITEM(seq, k) : PyTuple_GET_ITEM(seq, k);
        nb::object &core = keep[k];
        core = nb::steal(PyObject_GetAttr(item, name));
        if (!core.is_valid()) {
            PyErr_Clear();
            return false;
        }
        if (!nb::isinstance<DistArray>(core) || !nb::inst_ready(core)) return false;
        out[k] = nb::inst_ptr<DistArray>(core);  // exactly the bound class: no conversion to try
    }
    return true;
}

auto volume_tuple(const shift::Volume &v) {
    return std::make_tuple(v.messages_sent, v.messages_received, v.elements_sent, v.elements_copied);
}
}  // namespace

void bind_shift(nb::module_ &m) {
    nb::class_<PShiftPlan>(m, "PShift", "A polyshift plan (see datamotion.PShift).")
        .def("__init__",
             [](PShiftPlan *self, const DistArray &prototype, std::vector<SpecTuple> specs, const std::string &executor) {
                 std::vector<dm_shift_spec> s;
                 for (const auto &[kind, axis, distance, boundary] : specs)
                     s.push_back({static_cast<dm_shift_kind>(kind), axis, distance,
                                  static_cast<dm_boundary_kind>(boundary)});
                 const exchange::Executor e = exchange::executor_named(executor);
                 nb::gil_scoped_release release;
                 new (self) PShiftPlan(prototype, s, e);
             },
             nb::arg("prototype"), nb::arg("specs"), nb::arg("executor") = "auto")
        .def("begin",
             [](PShiftPlan &p, std::vector<DistArray *> dsts, std::vector<const DistArray *> srcs,
                std::vector<std::optional<Boundary>> boundaries) {
                 const int n = p.nshifts();
                 if (static_cast<int>(dsts.size()) != n || static_cast<int>(srcs.size()) != n)
                     fail(DM_ERR_ARG, "pshift: the plan has ", n, " shifts but got ", dsts.size(), " destinations and ",
                          srcs.size(), " sources");
                 if (!boundaries.empty() && static_cast<int>(boundaries.size()) != n)
                     fail(DM_ERR_ARG, "pshift: ", boundaries.size(), " boundaries for ", n, " shifts");
                 std::vector<const void *> pointers(static_cast<size_t>(n), nullptr);
                 for (int k = 0; k < static_cast<int>(boundaries.size()); ++k) {
                     if (!boundaries[k]) continue;
                     const Boundary &b = *boundaries[k];
                     const dm_shift_spec &spec = p.spec(k);
                     std::vector<std::int64_t> want;  // a scalar has no axes
                     if (spec.boundary == DM_BOUNDARY_ARRAY) want = p.boundary_shape(k);
                     bool ok = b.itemsize() == (dsts[k] ? dsts[k]->element_size() : 0) && b.ndim() == want.size();
                     for (size_t i = 0; ok && i < want.size(); ++i) ok = static_cast<std::int64_t>(b.shape(i)) == want[i];
                     if (!ok) fail(DM_ERR_ARG, "pshift: shift ", k, ": boundary of the wrong shape or type");
                     pointers[k] = b.data();
                 }
                 nb::gil_scoped_release release;
                 p.begin(dsts.data(), srcs.data(), pointers.data());
             },
             nb::arg("dsts"), nb::arg("srcs"), nb::arg("boundaries"))
        .def("execute_direct",
             [](PShiftPlan &p, nb::handle dsts, nb::handle srcs) {
                 // PShift.execute's fast path: false (nothing done) unless both are
                 // lists or tuples of nshifts DistArrays; no boundaries.
                 constexpr int kSmall = 32;
                 const int n = p.nshifts();
                 DistArray *small[2 * kSmall];
                 nb::object small_keep[2 * kSmall];
                 std::vector<DistArray *> big(n > kSmall ? static_cast<size_t>(2 * n) : 0);
                 std::vector<nb::object> big_keep(big.size());
                 DistArray **d = n > kSmall ? big.data() : small, **s = d + n;
                 nb::object *keep = n > kSmall ? big_keep.data() : small_keep;
                 if (!core_arrays(dsts, n, d, keep) || !core_arrays(srcs, n, s, keep + n)) return false;
                 nb::gil_scoped_release release;
                 p.execute(d, const_cast<const DistArray *const *>(s), nullptr);
                 return true;
             },
             nb::arg("dsts"), nb::arg("srcs"))
        .def("end",
             [](PShiftPlan &p) {
                 nb::gil_scoped_release release;
                 p.end();
             })
        .def("test", &PShiftPlan::test)
        .def("describe", &PShiftPlan::describe)
        .def("messages", [](const PShiftPlan &p) { return message_tuples(p.messages()); })
        .def_prop_ro("in_flight", &PShiftPlan::in_flight)
        .def_prop_ro("nshifts", &PShiftPlan::nshifts)
        .def("boundary_shape", &PShiftPlan::boundary_shape, nb::arg("k"))
        .def("volume", [](const PShiftPlan &p) { return volume_tuple(p.volume()); });

    nb::class_<shift::HaloPlan>(m, "Halo", "A halo plan (see datamotion.Halo).")
        .def("__init__",
             [](shift::HaloPlan *self, const DistArray &prototype, bool corners, const std::string &executor) {
                 const exchange::Executor e = exchange::executor_named(executor);
                 nb::gil_scoped_release release;
                 new (self) shift::HaloPlan(prototype, corners, e);
             },
             nb::arg("prototype"), nb::arg("corners"), nb::arg("executor") = "auto")
        .def("exchange",
             [](shift::HaloPlan &h, DistArray &a) {
                 nb::gil_scoped_release release;
                 h.exchange(a);
             },
             nb::arg("array"))
        .def("begin",
             [](shift::HaloPlan &h, DistArray &a) {
                 nb::gil_scoped_release release;
                 h.begin(a);
             },
             nb::arg("array"))
        .def("end",
             [](shift::HaloPlan &h) {
                 nb::gil_scoped_release release;
                 h.end();
             })
        .def("test", &shift::HaloPlan::test)
        .def("describe", &shift::HaloPlan::describe)
        .def("messages", [](const shift::HaloPlan &h) { return message_tuples(h.messages()); })
        .def_prop_ro("in_flight", &shift::HaloPlan::in_flight)
        .def_prop_ro("corners", &shift::HaloPlan::corners)
        .def("volume", [](const shift::HaloPlan &h) { return volume_tuple(h.volume()); });
}

}  // namespace dm::python
