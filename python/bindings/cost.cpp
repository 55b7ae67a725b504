// datamotion._core.ExchangeModel: the exchange engine's cost model and its
// pricing, so that calibration asks the engine instead of repeating its rules.
#include "bindings.hpp"

#include "core/error.hpp"
#include "exchange/cost.hpp"

#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace dm::python {

namespace {

using exchange::CostModel;
using Coefficients = std::tuple<double, double, double>;

// A model and the library it is for (the first line of its file).
struct Model {
    CostModel model;
    std::string library;
};

exchange::Line &line_or_fail(CostModel &m, const std::string &name) {
    exchange::Line *l = exchange::line_named(m, name);
    if (!l) fail(DM_ERR_ARG, "exchange model: no line '", name, "'");
    return *l;
}
const exchange::Line &line_or_fail(const CostModel &m, const std::string &name) {
    return line_or_fail(const_cast<CostModel &>(m), name);
}

exchange::Locality locality(bool across_nodes) {
    return across_nodes ? exchange::Locality::AcrossNodes : exchange::Locality::OnNode;
}

// The names of the lines of one locality, in a model file's order (exchange::kLineNames).
std::vector<std::string> line_names(bool across_nodes) {
    const int first = across_nodes ? exchange::kOnNodeLines : 0, end = across_nodes ? exchange::kLines : exchange::kOnNodeLines;
    return {exchange::kLineNames + first, exchange::kLineNames + end};
}

// The ways one side of a message can take, in the words of choose(), and the line
// that prices each in price_send and price_recv (named as within a node; between
// nodes the same lines prefixed, where that locality has them: no send_split).
struct WayLine {
    const char *way, *line;
};
constexpr WayLine kSendWays[] = {{"packed", "send_packed"}, {"split", "send_split"}, {"whole", "send_datatype"}};
constexpr WayLine kRecvWays[] = {{"packed", "recv_packed"}, {"datatype", "recv_datatype"}};

nb::dict way_lines(bool across_nodes) {
    const std::vector<std::string> names = line_names(across_nodes);
    auto side = [&](const auto &ways) {
        nb::dict out;
        for (const WayLine &w : ways) {
            const std::string line = (across_nodes ? exchange::kAcrossPrefix : "") + std::string(w.line);
            if (std::find(names.begin(), names.end(), line) != names.end()) out[w.way] = line;
        }
        return out;
    };
    nb::dict out;
    out["send"] = side(kSendWays), out["recv"] = side(kRecvWays);
    return out;
}

Model parsed(const std::string &text) {
    // The library is the one the text names, so a model of another machine can be priced here.
    const std::size_t end = text.find('\n');
    const std::string first = text.substr(0, end);
    const std::string prefix = "library ";
    Model m;
    if (first.compare(0, prefix.size(), prefix) == 0) m.library = first.substr(prefix.size());
    if (m.library.empty() || !exchange::parse_model(text, m.library, m.model))
        fail(DM_ERR_ARG, "exchange model: not a complete model file (see docs/exchange.md)");
    return m;
}

}  // namespace

