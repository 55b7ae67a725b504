"""What the installed package carries besides its code: the typed marker, stubs that
match the extension, and the one-line error of a feature whose extra is missing.
(tests/packaging/check_dist.sh checks the sdist and the wheel themselves.)"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import datamotion as dm
from datamotion import _core

PACKAGE = Path(dm.__file__).parent


def _stub_names(tree: ast.Module) -> set:
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def test_typed_marker_installed():
    assert (PACKAGE / "py.typed").is_file()


def test_extension_stubs_match_the_module():
    """The build generates _core.pyi from the module it built, so the stubs name exactly
    the extension's public functions, classes and constants."""
    stub = PACKAGE / "_core.pyi"
    assert stub.is_file(), "the build installs datamotion/_core.pyi (DATAMOTION_PYTHON_STUBS)"
    stubbed = _stub_names(ast.parse(stub.read_text()))
    public = {name for name in dir(_core) if not name.startswith("_")}
    assert public - stubbed == set(), "in the extension but not in its stubs"
    assert {n for n in stubbed if not n.startswith("_")} - public == set(), "in the stubs but not in the extension"


def test_type_checkers_see_every_lazy_export():
    """The package loads its public names on first use (PEP 562); its TYPE_CHECKING
    imports must name the same modules, or type checkers would see them as Any."""
    tree = ast.parse((PACKAGE / "__init__.py").read_text())
    block = next(node for node in tree.body if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING")
    imported = {alias.name: node.module.lstrip(".") for node in block.body if isinstance(node, ast.ImportFrom)
                for alias in node.names}
    assert imported == dm._EXPORTS


def test_report_without_matplotlib_names_the_extra(tmp_path):
    # None in sys.modules makes `import matplotlib` fail as it does where it is not installed.
    code = ("import sys; sys.modules['matplotlib'] = None; from datamotion import cli; "
            "cli.main(['report', sys.argv[1], '--out', sys.argv[2]])")
    run = subprocess.run([sys.executable, "-c", code, str(tmp_path / "results.json"), str(tmp_path / "r")],
                         capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
    assert run.returncode != 0
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1, run.stderr
    assert "matplotlib" in lines[0] and "pip install 'datamotion[plots]'" in lines[0], lines[0]
