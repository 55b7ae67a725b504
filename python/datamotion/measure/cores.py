"""Whether the ranks of a run share cores: the condition every printed time carries.

Ranks that outnumber the cores they may run on take turns, and a time measured so
is not that of a dedicated machine (a ping-pong 10x slower, say). The cores of a
host are those its ranks may run on (the union of their affinity masks, so a
launcher that binds every rank to one core counts one core), not all it has.
"""

from __future__ import annotations

import os
import resource
import time
from typing import NamedTuple, Optional, Tuple


def _allowed_cores() -> list:
    """The cores this process may run on."""
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:  # no affinity masks (macOS): every core
        return list(range(os.cpu_count() or 1))


def crowded_host(comm) -> Tuple[int, int, int]:
    """Collective on ``comm``. ``(ranks, cores, hosts)``: the ranks and the cores they
    may run on of the most crowded host (most ranks per core), and how many hosts
    the ranks span; the same on every rank."""
    from mpi4py import MPI

    hosts = {}
    for host, cores in comm.allgather((MPI.Get_processor_name(), _allowed_cores())):
        ranks, union = hosts.setdefault(host, [0, set()])
        hosts[host][0] = ranks + 1
        union.update(cores)
    ranks, cores = max(((r, len(c)) for r, c in hosts.values()), key=lambda rc: rc[0] / rc[1])
    return ranks, cores, len(hosts)


def shared_cores(comm) -> Optional[str]:
    """Collective on ``comm``. None when no host holds more ranks than cores to run
    them on; else, the same on every rank, a sentence saying so for the most crowded
    host: ``"4 ranks on 2 cores: ranks share cores, times are not those of a
    dedicated machine"``."""
    ranks, cores, hosts = crowded_host(comm)
    return sharing_sentence(ranks, cores, hosts)


def sharing_sentence(ranks: int, cores: int, hosts: int = 1) -> Optional[str]:
    """The sentence of :func:`shared_cores` for ``ranks`` on ``cores`` (None when
    every rank has a core of its own)."""
    if ranks <= cores:
        return None
    where = " of a host" if hosts > 1 else ""
    return f"{ranks} ranks on {cores} cores{where}: ranks share cores, times are not those of a dedicated machine"


class CpuSnapshot(NamedTuple):
    """What :func:`others_share` compares: seconds since an arbitrary start."""
    wall: float
    busy: float      # every core's busy time (/proc/stat), this process's jobs included
    stolen: float    # time the hypervisor gave this machine's cores to others (steal)
    children: float  # CPU time of this process's finished children (its mpiexec jobs)
    own: float       # CPU time of this process


def cpu_snapshot(stat: str = "/proc/stat") -> Optional[CpuSnapshot]:
    """The machine's busy and stolen CPU time and this process's own and its waited-for
    children's, now; None where /proc/stat cannot be read (not Linux)."""
    try:
        with open(stat) as f:
            fields = [int(v) for v in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    tick = os.sysconf("SC_CLK_TCK")
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    me = resource.getrusage(resource.RUSAGE_SELF)
    return CpuSnapshot(time.monotonic(), (user + nice + system + irq + softirq) / tick, steal / tick,
                       children.ru_utime + children.ru_stime, me.ru_utime + me.ru_stime)


def others_share(before: Optional[CpuSnapshot], after: Optional[CpuSnapshot], cores: int) -> Optional[float]:
    """The share of ``cores`` cores' time between two snapshots that went to other work
    than this process and the jobs it waited for: other processes' busy time plus the
    time the hypervisor stole. The load average cannot tell this: a run's own ranks
    raise it, so a run right after another reads as loaded. None without snapshots."""
    if before is None or after is None or after.wall <= before.wall:
        return None
    ours = (after.children - before.children) + (after.own - before.own)
    other = max(0.0, (after.busy - before.busy) - ours) + (after.stolen - before.stolen)
    return other / (cores * (after.wall - before.wall))