void bind_cost(nb::module_ &m) {
    nb::class_<Model> model(m, "ExchangeModel",
                            "Local. The exchange engine's cost model (src/exchange/cost.hpp) and its pricing.");
    model.attr("across_prefix") = exchange::kAcrossPrefix;
    model
        .def_static("line_names", &line_names, nb::arg("across_nodes") = false,
                    "The names of the lines that price messages within a node (or between nodes), in a model "
                    "file's order.")
        .def_static("way_lines", &way_lines, nb::arg("across_nodes") = false,
                    "The ways each side of a message can take within a node (or between nodes) and the line "
                    "that prices each: {'send': {way: line}, 'recv': {way: line}}, in the words of choose().")
        .def_static("parse", &parsed, nb::arg("text"),
                    "The model of a model file's text, read by the engine's parser; DM_ERR_ARG if incomplete.")
        .def_static(
            "of",
            [](const std::string &library, const std::map<std::string, Coefficients> &lines, std::int64_t split_runs,
               std::int64_t split_min_bytes, std::int64_t chunk_bytes) {
                Model out;
                out.library = library;
                out.model = exchange::builtin_model(library);
                for (const auto &[name, abc] : lines) {
                    exchange::Line &l = line_or_fail(out.model, name);
                    l.a = std::get<0>(abc), l.b = std::get<1>(abc), l.c = std::get<2>(abc);
                    // The parser's rules, without rounding the coefficients through text.
                    if (!(l.a >= 0 && l.b >= 0 && l.c >= 0) || !std::isfinite(l.a + l.b + l.c))
                        fail(DM_ERR_ARG, "exchange model: line '", name, "' needs finite coefficients >= 0");
                }
                if (split_runs < 0 || split_min_bytes < 0 || chunk_bytes < 64)
                    fail(DM_ERR_ARG, "exchange model: split_runs and split_min_bytes must be >= 0, chunk_bytes >= 64");
                out.model.split_runs = split_runs, out.model.split_min_bytes = split_min_bytes;
                out.model.chunk_bytes = chunk_bytes;
                return out;
            },
            nb::arg("library"), nb::arg("lines"), nb::arg("split_runs"), nb::arg("split_min_bytes"),
            nb::arg("chunk_bytes"), "A model of these lines and settings for `library`.")
        .def_ro("library", &Model::library)
        .def_prop_ro("split_runs", [](const Model &m) { return m.model.split_runs; })
        .def_prop_ro("split_min_bytes", [](const Model &m) { return m.model.split_min_bytes; })
        .def_prop_ro("chunk_bytes", [](const Model &m) { return m.model.chunk_bytes; })
        .def("lines",
             [](const Model &m) {
                 std::map<std::string, Coefficients> out;
                 for (const char *name : exchange::kLineNames) {
                     const exchange::Line *l = exchange::line_named(m.model, name);
                     out[name] = {l->a, l->b, l->c};
                 }
                 return out;
             },
             "The lines of both localities, name -> (a, b, c).")
        .def("text", [](const Model &m) { return exchange::model_text(m.model, m.library); },
             "The text of its model file, as the engine writes it.")
        .def(
            "features",
            [](const Model &m, const std::string &line, std::int64_t bytes, std::int64_t runs) {
                line_or_fail(m.model, line);
                const exchange::Features f = exchange::features(m.model, line, bytes, runs);
                return std::make_tuple(f.messages, f.bytes, f.runs);
            },
            nb::arg("line"), nb::arg("bytes"), nb::arg("runs"),
            "(messages, bytes, runs) at which `line` prices one side of a message.")
        .def(
            "price_line",
            [](const Model &m, const std::string &line, std::int64_t bytes, std::int64_t runs) {
                const exchange::Features f = exchange::features(m.model, line, bytes, runs);
                return line_or_fail(m.model, line).at(f.messages, f.bytes, f.runs);
            },
            nb::arg("line"), nb::arg("bytes"), nb::arg("runs"),
            "Microseconds: `line` at the features it prices one side of a message of `bytes` bytes in "
            "`runs` runs at.")
        .def(
            "prices",
            [](const Model &m, std::int64_t bytes, std::int64_t runs, bool across_nodes) {
                const exchange::Locality where = locality(across_nodes);
                const exchange::SidePrice s = exchange::price_send(m.model, bytes, runs, where);
                const exchange::SidePrice r = exchange::price_recv(m.model, bytes, runs, where);
                nb::dict out;
                out["send_packed"] = s.packed, out["send_datatype"] = s.datatype;
                out["send_split"] = s.split, out["send_cut"] = s.cut, out["single_copy"] = s.single_copy;
                out["recv_packed"] = r.packed, out["recv_datatype"] = r.datatype;
                return out;
            },
            nb::arg("bytes"), nb::arg("runs"), nb::arg("across_nodes") = false,
            "Local. How the engine prices both sides of a message of `bytes` bytes in `runs` runs (more "
            "than one) within a node or across nodes: microseconds by each way, and whether the sender's "
            "datatype is copied once (split: priced by send_split; cut: in pieces of <= split_runs runs).")
        .def(
            "choose",
            [](const Model &m, std::int64_t bytes, std::int64_t runs, bool across_nodes) {
                const exchange::Locality where = locality(across_nodes);
                const exchange::SidePrice s = exchange::price_send(m.model, bytes, runs, where);
                const exchange::SidePrice r = exchange::price_recv(m.model, bytes, runs, where);
                const WayLine &send = !s.datatype_wins() ? kSendWays[0] : s.split ? kSendWays[1] : kSendWays[2];
                const WayLine &recv = r.datatype_wins() ? kRecvWays[1] : kRecvWays[0];
                return std::make_tuple(std::string(send.way), std::string(recv.way));
            },
            nb::arg("bytes"), nb::arg("runs"), nb::arg("across_nodes") = false,
            "Local. The ways the auto executor takes for a message of `bytes` bytes in `runs` runs within a "
            "node or across nodes: the sender's 'packed', 'split' (a datatype copied once) or 'whole' (a "
            "datatype in one message), the receiver's 'packed' or 'datatype'.");
}

}  // namespace dm::python
