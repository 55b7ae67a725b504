# Installs the build tree into PREFIX, then builds SOURCE (a C program that includes only
# cvl.h) with the MPI C compiler against the installed shared and static libcvl, as a
# user would, and runs both with MPIEXEC MPIEXEC_ARGS. Used by the cvl_installed test:
#   cmake -DBUILD_DIR=... -DPREFIX=... -DSOURCE=... -DMPI_C_COMPILER=... -DMPIEXEC=...
#         -DMPIEXEC_ARGS="-n;3" -P run_installed.cmake
foreach(var BUILD_DIR PREFIX SOURCE MPI_C_COMPILER MPIEXEC)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_installed.cmake: set -D${var}=...")
  endif()
endforeach()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message(STATUS "${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}")
  endif()
endfunction()

file(REMOVE_RECURSE "${PREFIX}")
run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${PREFIX}")
set(libdir "${PREFIX}/lib")
if(NOT EXISTS "${libdir}/libcvl.a" AND EXISTS "${PREFIX}/lib64/libcvl.a")
  set(libdir "${PREFIX}/lib64")
endif()
foreach(file "${PREFIX}/include/cvl.h" "${libdir}/libcvl.a")
  if(NOT EXISTS "${file}")
    message(FATAL_ERROR "not installed: ${file}")
  endif()
endforeach()
get_filename_component(name "${SOURCE}" NAME_WE)
set(shared "${PREFIX}/${name}_shared")
set(static "${PREFIX}/${name}_static")
run(${MPI_C_COMPILER} -std=c99 "${SOURCE}" -I "${PREFIX}/include" -L "${libdir}" -Wl,-rpath,${libdir} -lcvl -o "${shared}")
run(${MPI_C_COMPILER} -std=c99 "${SOURCE}" -I "${PREFIX}/include" "${libdir}/libcvl.a" -lstdc++ -lm -o "${static}")
run(${MPIEXEC} ${MPIEXEC_ARGS} "${shared}")
run(${MPIEXEC} ${MPIEXEC_ARGS} "${static}")
