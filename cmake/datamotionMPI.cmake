# Which MPI an mpi.h belongs to, read from the header itself (nothing compiled or run).
# datamotion's build records it in the CMake package; a program that finds the package
# reads the MPI it found the same way and compares (datamotionConfig.cmake).

# datamotion_mpi_identity(<out>): after find_package(MPI), sets <out> to the MPI found:
# "MPICH 5.0.2", "Open MPI 4.1.4", "Intel MPI 2021.10.0", "MVAPICH 3.0", or, for another
# MPI, "MPI <standard version> (<path of mpi.h>)"; empty when no mpi.h is found. The
# compiler's own directories come last: FindMPI leaves them out of MPI_C_INCLUDE_DIRS.
function(datamotion_mpi_identity out)
  set(identity "")
  foreach(dir IN LISTS MPI_C_INCLUDE_DIRS MPI_C_HEADER_DIR CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES)
    if(NOT EXISTS "${dir}/mpi.h")
      continue()
    endif()
    file(STRINGS "${dir}/mpi.h" defines REGEX "^#define[ \t]+[A-Z0-9_]+_VERSION[ \t]")
    set(found "")
    foreach(name I_MPI_VERSION MVAPICH_VERSION MVAPICH2_VERSION MPICH_VERSION
                 OMPI_MAJOR_VERSION OMPI_MINOR_VERSION OMPI_RELEASE_VERSION MPI_VERSION)
      if(defines MATCHES "#define[ \t]+${name}[ \t]+\"?([^\";]*)\"?")
        string(STRIP "${CMAKE_MATCH_1}" value)
        set(v_${name} "${value}")
        list(APPEND found ${name})
      endif()
    endforeach()
    if(v_I_MPI_VERSION)
      set(identity "Intel MPI ${v_I_MPI_VERSION}")
    elseif(v_MVAPICH_VERSION OR v_MVAPICH2_VERSION)
      set(identity "MVAPICH ${v_MVAPICH_VERSION}${v_MVAPICH2_VERSION}")
    elseif(v_MPICH_VERSION)
      set(identity "MPICH ${v_MPICH_VERSION}")
    elseif(DEFINED v_OMPI_MAJOR_VERSION)
      set(identity "Open MPI ${v_OMPI_MAJOR_VERSION}.${v_OMPI_MINOR_VERSION}.${v_OMPI_RELEASE_VERSION}")
    else()
      set(identity "MPI ${v_MPI_VERSION} (${dir}/mpi.h)")
    endif()
    break()
  endforeach()
  set(${out} "${identity}" PARENT_SCOPE)
endfunction()

# datamotion_mpi_same(<out> <identity> <identity>): TRUE when two identities name one
# library family at one major version (their libraries are interchangeable at run
# time: same ABI, no newer functions missing), else FALSE.
function(datamotion_mpi_same out a b)
  string(REGEX MATCH "^[^0-9]*[0-9]+" a_major "${a}")
  string(REGEX MATCH "^[^0-9]*[0-9]+" b_major "${b}")
  if(a STREQUAL b OR (a_major AND a_major STREQUAL b_major AND NOT a MATCHES "\\(.*mpi\\.h\\)$"))
    set(${out} TRUE PARENT_SCOPE)
  else()
    set(${out} FALSE PARENT_SCOPE)
  endif()
endfunction()

# datamotion_mpi_family(<out> <identity>): the library family of an identity from
# datamotion_mpi_identity ("MPICH", "Open MPI", "Intel MPI", "MVAPICH"), empty for
# another MPI. MPICH's derivatives keep their own names: each ships its own launcher.
function(datamotion_mpi_family out identity)
  set(family "")
  foreach(name "Intel MPI" "MVAPICH" "MPICH" "Open MPI")
    if(identity MATCHES "^${name} ")
      set(family "${name}")
      break()
    endif()
  endforeach()
  set(${out} "${family}" PARENT_SCOPE)
endfunction()

# datamotion_launcher_family(<out> <mpiexec>): the family of the MPI whose launcher
# <mpiexec> is, asked with --version ("Open MPI", "Intel MPI", "MVAPICH" or "MPICH",
# whose Hydra the MPICH wheel and MPICH itself ship); empty when it cannot tell.
function(datamotion_launcher_family out mpiexec)
  set(family "")
  if(mpiexec AND EXISTS "${mpiexec}")
    execute_process(COMMAND "${mpiexec}" --version OUTPUT_VARIABLE text ERROR_VARIABLE text TIMEOUT 30)
    if(text MATCHES "Open MPI|OpenRTE|open-mpi\\.org")
      set(family "Open MPI")
    elseif(text MATCHES "Intel\\(R\\) MPI")
      set(family "Intel MPI")
    elseif(text MATCHES "MVAPICH")
      set(family "MVAPICH")
    elseif(text MATCHES "HYDRA|mpich")
      set(family "MPICH")
    endif()
  endif()
  set(${out} "${family}" PARENT_SCOPE)
endfunction()

# datamotion_launcher_beside(<out> <compiler>): the launcher beside the compiler wrapper
# <compiler> (mpicc.openmpi: mpiexec.openmpi, else an mpiexec in the same directory),
# which belongs to the wrapper's MPI, unlike the first mpiexec on PATH; empty when
# there is none.
function(datamotion_launcher_beside out compiler)
  set(found "")
  if(compiler)
    get_filename_component(bindir "${compiler}" DIRECTORY)
    get_filename_component(name "${compiler}" NAME)
    string(REPLACE "mpicc" "mpiexec" launcher "${name}")
    find_program(beside NAMES ${launcher} mpiexec HINTS "${bindir}" NO_DEFAULT_PATH NO_CACHE)
    if(beside)
      set(found "${beside}")
    endif()
  endif()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()
