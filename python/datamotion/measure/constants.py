"""The constants of measurement, in one place: document schemas, message sizes,
kernel names and the environment variables a results document records."""

RESULTS_SCHEMA = "datamotion.bench/1"
"""The schema of a results document (what ``datamotion bench`` writes)."""

MODEL_SCHEMA = "datamotion.model/1"
"""The schema of a model document (what ``datamotion model fit`` writes)."""

PAIR_KERNELS = ("pingpong", "exchange", "stream", "bidir")
QUICK_SIZES = [0, 8, 64, 512, 1024, 4096, 8192, 16384, 32768, 65536, 262144, 1 << 20]
"""Quick message sizes: no gap wider than a factor 4 above 512 B, so a protocol switch
between 4 KiB and 32 KiB is placed between measured sizes on both sides of it."""
FULL_SIZES = [0] + [1 << k for k in range(0, 25)]
FINE_SIZES = list(range(0, 16001, 64))
QUICK_FINE_SIZES = list(range(0, 16001, 1024))
"""The Paragon paper's Figure 1 sweep, 0 to 16000 bytes: in steps of 64, quick runs of 1024."""

THREAD_LEVELS = ("single", "funneled", "serialized", "multiple")
"""MPI thread levels, lowest first, as mpi4py names them."""

DEFAULT_THREAD_LEVEL = "single"
"""The thread level ``datamotion bench`` initialises MPI at: what a C program that
calls MPI_Init gets, and the level whose timings match OSU's."""

ENVIRONMENT_PREFIXES = ("MPIR_CVAR", "MPI4PY_RC", "OMPI_MCA", "MPICH_", "I_MPI_", "UCX_", "FI_")
"""Environment variables that change how an MPI behaves; a results document records them."""

FIT_MIN_R2 = 0.9
"""Quality threshold of a fitted model: a fit, or a segment of a piecewise fit, on at
least :data:`FIT_R2_MIN_POINTS` distinct sizes (or rank counts) whose r² is below this
is flagged."""

FIT_R2_MIN_POINTS = 3
"""The fewest distinct sizes (or rank counts) on which a low r² flags a fit: through
two points every line has r² = 1."""

FIT_R2_BELOW_NOISE = 0.05
"""A low r² flags a fit only where its residuals are also above this fraction (5 %) of
the times: a nearly flat segment (one cache level, the start-up of small messages) has
r² near 0 however closely its line follows the times, because r² compares the
residuals with the spread of the times, which is itself only noise there."""


CACHE_BREAKPOINTS = 4
"""The most breakpoints of the kernels whose time bends where a cache level runs out
(memcopy, stream, exchange, bidir; :data:`datamotion.measure.fit.CACHE_KERNELS`): a
protocol switch or two and the L1, L2 and last-level capacities."""

FIT_MAX_RELATIVE_RMSE = 0.25
"""Quality threshold of a fitted model: a fit or segment whose residuals, relative to
the measured times, have a root mean square above this (25 %) is flagged."""

FIT_NOISE_FLOOR = 0.02
"""Where each time comes with its measured spread (the 95 % interval of a row's median),
a point weighs in a fit by the inverse square of that spread, never of less than this
fraction (2 %) of the time: a median known to 0.1 % should not outweigh every other
point because the timer happened to repeat itself."""

FIT_POINT_TOLERANCE = 0.10
"""Where each time comes with its measured spread, a time is off its fit when the fit
misses it by more than this fraction (10 %) of the time *and* by more than
:data:`FIT_SPREAD_MULTIPLE` times its spread: a straight line is allowed to cut the
corner of a smooth cache transition."""

FIT_SPREAD_MULTIPLE = 2.0
"""A time is off its fit only when the fit misses it by more than this many half-widths
of the 95 % interval of its median (and by :data:`FIT_POINT_TOLERANCE`): a miss within
the measurement's own spread is noise, not a wrong model."""

FIT_MAX_DISTURBED = 1 / 3
"""A fit whose times are disturbed (above the time of a larger size beyond both their
95 % intervals) at more than this fraction (a third) of its sizes is flagged: those times
do not grow with the size, so the noise cannot be told from the model there. Noise in
a flat range (the start-up of small messages) disturbs up to about half of that range,
a quarter of the sizes or so; times unrelated to the size are disturbed almost
everywhere."""

FIT_MISFIT_RUN = 3
"""A fit whose times are off it at this many consecutive sizes, all on the same side, is
flagged: noise scatters to both sides, a wrong shape (a straight line through a cache
bend) misses a whole range of sizes one way. Fewer are listed as disturbed sizes."""

SUITE_NAMES = ("pt2pt", "collectives", "local", "patterns", "cm5", "paragon", "pshift", "redist", "cvl", "gauss",
               "programs")
"""The suites ``datamotion bench`` runs, in the order ``all`` runs them (the keys of
``datamotion.measure.suites.SUITES``, named here so the command line can list them
without loading MPI)."""
