// Errors: dm::Error becomes datamotion.Error(code, message) on the Python side,
// and Python code can run the same collective agreement as C++ code.
#include "bindings.hpp"

#include "core/error.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <optional>

namespace dm::python {

void bind_errors(nb::module_ &m) {
    // The exception class lives in Python (datamotion/_errors.py); look it up once.
    static PyObject *error_class = nullptr;  // leaked on purpose: outlives the interpreter's teardown order
    nb::register_exception_translator([](const std::exception_ptr &p, void *) {
        try {
            std::rethrow_exception(p);
        } catch (const dm::Error &e) {
            if (!error_class) error_class = nb::object(nb::module_::import_("datamotion._errors").attr("Error")).release().ptr();
            nb::object exc = nb::borrow(error_class)(e.code(), e.what());
            PyErr_SetObject(error_class, exc.ptr());
        }
    });

    m.def("agree", [](nb::handle comm, int code, std::optional<std::string> message) {
        MPI_Comm c = comm_from_python(comm);
        nb::gil_scoped_release release;
        collective(c, [&] {
            if (message) fail(code, *message);
        });
    }, nb::arg("comm"), nb::arg("code"), nb::arg("message").none(),
    "Collective on comm. Raises datamotion.Error on every rank if `message` is not None on any "
    "rank (the lowest such rank's code and message).");

    m.def("require_same", [](nb::handle comm, std::vector<std::int64_t> values, const std::string &what) {
        MPI_Comm c = comm_from_python(comm);
        nb::gil_scoped_release release;
        require_same(c, values, what);
    }, nb::arg("comm"), nb::arg("values"), nb::arg("what"),
    "Collective on comm. Raises datamotion.Error (DM_ERR_MISMATCH) on every rank unless `values` "
    "is identical on all ranks.");

    m.def("hot_path", [](nb::handle comm, const std::string &call, int code, std::optional<std::string> message) {
        MPI_Comm c = comm_from_python(comm);
        nb::gil_scoped_release release;
        hot_path(c, call.c_str(), [&] {
            if (message) fail(code, *message);
        });
    }, nb::arg("comm"), nb::arg("call"), nb::arg("code"), nb::arg("message").none(),
    "The rule for a hot-path call's arguments: in checked mode as agree(); otherwise a message on a "
    "communicator of more than one rank ends the job naming `call`, with no collective when all is well.");

    m.def("checked_mode", &checked_mode, "Whether DATAMOTION_CHECK is on (read once, at first use).");

    m.def("abort_job", [](const std::string &call, int code, const std::string &message) {
        abort_job(call.c_str(), code, message);
    }, nb::arg("call"), nb::arg("code"), nb::arg("message"),
    "Ends the job with MPI_Abort after printing the rank, the call and the message on stderr.");

    m.def("status_name", &dm_status_name, nb::arg("status"));
}

}  // namespace dm::python
