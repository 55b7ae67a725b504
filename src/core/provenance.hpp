// What produced a result: library, MPI, ranks, hosts, threads, clocks, build.
#pragma once

#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace dm {

// Collective on comm. Ordered key/value pairs; values are already JSON literals.
std::vector<std::pair<std::string, std::string>> provenance(MPI_Comm comm);

std::string provenance_json(MPI_Comm comm);

// Quotes and escapes a string as a JSON string literal.
std::string json_string(const std::string &s);

}  // namespace dm
