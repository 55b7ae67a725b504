// The exchange's cost model: how long one side of one message takes by each way
// it can travel, on this MPI library. Each side of a message chooses its way for
// itself (messages are typed as bytes), so the model prices one side at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace dm::exchange {

// t = a * messages + b * bytes + c * runs, in microseconds: `messages` the MPI
// messages the side posts, `runs` its contiguous runs of memory.
struct Line {
    double a = 0, b = 0, c = 0;
    double at(double messages, double bytes, double runs) const { return a * messages + b * bytes + c * runs; }
};

// Where the two ends of a message live, as MPI_Comm_split_type(SHARED) groups the
// ranks: MPI carries a message within a node by shared memory (copying a datatype
// once where it can), one between nodes by its network module, which packs and
// unpacks datatypes itself. Each has lines of its own.
enum class Locality { OnNode, AcrossNodes };

// The lines of one locality.
struct Lines {
    // Sending: packed into a buffer in pipelined pieces of chunk_bytes (the pack
    // plus the transfer of contiguous bytes); a datatype over the runs in one
    // message; a datatype cut into messages of at most split_runs runs (on a node
    // only: across nodes nothing is copied once, and send_split is not used).
    Line send_packed, send_datatype, send_split;
    // Receiving: into a buffer, then unpacked; straight into a datatype.
    Line recv_packed, recv_datatype;
};

struct CostModel {
    std::string family;  // "MPICH", "Open MPI" or "MPI"
    std::string source;  // "built-in" or the file it was read from
    Lines on_node, across_nodes;
    const Lines &at(Locality where) const { return where == Locality::AcrossNodes ? across_nodes : on_node; }
    // MPICH copies a message once (CMA) only when the sender's datatype has at
    // most IOV_MAX runs and the message at least its single-copy threshold:
    // send_split prices pieces that meet both. 0: no such path (send_split unused).
    std::int64_t split_runs = 0, split_min_bytes = 0;
    std::int64_t chunk_bytes = std::int64_t{1} << 20;
};

// The model of the MPI library this process runs on: a calibration file when one
// matches the library (see model_path(); each path is read once), else the
// built-in constants of its family. Local.
const CostModel &cost_model();
// The built-in constants for a library version string (MPI_Get_library_version).
CostModel builtin_model(const std::string &library_version);
// Where the calibration file is looked for: $DM_EXCHANGE_MODEL, else
// $XDG_CACHE_HOME/datamotion/exchange-model.txt, else ~/.cache/datamotion/exchange-model.txt.
std::string model_path();
// The text of a model file for `library_version` (the first line names the
// library; a file for another library is ignored), and its parser: false, with
// `model` untouched, when the text is not a complete model for that library.
std::string model_text(const CostModel &model, const std::string &library_version);
bool parse_model(const std::string &text, const std::string &library_version, CostModel &model);
// This process's MPI_Get_library_version, first line.
std::string library_version();

// Pricing, as a plan's auto executor prices each side of each message (and
// whatever else asks the model: redistribution's method choice, calibration).
// The lines a model file names, in its order: the five on a node (send_packed,
// send_datatype, send_split, recv_packed, recv_datatype), then the four used
// across nodes, prefixed (across_send_packed, ...; no across_send_split). A file
// without the across lines keeps the built-in ones.
constexpr int kLines = 9, kOnNodeLines = 5;
extern const char *const kLineNames[kLines];
constexpr const char *kAcrossPrefix = "across_";
// The line of that name, or null.
const Line *line_named(const CostModel &model, const std::string &name);
Line *line_named(CostModel &model, const std::string &name);

// What a line (of either locality) is evaluated at for one side of a message of
// `bytes` bytes in `runs` runs: packed sends leave in pieces of about chunk_bytes, a
// cut datatype in pieces of at most split_runs runs, every other way as one message.
struct Features {
    double messages = 0, bytes = 0, runs = 0;
};
Features features(const CostModel &model, const std::string &line, std::int64_t bytes, std::int64_t runs);

// One side of one message priced by its two ways, with the lines of its locality.
// Sending, the datatype way is priced by send_split where MPICH copies it once (on a
// node, `single_copy`: it has at most split_runs runs, or it is cut into such pieces
// because that is cheaper than whole, `cut`), else by send_datatype. Auto takes the
// datatype when it is cheaper.
struct SidePrice {
    double packed = 0, datatype = 0;  // microseconds
    bool single_copy = false;         // sending: the message qualifies for MPICH's single copy
    bool split = false;               // sending: the datatype way is priced by send_split
    bool cut = false;                 // sending: ... and goes in pieces of <= split_runs runs
    bool datatype_wins() const { return datatype < packed; }
};
SidePrice price_send(const CostModel &model, std::int64_t bytes, std::int64_t runs, Locality where);
SidePrice price_recv(const CostModel &model, std::int64_t bytes, std::int64_t runs, Locality where);

// A whole exchange as one rank sees it, priced before it is planned: the sum over
// its sides of messages (a contiguous side, one run, goes direct and is priced by
// its cheaper way whatever `way` says). MPI_Alltoallw sends and receives datatypes
// and adds, per rank of the communicator, the collective's cost of visiting it.
enum class PricedWay { Cheapest, Packed, Datatype };
struct MessageSize {
    std::int64_t bytes = 0, runs = 0;
    Locality where = Locality::OnNode;
};
double price_sides(const CostModel &model, const MessageSize *sides, std::size_t count, bool sending, PricedWay way);
double alltoallw_overhead_us(const CostModel &model, int ranks);

}  // namespace dm::exchange
