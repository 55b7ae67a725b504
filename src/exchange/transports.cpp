#include "exchange/transport.hpp"

#include "exchange/aggregate.hpp"
#include "exchange/alltoallw.hpp"
#include "exchange/on_node.hpp"
#include "exchange/point_to_point.hpp"

namespace dm::exchange {

// The one table of transports, by name, in the order the planner asks them (the
// first that takes a message carries it) and executor names are listed. A new
// transport is its own file and one line here.
const std::vector<Registration> &transports() {
    static const std::vector<Registration> table = {
        {"pack", make_point_to_point<Force::Pack>, true},  // packed both sides
        {"datatype", make_point_to_point<Force::Datatype>, true},  // datatypes both sides
        {"hybrid", make_point_to_point<Force::Hybrid>, true},  // packed send, datatype receive
        {"alltoallw", make_alltoallw, false},
        {"onnode", make_on_node, true},
        {"aggregate", make_aggregate, true},  // across nodes through the node leaders
    };
    return table;
}

}  // namespace dm::exchange
