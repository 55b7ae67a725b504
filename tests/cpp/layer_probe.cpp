// Compiled (syntax only) by ctest against one layer's view of the sources, to show that
// the build enforces the layer rule of docs/architecture.md: see tests/cpp/CMakeLists.txt.
#if defined(PROBE_UPWARD)
#include "layout/grid.hpp"   // core's view: a higher layer is not there
#elif defined(PROBE_SIDEWAYS)
#include "vector/state.hpp"  // shift's view: another capability is not there
#else
#include "shift/pshift.hpp"  // shift's view: its own headers and the layers below are
#include "exchange/plan.hpp"
#include <datamotion/shift.h>
#endif
