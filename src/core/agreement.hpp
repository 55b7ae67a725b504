// How the ranks of a collective call agree, and what they are told when they do not.
//
// Every agreement (dm::agree, dm::require_same, CallSignature::require_same) starts
// with one fixed-size step: the same MPI_Allreduce of the same number of words on
// every rank, whatever the call and its arguments. It carries the name of the call
// each rank is in (the outermost CallScope), the name of the check, whether this rank
// failed, and a digest of the values that must agree. So ranks that are in different
// datamotion calls, at different checks, or that disagree about sizes, all learn the
// same thing from the step and fail alike with DM_ERR_MISMATCH naming both sides; no
// rank posts a collective of another shape.
//
// The step waits with a deadline (DATAMOTION_TIMEOUT): a rank whose partners never
// arrive (they are in an MPI call of their own, computing, or stopped) ends the job
// with one line naming itself, the call and how long it waited.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dm {

// Names the datamotion call this thread is in, for agreement messages and deadlines.
// The outermost scope wins: a C entry point or a Python method names the call, and
// the library functions it runs do not rename it. `name` must outlive the scope.
class CallScope {
public:
    explicit CallScope(const char *name) noexcept;
    ~CallScope();
    CallScope(const CallScope &) = delete;
    CallScope &operator=(const CallScope &) = delete;
};

// The outermost CallScope's name on this thread, or "" outside any.
const char *current_call() noexcept;

// Seconds an agreement step waits for the other ranks before it ends the job; 0 for
// no deadline. DATAMOTION_TIMEOUT=S in the environment (S > 0; 0 turns it off);
// default 300 s in checked mode, none otherwise (a rank may compute for an hour
// before it reaches a collective). Read once.
double agreement_timeout();

// The outcome of an agreement step, the same on every rank.
struct StepOutcome {
    int failing_rank;    // the lowest rank that failed, or the communicator's size
    int differing_rank;  // the lowest rank whose values differ from rank 0's, or -1
    bool values_differ() const { return differing_rank > 0; }
};

// Collective on comm: the fixed-size step that every agreement starts with (see
// above). `what` names the check ("global shape"); `call` names the call when no
// CallScope does. Throws AgreedError(DM_ERR_MISMATCH) on every rank when the ranks are
// in different calls or at different checks; otherwise returns the outcome. One
// MPI_Allreduce (an MPI_Iallreduce and a test loop where there is a deadline).
StepOutcome agreement_step(MPI_Comm comm, const char *what, bool failed, const std::int64_t *values,
                           std::size_t count, const char *call = "");

// Collective on comm: the lowest rank whose `mine` is `low` and the lowest whose `mine`
// is `high` (the minimum and maximum of `mine` over the ranks). One MPI_Allreduce.
std::pair<int, int> ranks_holding(MPI_Comm comm, std::int64_t mine, std::int64_t low, std::int64_t high);

// Collective on comm: the texts `mine` of ranks `low_rank` and `high_rank` (up to 127
// characters each), for messages naming what two ranks are doing. One MPI_Allreduce.
std::pair<std::string, std::string> names_of(MPI_Comm comm, int low_rank, int high_rank, const char *mine);

// Collective on comm, after a step found the values differ: the values of rank 0 and
// of outcome.differing_rank. Two MPI_Bcast each.
std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>> values_of(MPI_Comm comm, const StepOutcome &outcome,
                                                                          const std::vector<std::int64_t> &mine);

// How require_same shows the values of one rank in its message.
using ValuesText = std::string (*)(const std::vector<std::int64_t> &);

// "(12, 12)" for several values, "12" for one: the default ValuesText.
std::string values_text(const std::vector<std::int64_t> &values);

// The message of a value mismatch: "WHAT differs across ranks: A on rank R, B on rank S".
std::string differs_text(const std::string &what, const std::string &low, int low_rank, const std::string &high,
                         int high_rank);

}  // namespace dm
