#include "exchange/cost.hpp"

#include "core/text.hpp"

#include <mpi.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <string_view>
#include <system_error>
#include <vector>

namespace dm::exchange {
namespace {

// The built-in constants, fitted to the forced-executor rows of
// benchmarks/redist_vs_alltoall.py and redist_vs_scalapack.sh (docs/redist-benchmarks.md)
// on a 2-core machine where memory bandwidth is the limit; a model file
// (model_path()) replaces them on another machine.
CostModel mpich() {
    CostModel m;
    m.family = "MPICH";
    Lines &node = m.on_node;
    // Packing costs a pass over the bytes and a memcpy call per run; the packed
    // bytes then go in one copy (CMA) per piece.
    node.send_packed = {3.0, 0.00045, 0.004};
    // A datatype of more than IOV_MAX runs goes through 8 KiB shared-memory cells,
    // copied twice, with the sender and receiver taking turns.
    node.send_datatype = {5.0, 0.0012, 0.004};
    // Pieces of <= IOV_MAX runs go in one copy, but process_vm_readv pays per run
    // (about 0.2 us), so packing wins below runs of about 800 bytes.
    node.send_split = {5.0, 0.0002, 0.2};
    // Unpacking is a second pass; the MPI scatters into a datatype while it copies,
    // paying per run (less than the sender): a datatype wins for runs above about 400 bytes.
    node.recv_packed = {0.5, 0.00025, 0.004};
    node.recv_datatype = {1.0, 0.00005, 0.1};
    m.split_runs = 1024;      // IOV_MAX
    m.split_min_bytes = 8192;  // MPIR_CVAR_CH4_IPC_CMA_P2P_THRESHOLD of the PyPI wheel
    // Between nodes MPICH's network module (UCX) packs a datatype into a buffer of its
    // own before it sends and receives one into a buffer that it unpacks at completion
    // (MPIR_CVAR_UCX_DT_RECV is off): a datatype saves no pass on either side and its
    // packing is not pipelined with the transfer. Fitted by datamotion calibrate on 2
    // ranks as 2 emulated nodes (MPICH cliques) over UCX shared memory, 2-core machine;
    // packed / packed, which these lines choose, was the best or within 1.2x of it for
    // 31 of the 34 messages there, and for 34 of 34 over TCP (UCX_TLS=tcp,self).
    Lines &across = m.across_nodes;
    across.send_packed = {2.3, 0.00035, 0.0016};
    across.send_datatype = {2.5, 0.00044, 0.007};
    across.send_split = node.send_split;  // not used: nothing is copied once across nodes
    across.recv_packed = {0.0, 0.0, 0.0};
    across.recv_datatype = {0.04, 0.00057, 0.0004};
    return m;
}

// Open MPI's vader transport moves a datatype through cache-sized fragments,
// packed by the sender and unpacked by the receiver as they go. That beats
// packing the whole message first only while both ranks take their turns at
// once: on the 2-core machine, 2 ranks, pdgemr2d of 4000² through the drop-in, the
// datatype path took 20-24 ms in 2 of 5 runs and 48-58 ms in 3, packing 18-28 ms
// in all 5 (benchmarks/redist_vs_scalapack.sh, DM_EXCHANGE=auto before this
// model and DM_EXCHANGE=pack, runs alternated). The datatype lines carry the
// median: twice packing's cost per byte, so packing is chosen.
CostModel open_mpi() {
    CostModel m;
    m.family = "Open MPI";
    Lines &node = m.on_node;
    node.send_packed = {1.0, 0.0004, 0.004};
    node.send_datatype = {3.0, 0.0008, 0.002};
    node.send_split = {3.0, 0.0008, 0.002};  // unused: split_runs 0
    node.recv_packed = {0.5, 0.00025, 0.004};
    node.recv_datatype = {2.0, 0.0005, 0.002};
    // Its network transports convert a datatype in fragments as it goes, as vader
    // does: no measurement says that the ways compare otherwise between nodes.
    m.across_nodes = node;
    return m;
}

Line *line_of(CostModel &m, const std::string &key) {
    const bool across = key.compare(0, std::char_traits<char>::length(kAcrossPrefix), kAcrossPrefix) == 0;
    Lines &l = across ? m.across_nodes : m.on_node;
    const std::string name = across ? key.substr(std::char_traits<char>::length(kAcrossPrefix)) : key;
    if (name == "send_packed") return &l.send_packed;
    if (name == "send_datatype") return &l.send_datatype;
    if (name == "send_split" && !across) return &l.send_split;
    if (name == "recv_packed") return &l.recv_packed;
    if (name == "recv_datatype") return &l.recv_datatype;
    return nullptr;
}

// Model files are read without iostreams or locales (see core/text.hpp): the
// whitespace-separated fields of a line, each number one whole field.
std::vector<std::string_view> fields_of(std::string_view line) {
    constexpr std::string_view space = " \t\r\f\v";
    std::vector<std::string_view> fields;
    for (std::size_t at = line.find_first_not_of(space); at != std::string_view::npos;) {
        const std::size_t end = std::min(line.find_first_of(space, at), line.size());
        fields.push_back(line.substr(at, end - at));
        at = line.find_first_not_of(space, end);
    }
    return fields;
}

// A leading '+' is accepted, as an istream reads a number; from_chars takes none.
std::string_view unsigned_part(std::string_view field) {
    if (field.size() > 1 && field[0] == '+' && field[1] != '-' && field[1] != '+') field.remove_prefix(1);
    return field;
}

bool read_number(std::string_view field, std::int64_t &value) {
    field = unsigned_part(field);
    const char *end = field.data() + field.size();
    const std::from_chars_result r = std::from_chars(field.data(), end, value);
    return r.ec == std::errc() && r.ptr == end;
}

bool read_number(std::string_view field, double &value) {
    field = unsigned_part(field);
#if defined(__cpp_lib_to_chars)
    const char *end = field.data() + field.size();
    const std::from_chars_result r = std::from_chars(field.data(), end, value);
    return r.ec == std::errc() && r.ptr == end && std::isfinite(value);
#else
    // A C++ library without from_chars for doubles (libc++ before 20): strtod,
    // which reads '.' as the decimal point unless the program set LC_NUMERIC.
    const std::string text(field);
    char *end = nullptr;
    value = std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size() && std::isfinite(value);
#endif
}

// The whole file at `path`; false if it cannot be opened or read.
bool read_file(const std::string &path, std::string &text) {
    std::FILE *file = std::fopen(path.c_str(), "rb");
    if (!file) return false;
    char buf[4096];
    std::size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, file)) > 0) text.append(buf, n);
    const bool ok = !std::ferror(file);
    std::fclose(file);
    return ok;
}

}  // namespace

