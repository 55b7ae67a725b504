"""A 4-rank job across two emulated hosts: two Linux network namespaces joined by a
veth pair, MPI over TCP between them, Hydra (the mpich wheel's mpiexec) entering each
namespace through a launcher script where it would use ssh. Ranks 0-1 run on one host,
2-3 on the other, so every message between the two pairs crosses the network stack.
Skipped, with the reason, where the machine does not allow namespaces (not root, no
`ip`, no CAP_SYS_ADMIN) or where the MPI is not MPICH's Hydra."""

import os
import random
import re
import shutil
import subprocess
import sys
import textwrap
import time

import pytest
from dmtest import launcher_free_environment

pytestmark = pytest.mark.parallel(nprocs=[1])

# The job: the 5-point stencil example (a PSHIFT of 4 shifts per step on a 2 x 2 grid)
# and a vector permutation, each checked against NumPy on every rank.
EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "examples", "python")
JOB = textwrap.dedent("""
    import sys
    import numpy as np
    from mpi4py import MPI
    from datamotion import vector as cv

    sys.path.insert(0, {examples!r})
    import stencil_5point

    comm = MPI.COMM_WORLD
    ok = stencil_5point.run(comm)
    n = 1001
    perm = np.random.default_rng(5).permutation(n).astype(np.int32)
    got = cv.permute(cv.Vector.from_numpy(np.arange(n, dtype=np.float64)), cv.Vector.from_numpy(perm)).to_numpy()
    want = np.empty(n)
    want[perm] = np.arange(n)
    ok = comm.allreduce(bool(ok) and np.array_equal(got, want), op=MPI.LAND)
    print(f"rank {{comm.rank}} of {{comm.size}}: {{'ok' if ok else 'WRONG'}}", flush=True)
""")

LAUNCHER = textwrap.dedent("""\
    #!/bin/sh
    # Hydra calls this as it would call ssh: [options] HOST COMMAND. Enter HOST's namespace.
    while [ "${1#-}" != "$1" ]; do shift; done
    host=$1; shift
    case $host in
      A_IP) ns=A_NS ;;
      B_IP) ns=B_NS ;;
      *) echo "no namespace for host $host" >&2; exit 1 ;;
    esac
    exec ip netns exec "$ns" sh -c "$*"
""")


def _run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def _why_not() -> str:
    if not sys.platform.startswith("linux"):
        return "network namespaces are Linux only"
    if os.geteuid() != 0:
        return "creating network namespaces needs root"
    if not shutil.which("ip"):
        return "the `ip` command (iproute2) is not installed"
    mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if not os.path.exists(mpiexec) or "HYDRA" not in _run(mpiexec, "--version").stdout.upper():
        return "the MPI launcher is not MPICH's Hydra (mpiexec -launcher-exec)"
    probe = f"dmprobe{os.getpid()}"
    made = _run("ip", "netns", "add", probe)
    if made.returncode != 0:
        return f"this machine does not allow network namespaces: {made.stderr.strip()}"
    _run("ip", "netns", "del", probe)
    return ""


def test_four_ranks_on_two_emulated_hosts(tmp_path):
    reason = _why_not()
    if reason:
        pytest.skip(reason)
    tag = f"{os.getpid() % 100000}"
    a, b = f"dmA{tag}", f"dmB{tag}"
    subnet = f"10.{random.randint(100, 250)}.{random.randint(0, 255)}"
    a_ip, b_ip = f"{subnet}.1", f"{subnet}.2"
    veth_a, veth_b = f"dmva{tag}", f"dmvb{tag}"
    setup = [
        ("ip", "netns", "add", a), ("ip", "netns", "add", b),
        ("ip", "link", "add", veth_a, "type", "veth", "peer", "name", veth_b),
        ("ip", "link", "set", veth_a, "netns", a), ("ip", "link", "set", veth_b, "netns", b),
        ("ip", "-n", a, "addr", "add", f"{a_ip}/24", "dev", veth_a),
        ("ip", "-n", b, "addr", "add", f"{b_ip}/24", "dev", veth_b),
        ("ip", "-n", a, "link", "set", "lo", "up"), ("ip", "-n", b, "link", "set", "lo", "up"),
        ("ip", "-n", a, "link", "set", veth_a, "up"), ("ip", "-n", b, "link", "set", veth_b, "up"),
    ]
    try:
        for cmd in setup:
            done = _run(*cmd)
            if done.returncode != 0:
                pytest.skip(f"cannot join two namespaces by a veth pair: {' '.join(cmd)}: {done.stderr.strip()}")
        # A veth pair carries packets only once both ends report carrier (LOWER_UP).
        deadline = time.monotonic() + 20
        while not all("LOWER_UP" in _run("ip", "-n", ns, "link", "show", dev).stdout
                      for ns, dev in ((a, veth_a), (b, veth_b))):
            assert time.monotonic() < deadline, "the veth pair never came up"
            time.sleep(0.05)
        launcher = tmp_path / "enter_namespace.sh"
        launcher.write_text(LAUNCHER.replace("A_IP", a_ip).replace("B_IP", b_ip).replace("A_NS", a).replace("B_NS", b))
        launcher.chmod(0o755)
        job = tmp_path / "job.py"
        job.write_text(JOB.format(examples=EXAMPLES))
        # Without the enclosing job's launcher variables (HYDI_CONTROL_FD would make the
        # new job's proxies talk to the enclosing job's).
        env = launcher_free_environment()
        # MPICH's network modules could still find shared memory across the namespaces
        # (one kernel, one /dev/shm): TCP only, so that every message between the hosts
        # crosses the veth pair.
        env.update(MPIR_CVAR_CH4_PROGRESS_THROTTLE="1", MPIR_CVAR_CH4_PROGRESS_THROTTLE_NO_PROGRESS_COUNT="16",
                   MPI4PY_RC_THREAD_LEVEL="single", UCX_TLS="tcp,self", FI_PROVIDER="tcp")
        mpiexec = os.path.join(os.path.dirname(sys.executable), "mpiexec")
        # mpiexec itself runs on the first host, so the second host's proxy can reach it.
        done = subprocess.run(["ip", "netns", "exec", a, mpiexec, "-hosts", f"{a_ip}:2,{b_ip}:2", "-launcher", "ssh",
                               "-launcher-exec", str(launcher), "-iface", veth_a, "-n", "4", sys.executable, str(job)],
                              env=env, capture_output=True, text=True, timeout=120)
        out = done.stdout + done.stderr
        assert done.returncode == 0, out
        # Hydra forwards each rank's output as it comes: lines may run together.
        verdicts = dict(re.findall(r"rank (\d) of 4: (ok|WRONG)", done.stdout))
        assert verdicts == {str(r): "ok" for r in range(4)}, out
    finally:
        for ns in (a, b):
            _run("ip", "netns", "del", ns)
