// datamotion._core.Redist and redist_schedule: redistribution plans and the
// contention-free schedules behind them.
#include "bindings.hpp"

#include "core/error.hpp"
#include "exchange/cost.hpp"
#include "redist/plan.hpp"
#include "redist/schedule.hpp"

#include <nanobind/stl/complex.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <complex>
#include <string>

namespace dm::python {

using redist::RedistPlan;

void bind_redist(nb::module_ &m) {
    nb::class_<RedistPlan>(m, "Redist", "A redistribution plan (see datamotion.RedistPlan).")
        .def("__init__",
             [](RedistPlan *self, const array::DistArray &src, const array::DistArray &dst, int method,
                const std::string &executor, bool transpose) {
                 const exchange::Executor e = exchange::executor_named(executor);
                 nb::gil_scoped_release release;
                 new (self) RedistPlan(src, dst, static_cast<dm_redist_method>(method), e, transpose);
             },
             nb::arg("src"), nb::arg("dst"), nb::arg("method"), nb::arg("executor") = "auto",
             nb::arg("transpose") = false)
        .def("__init__",
             [](RedistPlan *self, nb::handle comm, const array::DistArray *src, const array::DistArray *dst, int method,
                const std::string &executor) {
                 const exchange::Executor e = exchange::executor_named(executor);
                 MPI_Comm c = comm_from_python(comm);
                 nb::gil_scoped_release release;
                 new (self) RedistPlan(c, src, dst, static_cast<dm_redist_method>(method), e);
             },
             nb::arg("comm"), nb::arg("src").none(), nb::arg("dst").none(), nb::arg("method"),
             nb::arg("executor") = "auto")
        .def("execute",
             [](const RedistPlan &p, const array::DistArray *src, array::DistArray *dst) {
                 nb::gil_scoped_release release;
                 p.execute(src, dst);
             },
             nb::arg("src").none(), nb::arg("dst").none())
        .def("execute_scaled",
             [](const RedistPlan &p, const array::DistArray *src, array::DistArray *dst, std::complex<double> alpha,
                std::complex<double> beta, bool conjugate) {
                 redist::Scale scale;
                 scale.alpha = alpha, scale.beta = beta, scale.conjugate = conjugate;
                 nb::gil_scoped_release release;
                 p.execute(src, dst, scale);
             },
             nb::arg("src").none(), nb::arg("dst").none(), nb::arg("alpha"), nb::arg("beta"), nb::arg("conjugate"))
        .def("begin",
             [](const RedistPlan &p, const array::DistArray *src, array::DistArray *dst) {
                 nb::gil_scoped_release release;
                 p.begin(src, dst);
             },
             nb::arg("src").none(), nb::arg("dst").none())
        .def("end",
             [](const RedistPlan &p) {
                 nb::gil_scoped_release release;
                 p.end();
             })
        .def("test", &RedistPlan::test)
        .def("describe", &RedistPlan::describe)
        .def("messages", [](const RedistPlan &p) { return message_tuples(p.messages()); })
        .def_prop_ro("method", [](const RedistPlan &p) { return static_cast<int>(p.method()); })
        .def("volume", [](const RedistPlan &p) {
            return std::make_tuple(p.messages_sent(), p.messages_received(), p.elements_sent(),
                                   static_cast<std::int64_t>(p.phases()));
        });

    m.def("exchange_model", [] { return exchange::model_text(exchange::cost_model(), exchange::library_version()); },
          "The exchange cost model in use, as the text of a model file (see docs/redist-benchmarks.md).");
    m.def("exchange_model_source", [] { return exchange::cost_model().source; },
          "Local. Where the exchange cost model in use comes from: 'built-in' or its file's path.");
    m.def("exchange_model_path", [] { return exchange::model_path(); },
          "Local. Where the exchange cost model file is looked for: $DM_EXCHANGE_MODEL, else "
          "$XDG_CACHE_HOME/datamotion/exchange-model.txt, else ~/.cache/datamotion/exchange-model.txt.");
    m.def("exchange_model_accepts",
          [](const std::string &text) {
              exchange::CostModel model;
              return exchange::parse_model(text, exchange::library_version(), model);
          },
          nb::arg("text"),
          "Local. Whether this MPI library would use a model file of this text (right library, "
          "complete, no negative coefficient).");

    m.def("redist_schedule",
          [](const std::string &kind, int P, int K, std::uint64_t seed) {
              redist::Schedule s;
              if (kind == "optimal")
                  s = redist::optimal_schedule(P, K);
              else if (kind == "simple")
                  s = redist::simple_schedule(P, K);
              else if (kind == "random")
                  s = redist::random_schedule(P, K, seed);
              else
                  fail(DM_ERR_ARG, "unknown schedule '", kind, "' (optimal, simple or random)");
              return std::make_tuple(s.send_block, s.send_proc, s.send_local, s.recv_block, s.recv_proc, s.recv_slot);
          },
          nb::arg("kind"), nb::arg("P"), nb::arg("K"), nb::arg("seed") = 0,
          "Local. The K x P tables (row-major lists) of a schedule: send_block, send_proc, send_local, "
          "recv_block, recv_proc, recv_slot (the receive tables are empty for simple and random).");
}

}  // namespace dm::python
