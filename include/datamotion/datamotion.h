/*
 * datamotion/datamotion.h — the whole public C interface of datamotion.
 *
 * Layers (each header includes the one below): core.h (status, element types,
 * timers, provenance), layout.h (process grids, axis distributions), array.h
 * (distributed N-d arrays); on them the capabilities: shift.h (PSHIFT) and redist.h
 * (redistribution).
 */
#ifndef DATAMOTION_H
#define DATAMOTION_H

#include <datamotion/array.h>
#include <datamotion/redist.h>
#include <datamotion/shift.h>
#include <datamotion/vector.h>

#endif /* DATAMOTION_H */
