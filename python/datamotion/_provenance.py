"""Provenance: what produced a result."""

import json
import platform
import sys
from typing import Optional

from ._mpi import MPI, _core  # through _mpi: MPI's thread level settled, the same MPI checked


def provenance(comm: Optional[MPI.Comm] = None) -> dict:
    """Collective on ``comm`` (default ``MPI.COMM_WORLD``). The datamotion version,
    git revision and build type, the MPI library and standard, ranks, hosts,
    thread level and clock resolution, plus the Python side."""
    info = json.loads(_core.provenance_json(MPI.COMM_WORLD if comm is None else comm))
    info["python"] = platform.python_version()
    info["mpi4py"] = __import__("mpi4py").__version__
    info["numpy"] = __import__("numpy").__version__
    info["executable"] = sys.executable
    return info
