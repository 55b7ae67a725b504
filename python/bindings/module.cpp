// datamotion._core: the compiled half of the Python package.
#include "bindings.hpp"

#include "core/error.hpp"
#include "core/node_memory.hpp"
#include "core/provenance.hpp"
#include "exchange/plan.hpp"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <mpi4py/mpi4py.h>

namespace dm::python {

MPI_Comm comm_from_python(nb::handle comm) {
    if (!PyObject_TypeCheck(comm.ptr(), &PyMPIComm_Type))
        throw nb::type_error("expected an mpi4py.MPI.Comm communicator");
    MPI_Comm *handle = PyMPIComm_Get(comm.ptr());
    if (!handle) throw nb::python_error();
    return *handle;
}

nb::object comm_to_python(MPI_Comm comm) {
    PyObject *obj = PyMPIComm_New(comm);
    if (!obj) throw nb::python_error();
    return nb::steal(obj);
}

nb::dlpack::dtype dlpack_dtype(dm_dtype dtype) {
    using code = nb::dlpack::dtype_code;
    switch (dtype) {
        case DM_INT32: return {static_cast<uint8_t>(code::Int), 32, 1};
        case DM_INT64: return {static_cast<uint8_t>(code::Int), 64, 1};
        case DM_FLOAT32: return {static_cast<uint8_t>(code::Float), 32, 1};
        case DM_FLOAT64: return {static_cast<uint8_t>(code::Float), 64, 1};
        case DM_COMPLEX64: return {static_cast<uint8_t>(code::Complex), 64, 1};
        case DM_COMPLEX128: return {static_cast<uint8_t>(code::Complex), 128, 1};
        case DM_BOOL: return {static_cast<uint8_t>(code::Bool), 8, 1};
    }
    fail(DM_ERR_INTERNAL, "unhandled element type");
}

}  // namespace dm::python

NB_MODULE(_core, m) {
    namespace nb = nanobind;
    using namespace dm::python;
    if (import_mpi4py() < 0) throw nb::python_error();
    m.doc() = "Compiled core of datamotion (use the datamotion package, not this module).";
    m.attr("version") = dm_version();

    bind_errors(m);
    bind_grid(m);
    bind_array(m);
    bind_shift(m);
    bind_bench(m);
    bind_bench_paragon(m);
    bind_bench_cm5(m);
    bind_redist(m);
    bind_cost(m);
    bind_vector(m);

    m.def("provenance_json", [](nb::handle comm) { return dm::provenance_json(comm_from_python(comm)); },
          nb::arg("comm"), "Collective on comm. Provenance of this run as a JSON object string.");
    m.def("mpi_library_version", [] {
        char text[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(text, &len);
        return std::string(text, static_cast<size_t>(len));
    }, "Local. The version string of the MPI library this extension calls.");
    m.def("node_memory_enabled", [] { return dm::node::enabled(); },
          "Local. Whether arrays are allocated in node memory where ranks share a node "
          "(not under DATAMOTION_NODE_MEMORY=0 or MPICH's MPIR_CVAR_NOLOCAL=1).");
    m.def("exchange_executors", [] { return dm::exchange::executor_names(true); },
          "Local. The executor names executor= takes: auto, then the registered transports.");
    m.def("comm_c2f", [](nb::handle comm) { return static_cast<long>(MPI_Comm_c2f(comm_from_python(comm))); },
          "Local. Fortran handle of a communicator as this extension's MPI sees it.");
}
