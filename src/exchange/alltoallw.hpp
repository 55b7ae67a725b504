// The alltoallw transport: every message of the plan in one MPI_Ialltoallw of
// derived datatypes over absolute addresses. A collective, so only where a
// capability asks for it (redistribution's alltoallw method), never by auto.
#pragma once

#include "exchange/transport.hpp"

namespace dm::exchange {

std::unique_ptr<Transport> make_alltoallw(const TransportSetup &setup);

}  // namespace dm::exchange