std::string library_version() {
    char text[MPI_MAX_LIBRARY_VERSION_STRING];
    int length = 0;
    MPI_Get_library_version(text, &length);
    std::string version(text, static_cast<std::size_t>(length));
    const std::size_t end = version.find_first_of("\r\n");
    if (end != std::string::npos) version.resize(end);
    return version;
}

CostModel builtin_model(const std::string &version) {
    CostModel m;
    if (version.find("Open MPI") != std::string::npos) {
        m = open_mpi();
    } else if (version.find("MPICH") != std::string::npos) {
        m = mpich();
    } else {  // no known single-copy rule: priced like Open MPI
        m = open_mpi();
        m.family = "MPI";
    }
    m.source = "built-in";
    return m;
}

std::string model_path() {
    if (const char *path = std::getenv("DM_EXCHANGE_MODEL"); path && *path) return path;
    if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
        return std::string(cache) + "/datamotion/exchange-model.txt";
    if (const char *home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/datamotion/exchange-model.txt";
    return "";
}

std::string model_text(const CostModel &m, const std::string &version) {
    std::string s = "library " + version + "\n";
    CostModel copy = m;
    for (const char *key : kLineNames) {
        const Line *l = line_of(copy, key);
        s += key;
        for (double x : {l->a, l->b, l->c}) s += " " + general_text(x, 6);
        s += "\n";
    }
    s += "split_runs " + std::to_string(m.split_runs) + "\nsplit_min_bytes " + std::to_string(m.split_min_bytes) +
         "\nchunk_bytes " + std::to_string(m.chunk_bytes) + "\n";
    return s;
}

bool parse_model(const std::string &text, const std::string &version, CostModel &model) {
    // Lines end at '\n'; the first names the library the model was measured on.
    std::vector<std::string_view> lines;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        lines.emplace_back(text.data() + at, end - at);
        at = end + 1;
    }
    if (lines.empty() || lines[0] != "library " + version) return false;
    CostModel m = builtin_model(version);
    std::map<std::string, bool> seen;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const std::vector<std::string_view> fields = fields_of(lines[i]);
        if (fields.empty()) continue;
        const std::string key(fields[0]);
        if (Line *l = line_of(m, key)) {
            if (fields.size() < 4 || !read_number(fields[1], l->a) || !read_number(fields[2], l->b) ||
                !read_number(fields[3], l->c) || l->a < 0 || l->b < 0 || l->c < 0)
                return false;
        } else if (key == "split_runs" || key == "split_min_bytes" || key == "chunk_bytes") {
            std::int64_t value = -1;
            if (fields.size() < 2 || !read_number(fields[1], value) || value < 0) return false;
            (key == "split_runs" ? m.split_runs : key == "split_min_bytes" ? m.split_min_bytes : m.chunk_bytes) = value;
        } else {
            return false;
        }
        seen[key] = true;
    }
    for (int i = 0; i < kOnNodeLines; ++i)  // the across lines may be missing (older files): built-in
        if (!seen[kLineNames[i]]) return false;
    if (!seen["split_runs"] || !seen["split_min_bytes"] || !seen["chunk_bytes"] || m.chunk_bytes < 64) return false;
    model = m;
    return true;
}

