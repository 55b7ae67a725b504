"""The summary of ``./dev test`` (tests/summarize.py): one row per step with its counts,
a step that is skipped shows why, and a step that left no results, a rank that wrote
no report or an unreadable report fails the summary."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DEV = ROOT / "dev"


def load_summarize():
    spec = importlib.util.spec_from_file_location("dm_summarize", ROOT / "tests" / "summarize.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # (dataclasses look their module up there)
    spec.loader.exec_module(module)
    return module


summarize = load_summarize()


def junit(*cases: tuple[str, str, str]) -> str:
    """A JUnit report of (classname, name, outcome) cases, outcome passed/failed/skipped."""
    inner = {"passed": "", "failed": "<failure message='no'/>", "skipped": "<skipped message='n/a'/>"}
    body = "".join(f'<testcase classname="{c}" name="{n}">{inner[o]}</testcase>' for c, n, o in cases)
    return f'<?xml version="1.0"?><testsuites><testsuite name="t">{body}</testsuite></testsuites>'


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def reports(tmp_path: Path, steps: list[tuple[str, str, str]]) -> Path:
    """A reports folder whose ``steps`` lists (id, reports, title)."""
    directory = tmp_path / "reports"
    write(directory, "steps", "".join(f"{i}\t{r}\t{t}\n" for i, r, t in steps))
    return directory


def run(directory: Path, capsys) -> tuple[int, str]:
    code = summarize.main(["summarize.py", str(directory)])
    return code, capsys.readouterr().out


def row(out: str, title: str) -> list[str]:
    """The cells after the title of a step's row."""
    for line in out.splitlines():
        if line.startswith(title + " "):
            return line[len(title):].split(None, 3)
    raise AssertionError(f"no row for {title!r} in:\n{out}")


STEPS = [("cpp", "ctest.xml", "C++ tests"),
         ("examples", "cases.xml", "Examples"),
         ("python", "pytest-np1.xml pytest-np2.xml", "Python tests"),
         ("openmpi", "ctest.xml", "Open MPI tests")]


def full_run(tmp_path: Path) -> Path:
    """Every step of STEPS with results; Open MPI skipped."""
    directory = reports(tmp_path, STEPS)
    write(directory / "cpp", "ctest.xml", junit(("t", "test_core.np1", "passed"), ("t", "test_core.np2", "passed")))
    write(directory / "examples", "cases.xml", junit(("examples", "scatter_gather", "passed"),
                                                      ("examples", "fortran", "skipped")))
    case = "tests.python.test_array"
    write(directory / "python", "pytest-np1.xml", junit((case, "test_a", "passed"), (case, "test_b", "skipped")))
    # Two ranks: a case that one rank skips and the other passes counts once, skipped.
    write(directory / "python", "pytest-np2.xml", junit((case, "test_c[2]", "passed"), (case, "test_d", "passed")))
    write(directory / "python", "pytest-np2.rank1.xml", junit((case, "test_c[2]", "passed"), (case, "test_d", "skipped")))
    write(directory / "openmpi", "skipped", "Open MPI is missing and installing it with apt-get needs root\n")
    return directory


def test_every_step_has_a_row_with_its_counts(tmp_path, capsys):
    code, out = run(full_run(tmp_path), capsys)
    assert code == 0, out
    assert row(out, "C++ tests") == ["2", "0", "0"], out
    assert row(out, "Examples") == ["1", "0", "1"], out
    assert row(out, "Python tests") == ["2", "0", "2"], out
    assert row(out, "Open MPI tests") == ["0", "0", "0", "skipped: Open MPI is missing and installing it with "
                                          "apt-get needs root"], out
    # The table per test file of the Python step, as before.
    assert re.search(r"^tests/python/test_array\.py +2 +0 +2$", out, re.M), out
    assert out.splitlines()[-1] == "5 passed, 0 failed, 3 skipped, 1 step skipped", out


def test_a_step_without_results_fails(tmp_path, capsys):
    # The run: the C++ step died before ctest wrote its report, and the rest passed.
    directory = full_run(tmp_path)
    (directory / "cpp" / "ctest.xml").unlink()
    code, out = run(directory, capsys)
    assert code == 1, out
    assert row(out, "C++ tests")[:2] == ["0", "1"], out
    assert "cpp/ctest.xml: missing" in out, out
    # A step whose folder is not even there.
    directory = full_run(tmp_path / "again")
    for path in (directory / "examples").iterdir():
        path.unlink()
    (directory / "examples").rmdir()
    code, out = run(directory, capsys)
    assert code == 1 and "examples/cases.xml: missing" in out, out


