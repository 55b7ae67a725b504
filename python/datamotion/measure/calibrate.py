"""Measuring the exchange cost model of this MPI (``datamotion calibrate``).

The exchange engine prices each side of each message by each way it can travel
(``src/exchange/cost.hpp``): ``t = a * messages + b * bytes + c * runs`` for the
sender's packed, datatype and split-datatype ways and the receiver's packed and
datatype ways, with lines of their own for messages within a node and for
messages between nodes (``across_*``: there MPI's network module packs a
datatype itself and nothing is copied once, so there is no split way). This
module times plans of the engine itself whose one message per rank has a chosen
number of runs of a chosen length, with every combination of a sender's way and
a receiver's way, between two ranks of one node and between two ranks of
different nodes where the job has them, and fits each locality's lines (every
coefficient >= 0) so that their sums reproduce the measured times. The names of the
lines and the line that prices each way, what each way is priced at, which ways
``auto`` takes and the model file's text are the engine's own
(``_core.ExchangeModel``): this module measures and fits, it does not price.

The plan: a float64 array of global shape [R, W * 2] on a 1 x 2 grid of the first
two ranks, with ghost width 1 on axis 1, shifted circularly by W along axis 1.
Each rank's whole block goes to the other rank: one message each way of R runs
of 8W bytes at a stride (the ghosts keep the runs apart), no local copy.

Ways are forced per plan: the executors ``pack`` (packed / packed), ``hybrid``
(packed / datatype) and ``datatype`` (datatype / datatype), and, for a sender's
datatype on MPICH, a model file under which the plan cuts the datatype into
pieces of at most ``split_runs`` runs or does not; the one pair no executor
names (datatype / packed) is ``auto`` under a model file that prices the other
ways out. Only the lines are measured: ``split_runs``, ``split_min_bytes`` and
``chunk_bytes`` stay the built-in ones.
"""

from __future__ import annotations

import functools
import math
import os
import shutil
import tempfile
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .lsq import nonnegative_lstsq as nnls  # the name this module has always exported

# The engine's names, asked for on first use (the extension loads MPI): LINES and
# ACROSS_LINES, the lines that price messages within a node and between nodes;
# ACROSS, the prefix of the latter; SENDS and RECVS, the ways of a sender (packed,
# split: a datatype copied once, whole: a datatype in one message) and a receiver.
_FROM_ENGINE = {
    "LINES": lambda: lines_of(False),
    "ACROSS_LINES": lambda: lines_of(True),
    "ACROSS": lambda: _engine_model().across_prefix,
    "SENDS": lambda: tuple(_way_lines(False)["send"]),
    "RECVS": lambda: tuple(_way_lines(False)["recv"]),
}


