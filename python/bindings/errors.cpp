// Errors: dm::Error becomes datamotion.Error(code, message) on the Python side,
// and Python code can run the same collective agreement as C++ code.
#include "bindings.hpp"

#include "core/error.hpp"
#include "core/text.hpp"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace dm::python {
namespace {
// Values that are an array's shape followed by a hash of its contents.
std::string array_text(const std::vector<std::int64_t> &values) {
    if (values.empty()) return "no array";
    const std::vector<std::int64_t> shape(values.begin(), values.end() - 1);
    return "an array of shape " + tuple_text(shape) + " (contents hash " + std::to_string(values.back()) + ")";
}
}  // namespace

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

    m.def("require_same", [](nb::handle comm, std::vector<std::int64_t> values, const std::string &what, bool array) {
        MPI_Comm c = comm_from_python(comm);
        nb::gil_scoped_release release;
        require_same(c, values, what, array ? array_text : values_text);
    }, nb::arg("comm"), nb::arg("values"), nb::arg("what"), nb::arg("array") = false,
    "Collective on comm. Raises datamotion.Error (DM_ERR_MISMATCH) on every rank unless `values` "
    "is identical on all ranks, showing their values on two ranks that differ (array=True: `values` "
    "are an array's shape followed by a hash of its contents).");

    // The Python methods name the calls they make (datamotion._calls.collective): the
    // names are interned, since a CallScope keeps a pointer to its name.
    static auto *scopes = new std::vector<std::unique_ptr<CallScope>>();  // this thread's open scopes (the GIL's)
    m.def("enter_call", [](const std::string &name) {
        static auto *names = new std::set<std::string>();  // leaked on purpose, like error_class
        scopes->push_back(std::make_unique<CallScope>(names->insert(name).first->c_str()));
    }, nb::arg("name"), "Starts naming this thread's calls `name` (the outermost name wins); pair with leave_call().");
    m.def("leave_call", [] {
        if (!scopes->empty()) scopes->pop_back();
    }, "Ends the innermost enter_call().");

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