def test_a_step_listed_without_reports_fails(tmp_path, capsys):
    directory = full_run(tmp_path)
    steps = (directory / "steps").read_text() + "static\t\tStatic runtime\n"
    (directory / "steps").write_text(steps)
    code, out = run(directory, capsys)
    assert code == 1, out
    assert row(out, "Static runtime")[:2] == ["0", "1"], out
    assert "static: no results" in out, out


def test_a_missing_rank_or_launch_fails(tmp_path, capsys):
    directory = full_run(tmp_path)
    (directory / "python" / "pytest-np2.rank1.xml").unlink()
    code, out = run(directory, capsys)
    assert code == 1 and "python/pytest-np2.rank1.xml: missing: rank 1" in out, out

    directory = full_run(tmp_path / "again")
    for name in ("pytest-np2.xml", "pytest-np2.rank1.xml"):
        (directory / "python" / name).unlink()
    code, out = run(directory, capsys)
    assert code == 1 and "python/pytest-np2.xml: missing: the launch wrote no report" in out, out


def test_a_failed_case_an_unreadable_or_empty_report_fails(tmp_path, capsys):
    directory = full_run(tmp_path)
    write(directory / "examples", "cases.xml", junit(("examples", "scatter_gather", "failed")))
    code, out = run(directory, capsys)
    assert code == 1 and row(out, "Examples")[:2] == ["0", "1"], out
    assert "examples: cases.xml::scatter_gather" in out, out

    directory = full_run(tmp_path / "unreadable")
    write(directory / "cpp", "ctest.xml", "<testsuite><testcase")
    code, out = run(directory, capsys)
    assert code == 1 and "cpp/ctest.xml: unreadable" in out, out

    directory = full_run(tmp_path / "empty")
    write(directory / "cpp", "ctest.xml", junit())
    code, out = run(directory, capsys)
    assert code == 1 and "cpp/ctest.xml: empty" in out, out


def test_a_pytest_launch_that_selects_nothing_is_no_failure(tmp_path, capsys):
    directory = full_run(tmp_path)
    write(directory / "python", "pytest-np2.xml", junit())
    write(directory / "python", "pytest-np2.rank1.xml", junit())
    code, out = run(directory, capsys)
    assert code == 0 and row(out, "Python tests") == ["1", "0", "1"], out


def test_no_list_of_steps_or_an_unlisted_folder_fails(tmp_path, capsys):
    directory = full_run(tmp_path)
    write(directory / "network", "ctest.xml", junit(("t", "x", "passed")))
    code, out = run(directory, capsys)
    assert code == 1 and "does not list" in out, out
    (directory / "steps").unlink()
    code, out = run(directory, capsys)
    assert code == 1, out


def test_nothing_run_at_all_fails(tmp_path, capsys):
    directory = reports(tmp_path, [("openmpi", "ctest.xml", "Open MPI tests")])
    write(directory / "openmpi", "skipped", "no Open MPI")
    code, out = run(directory, capsys)
    assert code == 1, out


def dev_functions(*names: str) -> str:
    """The bash source of the functions ``names`` of ./dev."""
    text = DEV.read_text()
    found = []
    for name in names:
        m = re.search(rf"^{name}\(\) {{\n.*?^}}\n", text, re.M | re.S)
        assert m, f"./dev has no function {name}"
        found.append(m.group(0))
    return "".join(found)


def test_dev_cases_are_a_report_summarize_reads(tmp_path, capsys):
    # ./dev's own JUnit writer: passed, failed and skipped cases, names that need escaping.
    directory = reports(tmp_path, [("examples", "cases.xml", "Examples")])
    script = dev_functions("reports_of", "run_case", "skip_case", "add_case", "xml_text") + textwrap.dedent(f"""
        REPORTS={str(directory)!r}
        run_case examples 'a <b> & "c"' true
        run_case examples 'fails' false || true
        skip_case examples 'fortran' 'no "Fortran" & no <module>'
    """)
    subprocess.run(["bash", "-c", script], check=True, capture_output=True, timeout=60)
    code, out = run(directory, capsys)
    assert code == 1 and row(out, "Examples")[:3] == ["1", "1", "1"], out
    assert "examples: cases.xml::fails" in out, out
    names = [c.get("name") for c in summarize.ET.parse(directory / "examples" / "cases.xml").getroot().iter("testcase")]
    assert names == ['a <b> & "c"', "fails", "fortran"]


def test_dev_lists_every_step_it_reports_into():
    # Every step ./dev writes reports for is in the list write_steps makes, and back.
    text = DEV.read_text()
    listed = set(re.findall(r"^\s*step_row ([\w-]+) ", text, re.M))
    used = set(re.findall(r"(?:reports_of|run_case|skip_case) ([\w-]+)", text))
    for m in re.finditer(r"skip_steps \"[^\"]*\" ([\w -]+)", text):
        used.update(m.group(1).split())
    assert used == listed, f"reported into but not listed: {used - listed}; listed but never reported: {listed - used}"