const CostModel &cost_model() {
    // Read again only when the path changes (tests point DM_EXCHANGE_MODEL at
    // their own files); plans keep a pointer, so every model read stays alive.
    static std::mutex mutex;
    static std::map<std::string, std::unique_ptr<CostModel>> models;
    const std::lock_guard<std::mutex> lock(mutex);
    const std::string path = model_path();
    auto &slot = models[path];
    if (!slot) {
        const std::string version = library_version();
        slot = std::make_unique<CostModel>(builtin_model(version));
        std::string text;
        if (!path.empty() && read_file(path, text)) {
            CostModel read;
            if (parse_model(text, version, read)) {
                read.source = path;
                *slot = read;
            }
        }
    }
    return *slot;
}

const char *const kLineNames[kLines] = {"send_packed",          "send_datatype",        "send_split",
                                         "recv_packed",          "recv_datatype",        "across_send_packed",
                                         "across_send_datatype", "across_recv_packed",   "across_recv_datatype"};

const Line *line_named(const CostModel &model, const std::string &name) { return line_of(const_cast<CostModel &>(model), name); }
Line *line_named(CostModel &model, const std::string &name) { return line_of(model, name); }

namespace {

double pieces_of(const CostModel &m, std::int64_t runs) {
    return static_cast<double>(m.split_runs ? (runs + m.split_runs - 1) / m.split_runs : 0);
}

// MPI_Alltoallw's cost for each rank of the communicator, even one it exchanges nothing with.
constexpr double kAlltoallwPerRankUs = 0.05;

}  // namespace

Features features(const CostModel &m, const std::string &line, std::int64_t bytes, std::int64_t runs) {
    const double b = static_cast<double>(bytes), r = static_cast<double>(runs);
    if (line == "send_packed" || line == std::string(kAcrossPrefix) + "send_packed")
        return {static_cast<double>((bytes + m.chunk_bytes - 1) / m.chunk_bytes), b, r};
    if (line == "send_split") return {pieces_of(m, runs), b, r};
    return {1, b, r};
}

SidePrice price_send(const CostModel &m, std::int64_t bytes, std::int64_t runs, Locality where) {
    const Lines &l = m.at(where);
    auto at = [&](const Line &line, const char *name) {
        const Features f = features(m, name, bytes, runs);
        return line.at(f.messages, f.bytes, f.runs);
    };
    SidePrice p;
    p.packed = at(l.send_packed, "send_packed");
    p.single_copy = where == Locality::OnNode && m.split_runs > 0 &&
                    bytes >= m.split_min_bytes * static_cast<std::int64_t>(pieces_of(m, runs));
    const double cut = at(l.send_split, "send_split"), whole = at(l.send_datatype, "send_datatype");
    // A datatype of at most split_runs runs is already one such piece: the MPI
    // copies it once whatever send_datatype says; longer ones are cut when that is cheaper.
    p.cut = p.single_copy && runs > m.split_runs && cut <= whole;
    p.split = p.single_copy && (runs <= m.split_runs || p.cut);
    p.datatype = p.split ? cut : whole;
    return p;
}

SidePrice price_recv(const CostModel &m, std::int64_t bytes, std::int64_t runs, Locality where) {
    const Lines &l = m.at(where);
    SidePrice p;
    p.packed = l.recv_packed.at(1, static_cast<double>(bytes), static_cast<double>(runs));
    p.datatype = l.recv_datatype.at(1, static_cast<double>(bytes), static_cast<double>(runs));
    return p;
}

double price_sides(const CostModel &m, const MessageSize *sides, std::size_t count, bool sending, PricedWay way) {
    double total = 0;
    for (std::size_t i = 0; i < count; ++i) {
        const MessageSize &side = sides[i];
        const SidePrice p = sending ? price_send(m, side.bytes, side.runs, side.where)
                                    : price_recv(m, side.bytes, side.runs, side.where);
        const double cheapest = std::min(p.packed, p.datatype);
        total += sides[i].runs <= 1 || way == PricedWay::Cheapest ? cheapest
                 : way == PricedWay::Packed                       ? p.packed
                                                                  : p.datatype;
    }
    return total;
}

double alltoallw_overhead_us(const CostModel &, int ranks) { return kAlltoallwPerRankUs * ranks; }

}  // namespace dm::exchange
