"""The documentation cannot go stale: every code block of README.md and docs/*.md is
run (Python, on 4 ranks, the blocks of one page in order in one namespace, as a reader
would type them) or compiled and linked against the installed C library (C).

An HTML comment right before a block's fence may say how:
  <!-- doc-test: setup
  code run before the block (hidden context the page leaves to the reader) -->
  <!-- doc-test: signatures -->   the block lists call signatures: each line
                                  ``Name(...)`` or ``Name.member(...)`` must match
                                  inspect.signature of ``datamotion.Name...``
C blocks with a ``main`` are whole programs; other C blocks are compiled as the body
of a ``main`` that initialises MPI (after their setup, if any), and linked.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from dmtest import WORLD, check_all, launcher_free_environment

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^```(?P<lang>python|c)[ \t]*\n(?P<body>.*?)^```[ \t]*$", re.M | re.S)
DIRECTIVE = re.compile(r"<!--\s*doc-test:\s*(?P<kind>setup|signatures)\b(?P<text>.*?)-->\s*$", re.S)


def blocks(page: Path, lang: str):
    """(line, body, directive kind, directive text) of each ``lang`` block of a page."""
    text = page.read_text()
    for m in FENCE.finditer(text):
        if m.group("lang") != lang:
            continue
        before = text[:m.start()].rstrip("\n")
        d = DIRECTIVE.search(before[before.rfind("<!--"):]) if before.endswith("-->") else None
        yield (text.count("\n", 0, m.start()) + 1, m.group("body"), d and d.group("kind"),
               d and textwrap.dedent(d.group("text")).strip("\n"))


def python_pages():
    return [p for p in PAGES if any(True for _ in blocks(p, "python"))]


def check_signatures(body: str, where: str) -> None:
    import datamotion as dm

    for line in body.strip().splitlines():
        call = ast.parse(line.strip(), mode="eval").body
        assert isinstance(call, ast.Call), f"{where}: not a call: {line}"
        target = dm
        for part in ast.unparse(call.func).split("."):
            target = getattr(target, part)
        documented = [a.id for a in call.args if isinstance(a, ast.Name)] + [k.arg for k in call.keywords]
        real = inspect.signature(target)
        params = [p for p in real.parameters.values() if p.name not in ("self", "cls")]
        assert documented == [p.name for p in params], f"{where}: {line} but the code says {real}"
        for k in call.keywords:
            default = params[[p.name for p in params].index(k.arg)].default
            shown = eval(ast.unparse(k.value), {"np": np})  # literals, and NumPy names such as np.float64
            assert shown == default, f"{where}: {line}: {k.arg} defaults to {default!r}"


@pytest.mark.parallel(nprocs=[4])
@pytest.mark.parametrize("page", python_pages(), ids=lambda p: p.name)
def test_python_blocks_run(page, tmp_path_factory):
    # One folder for every rank: rank 0's name, shared.
    folder = WORLD.bcast(str(tmp_path_factory.mktemp("doc")) if WORLD.rank == 0 else None)
    namespace = {"__name__": "__doc__"}
    here = os.getcwd()
    os.chdir(folder)
    try:
        for line, body, kind, text in blocks(page, "python"):
            where = f"{page.name}:{line}"
            if kind == "signatures":
                check_signatures(body, where)
                continue
            if kind == "setup":
                exec(compile(text, f"{where} (setup)", "exec"), namespace)
            exec(compile(body, where, "exec"), namespace)
            WORLD.Barrier()
    finally:
        os.chdir(here)
    check_all(WORLD, True, page.name)


def installed_prefix() -> Path | None:
    for prefix in (os.environ.get("DATAMOTION_PREFIX"), ROOT / "build" / "cpp" / "install"):
        if prefix and (Path(prefix) / "include" / "datamotion" / "datamotion.h").exists():
            return Path(prefix)
    return None


def c_blocks():
    return [(p, line, body, text if kind == "setup" else "")
            for p in PAGES for line, body, kind, text in blocks(p, "c")]


@pytest.mark.parallel(nprocs=[1])
@pytest.mark.parametrize("page,line,body,setup", c_blocks(), ids=lambda x: getattr(x, "name", None) or str(x)[:0])
def test_c_blocks_compile_and_link(page, line, body, setup, tmp_path):
    prefix = installed_prefix()
    if prefix is None:
        pytest.skip("no installed C library: ./dev test installs one into build/cpp/install (or set DATAMOTION_PREFIX)")
    mpicc = shutil.which("mpicc", path=os.path.dirname(sys.executable)) or shutil.which("mpicc")
    if not mpicc:
        pytest.skip("no mpicc")
    if re.search(r"\bint\s+main\s*\(", body):
        source = body
    else:  # a fragment: its #include lines at the top, the rest in main
        lines = (setup + "\n" + body).splitlines()
        includes = "\n".join(x for x in lines if x.lstrip().startswith("#"))
        code = "\n".join(x for x in lines if not x.lstrip().startswith("#"))
        source = ("#include <datamotion/datamotion.h>\n#include <cvl.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
                  + includes + "\nint main(int argc, char **argv) {\n    MPI_Init(&argc, &argv);\n"
                  + textwrap.indent(code, "    ") + "\n    MPI_Finalize();\n    return 0;\n}\n")
    c_file = tmp_path / "block.c"
    c_file.write_text(source)
    lib = prefix / "lib"
    if not lib.exists():
        lib = prefix / "lib64"
    env = launcher_free_environment()
    done = subprocess.run([mpicc, "-std=c99", "-Wall", "-Werror=implicit-function-declaration", str(c_file),
                           f"-I{prefix / 'include'}", f"-L{lib}", f"-Wl,-rpath,{lib}", "-ldatamotion", "-lm",
                           "-o", str(tmp_path / "block")], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, f"{page.name}:{line} does not compile and link:\n{source}\n{done.stderr}"


CODE_FOLDERS = ["include", "src", "python", "fortran", "examples", "tests", "benchmarks", "cmake"]
CODE_FILES = ["dev", "CMakeLists.txt"]


@pytest.mark.parallel(nprocs=[1])
def test_every_c_name_the_docs_mention_exists():
    """A ``dm_*`` or ``DM_*`` name in prose or in a block no test runs (a function, a
    constant, an environment variable) must occur in the code: a renamed function, such
    as ``dm_redist_pdgemr2d`` for ``dm_redist_pgemr2d``, cannot stay in the docs.
    A name ending in ``_`` is a prefix (``dm_halo_*``)."""
    code = set()
    files = [ROOT / f for f in CODE_FILES] + [p for folder in CODE_FOLDERS for p in (ROOT / folder).rglob("*")
                                               if p.is_file() and p.suffix not in (".md", ".pyc", ".so")
                                               and p != Path(__file__).resolve()]
    for path in files:
        code.update(re.findall(r"\b(?:dm|DM)_\w+", path.read_text(errors="replace")))
    missing = [f"{page.relative_to(ROOT)}: {name}" for page in PAGES
               for name in sorted(set(re.findall(r"(?<![\w:/.])(?:dm|DM)_\w*[A-Za-z0-9]\b", page.read_text())))
               if name not in code]
    assert not missing, "names in the docs that no code has:\n" + "\n".join(missing)


@pytest.mark.parallel(nprocs=[1])
def test_the_executors_table_is_the_registry():
    """docs/exchange.md's table of executors names every name ``executor=`` takes, in the
    registry's order, and no other: the one list of them in the documentation."""
    from datamotion import Exchange

    text = (ROOT / "docs" / "exchange.md").read_text()
    section = text.split("\n## Executors\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \|", section, re.M)
    assert rows == list(Exchange.EXECUTORS), f"docs/exchange.md#executors lists {rows}"
