// One MPI per process, checked when the shared library loads.
//
// A program compiled with another MPI than datamotion's (Open MPI's mpicc and the
// pkg-config flags of an MPICH-built datamotion, say) links fine, with at most a linker
// warning, and loads both libmpi: every MPI call, the program's and datamotion's, then
// goes to whichever comes first, and handles of one MPI reach functions of the other
// (a crash in the first call that passes one). Before main runs, this constructor of
// libdatamotion and libcvl asks MPI_Get_library_version (callable before MPI_Init, with
// the same signature in every MPI) of each MPI library the process has loaded, and of
// the one datamotion's own calls reach; when there are two, or that one is of another
// family than the mpi.h datamotion was compiled with, it writes one line naming both to
// stderr and ends the process with status 1.
//
// Only the shared libraries hold it: a program linking the static layer libraries finds
// its MPI through the CMake package, which stops at configure on another MPI, and the
// Python extension, linked statically into the interpreter's process, has the package's
// own check (datamotion/_mpi.py), which raises ImportError instead of ending Python.
#include <mpi.h>

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cctype>
#include <cstring>
#include <string>
#include <vector>

#ifndef DATAMOTION_MPI
#define DATAMOTION_MPI "another MPI"
#endif
#ifndef DATAMOTION_MPI_C_COMPILER
#define DATAMOTION_MPI_C_COMPILER "its mpicc"
#endif

