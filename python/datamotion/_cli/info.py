"""``datamotion info``: provenance of this installation, its MPI and this run."""

import json

from .._mpi import MPI, THREAD_LEVEL_SOURCE  # MPI at the thread level _mpi settles

from .._provenance import provenance


def run_info(as_json: bool = False) -> int:
    info = provenance(MPI.COMM_WORLD)
    if MPI.COMM_WORLD.rank != 0:
        return 0
    if as_json:
        print(json.dumps(info, indent=2))
        return 0
    from rich.console import Console
    from rich.table import Table

    table = Table(title="datamotion info", show_header=False)
    rows = [
        ("datamotion", f"{info['version']} (git {info['git_revision']}, {info['build_type']} build, {info['compiler']})"),
        ("MPI library", info["mpi_library"]),
        ("MPI standard", info["mpi_standard"]),
        ("ranks", str(info["ranks"])),
        ("hosts", ", ".join(info["hosts"])),
        ("thread level", f"{info['thread_level']}: {THREAD_LEVEL_SOURCE}"),
        ("clock resolution", f"MPI_Wtick {info['wtick_s']:.3g} s; steady_clock {info['steady_clock_resolution_s']:.3g} s"),
        ("Python", f"{info['python']} (mpi4py {info['mpi4py']}, numpy {info['numpy']})"),
    ]
    for key, value in rows:
        table.add_row(key, value)
    Console().print(table)
    return 0
