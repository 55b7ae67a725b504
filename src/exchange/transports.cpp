#include "exchange/transport.hpp"

#include "exchange/alltoallw.hpp"
#include "exchange/on_node.hpp"

namespace dm::exchange {

// The one table of transports, by name, in the order the planner asks them (the
// first that takes a message carries it) and executor names are listed. A new
// transport is its own file and one line here.
const std::vector<Registration> &transports() {
    static const std::vector<Registration> table = {
        {"pack", nullptr, true},  // point to point, packed both sides
        {"datatype", nullptr, true},  // point to point, datatypes both sides
        {"hybrid", nullptr, true},  // point to point, packed send and datatype receive
        {"alltoallw", make_alltoallw, false},
        {"onnode", make_on_node, true},
    };
    return table;
}

}  // namespace dm::exchange
