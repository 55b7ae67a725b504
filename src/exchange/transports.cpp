#include "exchange/transport.hpp"

#include "core/error.hpp"
#include "exchange/aggregate.hpp"
#include "exchange/alltoallw.hpp"
#include "exchange/on_node.hpp"
#include "exchange/point_to_point.hpp"

#include <string>

namespace dm::exchange {

namespace {

// The one table of transports, by name, in the order the planner asks them (the
// first that takes a message carries it) and executor names are listed. A new
// transport runs with its own file, one line here and its source in CMakeLists.txt;
// docs/architecture.md counts the other files a built-in one touches today.
std::vector<Registration> &table() {
    static std::vector<Registration> registered = {
        {"pack", make_point_to_point<Force::Pack>, true},  // packed both sides
        {"datatype", make_point_to_point<Force::Datatype>, true},  // datatypes both sides
        {"hybrid", make_point_to_point<Force::Hybrid>, true},  // packed send, datatype receive
        {"alltoallw", make_alltoallw, false},
        {"onnode", make_on_node, true},
        {"aggregate", make_aggregate, true},  // across nodes through the node leaders
    };
    return registered;
}

}  // namespace

const std::vector<Registration> &transports() { return table(); }

void register_transport(const Registration &registration) {
    const std::string name = registration.name ? registration.name : "";
    if (name.empty() || name == "auto" || !registration.make)
        fail(DM_ERR_ARG, "exchange: a transport needs a name other than 'auto' and a factory");
    for (const Registration &r : table())
        if (name == r.name) fail(DM_ERR_ARG, "exchange: a transport named '", name, "' is already registered");
    table().push_back(registration);
}

}  // namespace dm::exchange
