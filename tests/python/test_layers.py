"""The layers of the C++ core keep to their places (docs/architecture.md): no layer
includes one above it, capabilities do not include each other, and the exchange
layer is the only code that moves a capability's data between ranks."""

import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src"
LAYERS = ["core", "layout", "array", "exchange"]  # bottom up; then the capabilities
CAPABILITIES = ["shift", "redist", "vector", "bench"]
# Calls that move data between ranks point to point or to neighbours, and the
# variable all-to-all exchanges the engine replaces. The array layer, below the
# engine, gathers and scatters whole arrays by collectives; the capabilities keep
# the stricter rule of test_mpi_calls.py (no gathers, all-to-alls or broadcasts).
MOVES = re.compile(r"\bMPI_(I?[BSR]?send|I?recv|Sendrecv(_replace)?|Send_init|Recv_init|Startall|Start|"
                   r"(I)?[Nn]eighbor_\w+|I?[Aa]lltoall[vw]|Put|Get|Accumulate)\s*\(")


def sources(folder):
    return sorted(p for p in (SRC / folder).rglob("*") if p.suffix in (".cpp", ".hpp"))


def level(folder):
    return LAYERS.index(folder) if folder in LAYERS else len(LAYERS)


@pytest.mark.parallel(nprocs=[1])
def test_no_layer_includes_a_higher_one_or_another_capability():
    wrong = []
    for folder in LAYERS + CAPABILITIES:
        for path in sources(folder):
            text = path.read_text()
            # A relative path would step out of the layer's view of the sources (the build's
            # enforcement, CMakeLists.txt's dm_add_layer) into the source tree itself.
            wrong += [f"{path.relative_to(SRC)} includes {p}" for p in re.findall(r'#include "(\.\./[^"]*)"', text)]
            for used in re.findall(r'#include "(\w+)/', text):
                upward = level(used) > level(folder)
                sideways = used != folder and used in CAPABILITIES and folder in CAPABILITIES
                if upward or sideways:
                    wrong.append(f"{path.relative_to(SRC)} includes {used}/")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("capability", ["array", "shift", "redist", "vector"])
def test_only_the_exchange_layer_moves_data_between_ranks(capability):
    calls = [f"{path.relative_to(SRC)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for path in sources(capability) for text in [path.read_text()] for m in MOVES.finditer(text)]
    assert not calls, "data moved outside src/exchange:\n" + "\n".join(calls)
