// Message tags: one policy for every point-to-point message the exchange layer sends.
// Collectives need none (MPI keeps their messages apart from point-to-point ones).
//
// One-shot exchanges (VariableExchange, and gather_variable where it goes point to
// point) complete inside the call that starts them, and every rank of the
// communicator makes the same calls in the same order. They use the low tags, one per
// lane: exchanges in flight together take different lanes; successive ones may reuse
// a lane, because MPI keeps the order of the messages between two ranks on one tag
// and both sides of every pair agree on what travels.
//
// Planned exchanges (Plan) may be in flight together in any number, begun and waited
// for in different orders: each takes its own tag when it is finished, from a counter
// kept on the communicator above the lanes (next_plan_tag), the same on every rank
// because plans are finished in the same order everywhere.
#pragma once

#include <mpi.h>

namespace dm::exchange {

// The lanes of one-shot exchanges.
enum class Lane : int { first = 0, second = 1, third = 2, fourth = 3 };
constexpr int kLanes = 4;

// The tag of a lane's messages.
constexpr int lane_tag(Lane lane) { return static_cast<int>(lane); }

// The lowest tag a plan takes.
constexpr int kFirstPlanTag = kLanes;

// Local. The largest tag on comm (MPI_TAG_UB, at least 32767).
int largest_tag(MPI_Comm comm);

// Local, in the same order on every rank of comm: the next plan's tag, counting from
// kFirstPlanTag up to largest_tag(comm) and then again from kFirstPlanTag.
int next_plan_tag(MPI_Comm comm);

}  // namespace dm::exchange
