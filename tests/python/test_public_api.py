"""The public surface is documented: every exported Python name and member has a
docstring, and every exported C function has a doc comment saying whether it is
collective or local."""

import inspect
import re
from pathlib import Path

import datamotion

HEADERS = Path(__file__).resolve().parents[2] / "include" / "datamotion"


def public_members(cls):
    for name, member in vars(cls).items():
        if not name.startswith("_") and (inspect.isfunction(member) or isinstance(member, (property, classmethod,
                                                                                             staticmethod))):
            yield name, member


def test_every_exported_python_name_is_documented():
    missing = [name for name in datamotion.__all__
               if name != "__version__" and not inspect.getdoc(getattr(datamotion, name))]
    assert not missing, f"undocumented: {missing}"


def test_every_public_member_is_documented():
    missing = []
    for name in datamotion.__all__:
        obj = getattr(datamotion, name)
        if inspect.isclass(obj):
            for member_name, member in public_members(obj):
                target = member.__func__ if isinstance(member, (classmethod, staticmethod)) else member
                if not (target.__doc__ or "").strip():
                    missing.append(f"{name}.{member_name}")
    assert not missing, f"undocumented: {missing}"


def test_every_exported_c_function_has_a_doc_comment():
    undocumented, unmarked = [], []
    for header in sorted(HEADERS.glob("*.h")):
        text = header.read_text()
        for match in re.finditer(r"^DM_API [^;]*?\b(dm_\w+)\(", text, flags=re.M):
            before = text[:match.start()].rstrip()
            if not before.endswith("*/"):
                undocumented.append(match.group(1))
                continue
            comment = before[before.rfind("/*"):]
            if not re.search(r"\b(Collective|Local)\b", comment):
                unmarked.append(match.group(1))
    assert not undocumented, f"no doc comment: {undocumented}"
    assert not unmarked, f"doc comment does not say Collective or Local: {unmarked}"


def test_provenance_stays_the_function_after_the_modules_that_use_it_load():
    import subprocess
    import sys

    code = ("import datamotion as dm, datamotion._cli.info, datamotion._cli.demo; "
            "assert callable(dm.provenance) and dm.provenance.__name__ == 'provenance', dm.provenance")
    from dmtest import launcher_free_environment

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env=launcher_free_environment())
    assert done.returncode == 0, done.stderr