namespace dm::detail {
namespace {

// The family whose ABI (the meaning of handles and constants) datamotion was compiled
// for: MPICH's derivatives share MPICH's. Empty for the standard ABI (mpi_abi.h), which
// any family may implement, and for an MPI not known here: nothing is refused then.
const char *compiled_family() {
#if defined(MPI_ABI_VERSION)
    return "";
#elif defined(OMPI_MAJOR_VERSION)
    return "Open MPI";
#elif defined(MPICH_VERSION) || defined(I_MPI_VERSION) || defined(MVAPICH2_VERSION) || defined(MVAPICH_VERSION)
    return "MPICH";
#else
    return "";
#endif
}

// The ABI family of a library version string, and its name in it ("Open MPI", "MPICH",
// "Intel(R) MPI", "MVAPICH"), or empty ones for an MPI not known here.
struct Family {
    const char *abi;
    const char *name;
    const char *label;  // as datamotion names it
};

Family family_of(const std::string &version) {
    static const Family known[] = {
        {"Open MPI", "Open MPI", "Open MPI"},
        {"MPICH", "Intel(R) MPI", "Intel MPI"},
        {"MPICH", "MVAPICH", "MVAPICH"},
        {"MPICH", "MPICH", "MPICH"},
    };
    for (const Family &f : known)
        if (version.find(f.name) != std::string::npos) return f;
    return {"", "", ""};
}

// A short name for a library version string: "Open MPI 4.1.4" for "Open MPI v4.1.4,
// package: ...", "MPICH 5.0.2" for "MPICH Version: 5.0.2\n...", else its first line.
std::string short_name(const std::string &version) {
    const std::string first = version.substr(0, version.find('\n'));
    const Family f = family_of(first);
    if (*f.name) {
        size_t i = first.find(f.name) + std::strlen(f.name);
        while (i < first.size() && std::isalnum(static_cast<unsigned char>(first[i]))) ++i;  // MVAPICH2
        while (i < first.size() && !std::isdigit(static_cast<unsigned char>(first[i]))) ++i;
        size_t end = i;
        while (end < first.size() && (std::isdigit(static_cast<unsigned char>(first[end])) || first[end] == '.')) ++end;
        if (end > i) return std::string(f.label) + " " + first.substr(i, end - i);
        return f.label;
    }
    size_t begin = first.find_first_not_of(" \t");
    if (begin == std::string::npos) return "an unnamed MPI";
    return first.substr(begin, 60);
}

using GetLibraryVersion = int (*)(char *, int *);

// What a library's MPI_Get_library_version says; the buffer holds any MPI's longest
// (MPICH's MPI_MAX_LIBRARY_VERSION_STRING is 8192, Open MPI's 256).
std::string library_version(GetLibraryVersion get) {
    static char text[16384];
    int length = 0;
    text[0] = '\0';
    if (get(text, &length) != 0 || length < 0) return "";
    text[sizeof text - 1] = '\0';
    return std::string(text, strnlen(text, sizeof text));
}

std::string base_name(const std::string &path) {
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Whether a loaded object's file is an MPI library (libmpi.so.12, libmpi.so.40,
// libmpi_abi.so.1, MPICH's older libmpich.so.N), not one of its companions
// (libmpifort, libmpi_cxx, libmpi_mpifh, libopen-pal).
bool names_mpi_library(const std::string &path) {
    const std::string name = base_name(path);
    for (const char *prefix : {"libmpi.so", "libmpi_abi.so", "libmpich.so"})
        if (name.compare(0, std::strlen(prefix), prefix) == 0) return true;
    return false;
}

int collect_mpi_library(dl_phdr_info *info, size_t, void *data) {
    if (info->dlpi_name && *info->dlpi_name && names_mpi_library(info->dlpi_name))
        static_cast<std::vector<std::string> *>(data)->push_back(info->dlpi_name);
    return 0;
}

struct Library {
    std::string file;     // the object's path, as the loader has it
    std::string version;  // its MPI_Get_library_version
};

// The MPI libraries loaded in this process that define MPI_Get_library_version
// themselves, with what each says.
std::vector<Library> loaded_mpi_libraries() {
    std::vector<std::string> files;
    dl_iterate_phdr(collect_mpi_library, &files);
    std::vector<Library> libraries;
    for (const std::string &file : files) {
        void *handle = dlopen(file.c_str(), RTLD_LAZY | RTLD_NOLOAD);
        if (!handle) continue;
        void *symbol = dlsym(handle, "MPI_Get_library_version");
        Dl_info where{};
        // dlsym also searches the library's dependencies: count only a definition of its own.
        if (symbol && dladdr(symbol, &where) && where.dli_fname && file == where.dli_fname)
            libraries.push_back({file, library_version(reinterpret_cast<GetLibraryVersion>(symbol))});
        dlclose(handle);
    }
    return libraries;
}

[[noreturn]] void refuse(const std::string &theirs, const std::string &ours_file) {
    std::string line = "datamotion: this program loads " + theirs + " but datamotion was built with " DATAMOTION_MPI;
    if (!ours_file.empty()) line += " (" + base_name(ours_file) + ")";
    line += "; a process holds one MPI: compile and link the program with datamotion's MPI, " DATAMOTION_MPI_C_COMPILER
            " (pkg-config --variable=mpicc datamotion)\n";
    ssize_t written = ::write(STDERR_FILENO, line.data(), line.size());
    (void)written;
    ::_exit(1);
}

__attribute__((constructor)) void refuse_a_second_mpi() {
    // The library datamotion's own MPI calls reach.
    Dl_info where{};
    const GetLibraryVersion reached = &MPI_Get_library_version;
    const std::string reached_file =
        dladdr(reinterpret_cast<void *>(reached), &where) && where.dli_fname ? where.dli_fname : "";
    const std::string reached_version = library_version(reached);
    const std::string ours_abi = compiled_family();

    const std::vector<Library> libraries = loaded_mpi_libraries();
    if (libraries.size() >= 2) {
        // Two MPIs: datamotion's is the one of the family it was compiled for where one
        // alone is; otherwise the one its calls do not reach (the program's comes first).
        size_t ours = libraries.size();
        int matches = 0;
        for (size_t i = 0; i < libraries.size(); ++i)
            if (!ours_abi.empty() && ours_abi == family_of(libraries[i].version).abi) {
                ours = i;
                ++matches;
            }
        if (matches != 1) {
            ours = 0;
            for (size_t i = 0; i < libraries.size(); ++i)
                if (libraries[i].file != reached_file) {
                    ours = i;
                    break;
                }
        }
        const size_t theirs = ours == 0 ? 1 : 0;
        refuse(short_name(libraries[theirs].version) + " (" + base_name(libraries[theirs].file) + ")",
               libraries[ours].file);
    }
    // One MPI, but of another family than datamotion's mpi.h (an MPI linked statically
    // into the program, or a library of another MPI under datamotion's libmpi's name).
    const std::string reached_abi = family_of(reached_version).abi;
    if (!ours_abi.empty() && !reached_abi.empty() && ours_abi != reached_abi)
        refuse(short_name(reached_version) + (reached_file.empty() ? "" : " (" + base_name(reached_file) + ")"),
               "");
}

}  // namespace
}  // namespace dm::detail