def __getattr__(name: str):
    if name in _FROM_ENGINE:
        return _FROM_ENGINE[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@functools.lru_cache(maxsize=None)
def lines_of(across: bool) -> Tuple[str, ...]:
    """The names of the lines that price messages within a node, or between nodes (the engine's)."""
    return tuple(_engine_model().line_names(across))


@functools.lru_cache(maxsize=None)
def _way_lines(across: bool) -> Dict[str, Dict[str, str]]:
    """{'send': {way: line}, 'recv': {way: line}}: the line that prices each way (the engine's)."""
    return _engine_model().way_lines(across)


def locality(across: bool) -> str:
    return "between nodes" if across else "within a node"

# Run lengths (bytes) x runs per message, at most MAX_BYTES a message.
FULL_RUN_BYTES = (8, 32, 128, 512, 2048, 8192, 32768, 65536)
FULL_RUNS = (16, 64, 256, 1024, 4096, 16384)
QUICK_RUN_BYTES = (8, 128, 2048, 32768)
QUICK_RUNS = (16, 256, 4096)
MAX_BYTES = 4 << 20
QUICK_MAX_BYTES = 1 << 20
# Repetitions per timing (medians), and the least time one repetition measures.
FULL_REPS, QUICK_REPS = 11, 7
FULL_SAMPLE_S, QUICK_SAMPLE_S = 0.02, 0.01
TARGET_RATIO = 1.2  # a choice within this factor of the best measured counts as good

_PRICED_OUT = (1e6, 1.0, 1e3)  # a line no way can win against


# ---------------------------------------------------------------------------
# Models. Their files, the features each way is priced at and the ways the engine
# chooses are the engine's own (src/exchange/cost.hpp, through _core.ExchangeModel):
# this module only fits the lines.

def _engine_model():
    from .. import _core

    return _core.ExchangeModel


class Model:
    """A cost model: the library line, the lines (a, b, c) of both localities and the
    integer settings."""

    def __init__(self, library: str, lines: Dict[str, Tuple[float, float, float]], split_runs: int,
                 split_min_bytes: int, chunk_bytes: int):
        self.library = library
        missing = set(lines_of(False) + lines_of(True)) - set(lines)
        if missing:  # the built-in ones of the library's family, as a model file without them reads
            builtin = _engine_model().of(library, {}, split_runs, split_min_bytes, chunk_bytes).lines()
            lines = {**{k: builtin[k] for k in missing}, **lines}
        self.lines = {k: tuple(float(x) for x in v) for k, v in lines.items()}
        self.split_runs, self.split_min_bytes, self.chunk_bytes = split_runs, split_min_bytes, chunk_bytes
        self._engine = None

    @property
    def engine(self):
        """The engine's model of these lines and settings (``_core.ExchangeModel``)."""
        if self._engine is None:
            self._engine = _engine_model().of(self.library, self.lines, self.split_runs, self.split_min_bytes,
                                              self.chunk_bytes)
        return self._engine

    @classmethod
    def parse(cls, text: str) -> "Model":
        """The model of a model file's text (as ``_core.exchange_model()`` returns it),
        read by the engine's parser: ValueError if the engine would not use it."""
        try:
            engine = _engine_model().parse(text)
        except Exception as e:
            raise ValueError(str(e)) from None
        model = cls(engine.library, engine.lines(), engine.split_runs, engine.split_min_bytes, engine.chunk_bytes)
        model._engine = engine
        return model

    def text(self) -> str:
        """The text of a model file, as the engine writes it."""
        return self.engine.text()

    def with_lines(self, **lines) -> "Model":
        merged = dict(self.lines)
        merged.update(lines)
        return Model(self.library, merged, self.split_runs, self.split_min_bytes, self.chunk_bytes)


# ---------------------------------------------------------------------------
# Which ways a message of `runs` runs and `nbytes` bytes can take, and their features.

def _one_piece(model: Model, runs: int, nbytes: int, across: bool = False) -> bool:
    """A sender's datatype that MPICH copies once as it is (no cut): priced by send_split alone."""
    priced = model.engine.prices(nbytes, runs, across)
    return priced["send_split"] and not priced["send_cut"]


def send_ways(model: Model, runs: int, nbytes: int, across: bool = False) -> List[str]:
    """The sender's ways that differ for this message: packed, and a datatype that is
    copied once (split: in pieces of <= split_runs runs, or one such piece; within a
    node only) and/or that is not (whole)."""
    if not model.engine.prices(nbytes, runs, across)["single_copy"]:
        return ["packed", "whole"]
    return ["packed", "split"] + ([] if _one_piece(model, runs, nbytes, across) else ["whole"])


def features(model: Model, line: str, runs: int, nbytes: int) -> Tuple[float, float, float]:
    """(messages, bytes, runs) at which the engine evaluates ``line`` for one side of a message."""
    return model.engine.features(line, nbytes, runs)


def _lines_of_ways(send: str, recv: str, across: bool = False) -> Tuple[str, str]:
    """The lines that price the sender's way ``send`` and the receiver's ``recv``."""
    ways = _way_lines(across)
    return ways["send"][send], ways["recv"][recv]


def _line_and_features(model: Model, send: str, recv: str, runs: int, nbytes: int, across: bool = False):
    return tuple((line, features(model, line, runs, nbytes)) for line in _lines_of_ways(send, recv, across))


def predict(model: Model, send: str, recv: str, runs: int, nbytes: int, across: bool = False) -> float:
    """The model's time of one exchange by the sender's way ``send`` and the receiver's ``recv``,
    each side priced by the engine."""
    return sum(model.engine.price_line(line, nbytes, runs) for line in _lines_of_ways(send, recv, across))


def choice(model: Model, runs: int, nbytes: int, across: bool = False) -> Tuple[str, str]:
    """The ways the engine's ``auto`` takes under ``model``, as the engine chooses them."""
    return model.engine.choose(nbytes, runs, across)


# ---------------------------------------------------------------------------
# Fitting.

# The sum of a sender's and a receiver's line is all the totals show: a part common
# to every sender's way could as well be the receiver's. A slight weight on the
# receiver's coefficients gives that part to the sender, so the fit is unique.
_RECEIVER_WEIGHT = 1e-4


def fit(base: Model, measurements: Sequence[Tuple[str, str, int, int, float]], across: bool = False) -> Model:
    """The model (``base``'s settings and other locality's lines; this locality's lines
    fitted, every coefficient >= 0) whose sums best reproduce ``measurements``: (send
    way, receive way, runs, bytes, microseconds) per exchange within a node (or between
    nodes, ``across``), each weighted by 1 / its time (relative errors)."""
    names = lines_of(across)
    index = {line: 3 * i for i, line in enumerate(names)}
    receivers = [k for k, line in enumerate(names) if line in _way_lines(across)["recv"].values()]
    rows = []
    for send, recv, runs, nbytes, us in measurements:
        if not us > 0:
            raise ValueError(f"a measured time must be positive, got {us}")
        row = np.zeros(3 * len(names))
        for line, f in _line_and_features(base, send, recv, runs, nbytes, across):
            row[index[line]:index[line] + 3] += f
        rows.append(row / us)
    if not rows:
        raise ValueError("no measurements to fit")
    target = np.ones(len(rows))
    A = np.array(rows)
    scale = np.linalg.norm(A, axis=0)
    used = scale > 0
    scale[~used] = 1.0
    A = A / scale
    columns = [3 * k + j for k in receivers for j in range(3)]
    penalty = np.zeros((len(columns), A.shape[1]))
    for k, col in enumerate(columns):
        penalty[k, col] = _RECEIVER_WEIGHT * used[col]
    y = nnls(np.vstack([A, penalty]), np.concatenate([target, np.zeros(len(columns))]))
    x = np.where(used, y / scale, 0.0)
    lines = dict(base.lines)
    # A line no measurement reached keeps base's coefficients.
    for line in names:
        if used[index[line]:index[line] + 3].any():
            lines[line] = tuple(x[index[line]:index[line] + 3])
    return Model(base.library, lines, base.split_runs, base.split_min_bytes, base.chunk_bytes)


def regret(model: Model, measurements: Sequence[Tuple[str, str, int, int, float]], across: bool = False) -> float:
    """The sum over messages of log(time of the ways ``model`` chooses / the best time)."""
    total = 0.0
    for row in evaluate(model, measurements, across):
        total += math.log(row["ratio"]) if row["ratio"] is not None else math.log(4.0)
    return total


_STEPS = (0.0, 0.5, 0.8, 1.25, 2.0)


def refine(model: Model, measurements: Sequence[Tuple[str, str, int, int, float]], rounds: int = 4,
           across: bool = False) -> Model:
    """``model`` with single coefficients changed wherever that makes the measured
    choices better (lower regret()). A sender's and a receiver's lines are fitted to
    totals; where the MPI's costs are not a sum of one per side (MPICH copies a
    split datatype into a receiver's datatype in one pass), a least-squares line can
    put a crossover at the wrong run length, and this moves it to the measured one."""
    names = lines_of(across)
    best = regret(model, measurements, across)
    for _ in range(rounds):
        improved = False
        for line in names:
            for k in range(3):
                value = model.lines[line][k]
                others = [model.lines[o][k] for o in names if model.lines[o][k] > 0]
                tries = [value * f for f in _STEPS] if value > 0 else [v * f for v in others for f in _STEPS[1:]]
                for v in tries:
                    coefficients = list(model.lines[line])
                    coefficients[k] = v
                    candidate = model.with_lines(**{line: tuple(coefficients)})
                    r = regret(candidate, measurements, across)
                    if r < best - 1e-9:
                        model, best, improved = candidate, r, True
        if not improved:
            break
    return model


def grid_points(quick: bool) -> List[Tuple[int, int]]:
    """(run bytes, runs) of every measured message."""
    run_bytes, runs, limit = (QUICK_RUN_BYTES, QUICK_RUNS, QUICK_MAX_BYTES) if quick else \
        (FULL_RUN_BYTES, FULL_RUNS, MAX_BYTES)
    return [(rb, r) for rb in run_bytes for r in runs if rb * r <= limit]


# ---------------------------------------------------------------------------
# Measuring.

def _variant(base: Model, send: str, recv: str, across: bool = False) -> Tuple[str, Optional[Model]]:
    """The executor and model file under which a plan takes exactly these ways."""
    zero = (0.0, 0.0, 0.0)
    sends, recvs = _way_lines(across)["send"], _way_lines(across)["recv"]
    datatype = {sends["whole"]: zero}
    if "split" in sends:
        datatype[sends["split"]] = zero if send == "split" else _PRICED_OUT
    if send == "packed":
        return ("pack" if recv == "packed" else "hybrid"), None
    if recv == "datatype":
        return "datatype", base.with_lines(**datatype)
    return "auto", base.with_lines(**{sends["packed"]: _PRICED_OUT, recvs["packed"]: zero,
                                      recvs["datatype"]: _PRICED_OUT}, **datatype)


def ways_taken(model: Model, messages: Sequence[Mapping], runs: int, nbytes: int,
               across: bool = False) -> Tuple[str, str]:
    """The (send, receive) ways of a calibration plan's one message each way, from its
    ``messages()`` (the engine's way and pieces per side); ``"?"`` for a side that
    has no single packed or datatype message."""
    def side(sending):
        ways = [m for m in messages if m["peer"] >= 0 and m["sending"] == sending]
        return ways[0] if len(ways) == 1 and ways[0]["way"] in ("packed", "datatype") else None

    send, recv = side(True), side(False)
    send_way = send["way"] if send else "?"
    if send_way == "datatype":
        send_way = "split" if send["pieces"] > 1 or _one_piece(model, runs, nbytes, across) else "whole"
    return send_way, recv["way"] if recv else "?"


class _ModelFiles:
    """Model files in a private folder, made current by pointing DM_EXCHANGE_MODEL at them.
    DM_EXCHANGE is set aside meanwhile: it would override the ``auto`` plans."""

    def __init__(self):
        self.folder = tempfile.mkdtemp(prefix="datamotion-calibrate-")
        self.count = 0
        self.saved = os.environ.get("DM_EXCHANGE_MODEL")
        self.executor = os.environ.pop("DM_EXCHANGE", None)

    def use(self, model: Optional[Model]) -> None:
        # The library reads each path once: every model gets a path of its own.
        self.count += 1
        path = os.path.join(self.folder, f"model-{self.count}.txt")
        if model is not None:
            with open(path, "w") as f:
                f.write(model.text())
        os.environ["DM_EXCHANGE_MODEL"] = path  # no file there: the built-in model

    def restore(self) -> None:
        if self.saved is None:
            os.environ.pop("DM_EXCHANGE_MODEL", None)
        else:
            os.environ["DM_EXCHANGE_MODEL"] = self.saved

    def close(self) -> None:
        self.restore()
        if self.executor is not None:
            os.environ["DM_EXCHANGE"] = self.executor
        shutil.rmtree(self.folder, ignore_errors=True)


def builtin_model() -> Model:
    """Local. The built-in model of this MPI, whatever model file is present."""
    from .. import _core

    files = _ModelFiles()
    try:
        files.use(None)
        return Model.parse(_core.exchange_model())
    finally:
        files.close()


def pair_crosses_nodes(comm) -> bool:
    """Collective on ``comm`` (2 ranks): whether its two ranks are on different nodes."""
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    try:
        return node.size < comm.size
    finally:
        node.Free()


def pairs_by_locality(comm) -> List[Tuple[bool, int]]:
    """Collective on ``comm``. The ranks that rank 0 calibrates with, as (across, rank):
    the next rank of its node (across False) and the first rank of another node (across
    True), each where the job has one, in that order."""
    from mpi4py import MPI

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    lowest = node.allreduce(comm.rank, op=MPI.MIN)  # the node's name: its lowest rank
    node.Free()
    nodes = comm.allgather(lowest)
    same = [r for r in range(1, comm.size) if nodes[r] == nodes[0]]
    other = [r for r in range(1, comm.size) if nodes[r] != nodes[0]]
    return [(across, ranks[0]) for across, ranks in ((False, same), (True, other)) if ranks]


def measure(comm, quick: bool = False, reps: Optional[int] = None,
            progress: Optional[Callable[[str], None]] = None) -> Tuple[Model, List]:
    """Collective on ``comm`` (2 ranks: the pair that exchanges, on one node or on two,
    pair_crosses_nodes()). The built-in model and the measurements: (send way, receive
    way, runs, bytes, median microseconds over ``reps`` repetitions, default FULL_REPS
    or QUICK_REPS)."""
    import datamotion as dm
    from mpi4py import MPI

    base = builtin_model()
    across = pair_crosses_nodes(comm)
    grid = dm.ProcessGrid(comm, dims=[1, 2])
    reps = reps or (QUICK_REPS if quick else FULL_REPS)
    sample_s = QUICK_SAMPLE_S if quick else FULL_SAMPLE_S
    points = grid_points(quick)
    files = _ModelFiles()
    out = []
    try:
        for n, (run_bytes, runs) in enumerate(points):
            width = run_bytes // 8
            a = dm.DistArray.empty(grid, [runs, 2 * width], ghost=[0, 1])
            b = dm.DistArray.empty(grid, [runs, 2 * width], ghost=[0, 1])
            a.local[...] = 1.0
            b.local[...] = 0.0
            nbytes = run_bytes * runs
            ways = [(s, r) for s in send_ways(base, runs, nbytes, across) for r in _way_lines(across)["recv"]]
            plans = []
            for send, recv in ways:
                executor, model = _variant(base, send, recv, across)
                files.use(model if model is not None else base)
                plan = dm.PShift(a, [dm.CShift(width, axis=1)], executor=executor)
                v = plan.volume()
                if (v["messages_sent"], v["messages_received"], v["elements_copied"]) != (1, 1, 0):
                    raise RuntimeError(f"calibration plan moves {v}, not one message each way")
                if ways_taken(base, plan.messages(), runs, nbytes, across) != (send, recv):
                    raise RuntimeError(f"a calibration plan for {send}/{recv} takes other ways:\n{plan.describe()}")
                plans.append(plan._core_plan)
            files.restore()

            def run_once(core, times=1):
                for _ in range(times):
                    core.begin([b._a], [a._a], [])
                    core.end()

            # How many exchanges one repetition times: at least sample_s, alike on both ranks.
            inner = []
            for core in plans:
                run_once(core, 2)
                comm.Barrier()
                t0 = MPI.Wtime()
                run_once(core)
                inner.append(max(1, int(sample_s / max(MPI.Wtime() - t0, 1e-7))))
            inner = comm.bcast(inner, root=0)
            samples = [[] for _ in plans]
            for rep in range(reps):
                for k in np.roll(np.arange(len(plans)), rep):  # interleaved, a different order each time
                    comm.Barrier()
                    t0 = MPI.Wtime()
                    run_once(plans[k], inner[k])
                    samples[k].append(comm.allreduce((MPI.Wtime() - t0) / inner[k], op=MPI.MAX))
            for (send, recv), s in zip(ways, samples):
                out.append((send, recv, runs, nbytes, float(np.median(s)) * 1e6))
            del plans
            if progress:
                best = min((t, f"{sd}/{rv}") for sd, rv, _, _, t in out[-len(ways):])
                progress(f"  {n + 1}/{len(points)}: {runs} runs of {run_bytes} B, best {best[1]} {best[0]:.1f} us")
    finally:
        files.close()
    return base, out


# ---------------------------------------------------------------------------
# The table of choices.

def _label(send: str, recv: str) -> str:
    return f"{send}/{recv}"


def evaluate(model: Model, measurements: Sequence[Tuple[str, str, int, int, float]],
             across: bool = False) -> List[dict]:
    """Per measured message: the measured times, the best way, the model's choice and
    chosen/best (the chosen time as measured)."""
    by_point: Dict[Tuple[int, int], Dict[Tuple[str, str], float]] = {}
    for send, recv, runs, nbytes, us in measurements:
        by_point.setdefault((runs, nbytes), {})[(send, recv)] = us
    rows = []
    for (runs, nbytes), times in by_point.items():
        best = min(times, key=times.get)
        chosen = choice(model, runs, nbytes, across)
        measured = times.get(chosen)
        rows.append({"runs": runs, "bytes": nbytes, "times_us": times, "best": best, "chosen": chosen,
                     "ratio": (measured / times[best]) if measured is not None else None})
    return sorted(rows, key=lambda r: (r["bytes"] // r["runs"], r["runs"]))


def within(rows: Sequence[dict], factor: float = TARGET_RATIO) -> float:
    """The fraction of rows whose chosen ways took at most ``factor`` times the best."""
    judged = [r for r in rows if r["ratio"] is not None]
    return sum(r["ratio"] <= factor for r in judged) / max(len(judged), 1)


def table(rows: Sequence[dict], models: Dict[str, Model], across: bool = False) -> str:
    """A text table: per message, the measured times of each way (send/receive, us),
    the best, and per model its choice and chosen/best."""
    heads = ["packed/packed", "packed/datatype", "split/datatype", "whole/datatype", "split/packed", "whole/packed"]
    short = {h: h.replace("packed", "pk").replace("datatype", "dt").replace("split", "sp").replace("whole", "wh")
             for h in heads}
    out = ["ways: sender/receiver; pk packed, dt datatype, sp a datatype copied once (in pieces of <= "
           "split_runs runs), wh a datatype in one message; executors: pack = pk/pk, hybrid = pk/dt, "
           "datatype = sp/dt or wh/dt; times in us; x: the chosen ways' time / the best",
           f"{'run B':>6} {'runs':>6} {'KiB':>6} " + " ".join(f"{short[h]:>8}" for h in heads) + f" {'best':>6}"
           + "".join(f" {name:>6} {'x':>5}" for name in models)]
    for r in rows:
        cells = [f"{r['times_us'][tuple(h.split('/'))]:8.1f}" if tuple(h.split("/")) in r["times_us"] else f"{'-':>8}"
                 for h in heads]
        line = f"{r['bytes'] // r['runs']:>6} {r['runs']:>6} {r['bytes'] / 1024:>6.0f} " + " ".join(cells) \
            + f" {short[_label(*r['best'])]:>6}"
        for model in models.values():
            c = choice(model, r["runs"], r["bytes"], across)
            t = r["times_us"].get(c)
            ratio = f"{t / r['times_us'][r['best']]:5.2f}" if t is not None else f"{'?':>5}"
            line += f" {short[_label(*c)]:>6} {ratio}"
        out.append(line)
    return "\n".join(out)
