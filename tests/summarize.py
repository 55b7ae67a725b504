#!/usr/bin/env python3
"""Summarises the test reports of ``./dev test``.

    python tests/summarize.py build/reports

``./dev test`` first writes the file ``steps`` into the directory: one line per step
it runs, ``ID<TAB>REPORTS<TAB>TITLE``, where REPORTS names (space separated) the JUnit
reports the step leaves in the folder ``ID/``: ``ctest.xml`` (ctest's), ``cases.xml``
(one case per command ``./dev`` ran itself, such as an example) or ``pytest-npN.xml``
(one pytest launch on N ranks; ranks R > 0 write ``pytest-npN.rankR.xml`` beside it). A
step that cannot run here writes ``ID/skipped`` instead, holding the reason. Every
other JUnit report in ``ID/`` counts too.

Within a step each test case counts once per (file, classname, name), with its worst
outcome over the ranks that ran it (failure or error, then skipped, then passed). A
step fails if a case failed; if a report it names is missing, or one of the ranks of a
pytest launch wrote none (a rank died), or a report is unreadable, or a report other
than pytest's holds no case (each counts as one failure); or if it has neither reports
nor the skipped file. A folder that ``steps`` does not list fails too.

Prints one row per step (passed, failed, skipped; or ``skipped: REASON``), then a
table per test file of the step ``python`` (the main Python launches), the failures,
and alone on the last line ``N passed, M failed`` (plus ``, K skipped`` if K > 0, and
``, S steps skipped`` if S > 0). Exits 1 if anything failed or no test ran at all, else
0. Standard library only.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

PASSED, SKIPPED, FAILED = 0, 1, 2
STEPS_FILE = "steps"
SKIP_FILE = "skipped"
# The step whose cases get a table per test file.
FILE_TABLE_STEP = "python"
REPORT_FILE = "(reports)"
PYTEST_REPORT = re.compile(r"^pytest-np(\d+)(?:\.rank(\d+))?\.xml$")
OTHER_REPORTS = ("ctest.xml", "cases.xml")


@dataclass
class Step:
    id: str
    title: str
    reports: list[str]
    skipped: str | None = None  # the reason, when the step did not run
    # (file, classname, name) -> worst outcome
    results: dict[tuple[str, str, str], int] = field(default_factory=dict)

    def record(self, key: tuple[str, str, str], result: int) -> None:
        self.results[key] = max(self.results.get(key, PASSED), result)

    def problem(self, report: str, what: str) -> None:
        self.record((REPORT_FILE, report, what), FAILED)

    def counts(self) -> tuple[int, int, int]:
        values = list(self.results.values())
        return values.count(PASSED), values.count(FAILED), values.count(SKIPPED)


def outcome(case: ET.Element) -> int:
    """Worst outcome recorded inside one <testcase>."""
    tags = {child.tag for child in case}
    if tags & {"failure", "error"}:
        return FAILED
    if "skipped" in tags:
        return SKIPPED
    # ctest marks tests it did not run with status="notrun"/"disabled", sometimes without <skipped>.
    status = case.get("status", "").lower()
    if status in ("fail", "failed"):
        return FAILED
    if status in ("notrun", "disabled", "skipped"):
        return SKIPPED
    return PASSED


def pytest_file(classname: str, name: str, file_attr: str | None) -> str:
    """The test file of a pytest case: its ``file`` attribute (xunit1), or the module
    path that its classname spells (``tests.python.test_array[.TestClass]``)."""
    if file_attr:
        return file_attr
    if not classname:  # collection errors: the name is the module path
        return name.replace(".", "/") + ".py" if name and "/" not in name else (name or "?")
    parts = classname.split(".")
    # Drop trailing class names (pytest collects classes named Test*).
    while len(parts) > 1 and parts[-1][:1].isupper():
        parts.pop()
    return "/".join(parts) + ".py"


def read_cases(path: Path):
    """(file, classname, name, outcome) for every test case of a JUnit file. The file of
    a pytest case is its test file; of any other, the report's name."""
    is_pytest = PYTEST_REPORT.match(path.name) is not None
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        classname = case.get("classname", "") or ""
        name = case.get("name", "") or ""
        file = pytest_file(classname, name, case.get("file")) if is_pytest else path.name
        yield file, classname, name, outcome(case)


def read_steps(directory: Path) -> list[Step]:
    """The steps that ./dev listed in ``steps``, in its order."""
    steps = []
    for line in (directory / STEPS_FILE).read_text().splitlines():
        if not line.strip():
            continue
        id_, reports, title = (line.split("\t") + ["", ""])[:3]
        steps.append(Step(id_.strip(), title.strip() or id_.strip(), reports.split()))
    return steps


def summarize_step(directory: Path, step: Step) -> None:
    """Reads the reports of one step (the folder ``directory/step.id``) into it."""
    folder = directory / step.id
    marker = folder / SKIP_FILE
    if marker.is_file():
        try:
            step.skipped = marker.read_text().strip() or "no reason given"
        except OSError as e:
            step.problem(SKIP_FILE, f"unreadable: {e}")
    paths = {name: folder / name for name in step.reports}
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_file() and (PYTEST_REPORT.match(path.name) or path.name in OTHER_REPORTS):
                paths.setdefault(path.name, path)

    launches: dict[int, set[int]] = {}
    read = 0
    for name, path in sorted(paths.items()):
        match = PYTEST_REPORT.match(name)
        if match:
            launches.setdefault(int(match.group(1)), set())
        if not path.is_file():
            if step.skipped is None and not match:
                step.problem(name, "missing: the step wrote no report")
            continue
        if match:
            launches[int(match.group(1))].add(int(match.group(2) or 0))
        try:
            cases = list(read_cases(path))
        except (ET.ParseError, OSError) as e:
            step.problem(name, f"unreadable: {e}")
            continue
        read += 1
        for file, classname, case, result in cases:
            step.record((file, classname, case), result)
        # A pytest launch may select nothing (arguments such as -k); ctest and ./dev may not.
        if not cases and not match:
            step.problem(name, "empty: the report holds no test case")

    # Every rank of an N-rank launch writes a report; one missing means a rank died.
    for nprocs, ranks in sorted(launches.items()):
        if step.skipped is not None and not ranks:
            continue
        if not ranks:
            step.problem(f"pytest-np{nprocs}.xml", "missing: the launch wrote no report")
            continue
        for rank in sorted(set(range(nprocs)) - ranks):
            missing = f"pytest-np{nprocs}.xml" if rank == 0 else f"pytest-np{nprocs}.rank{rank}.xml"
            step.problem(missing, f"missing: rank {rank} of the {nprocs}-rank launch wrote no report")
    if step.skipped is None and not read and not step.results:
        step.problem("", "no results: the step wrote neither a report nor the skipped file")


def table(header: list[str], rows: list[list[str]], left: tuple[int, ...] = (0,)) -> None:
    """Prints rows under a header: the columns ``left`` left-aligned, the others right."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        cells = [cell.ljust(w) if i in left else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))]
        print("  ".join(cells).rstrip())


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    directory = Path(argv[1])
    try:
        steps = read_steps(directory)
    except OSError as e:
        print(f"summarize: no list of steps in {directory} ({e}); ./dev test writes it", file=sys.stderr)
        print("0 passed, 1 failed")
        return 1
    listed = {step.id for step in steps}
    for folder in sorted(directory.iterdir()):
        if folder.is_dir() and folder.name not in listed:
            steps.append(Step(folder.name, f"{folder.name} (not in {STEPS_FILE})", []))
            steps[-1].problem("", f"the folder {folder.name} holds reports of a step that {STEPS_FILE} does not list")
    for step in steps:
        summarize_step(directory, step)

    rows, failures = [], []
    for step in steps:
        passed, failed, skipped = step.counts()
        rows.append([step.title, str(passed), str(failed), str(skipped),
                     f"skipped: {step.skipped}" if step.skipped is not None else ""])
        for (file, classname, name), result in sorted(step.results.items()):
            if result == FAILED:
                if file != REPORT_FILE:
                    failures.append(f"{step.id}: {file}::{name}")
                else:
                    failures.append(f"{step.id}/{classname}: {name}" if classname else f"{step.id}: {name}")
    if rows:
        table(["step", "passed", "failed", "skipped", ""], rows, left=(0, 4))

    per_file: dict[str, list[int]] = {}
    for step in steps:
        if step.id == FILE_TABLE_STEP:
            for (file, _, _), result in step.results.items():
                per_file.setdefault(file, [0, 0, 0])[result] += 1
    if per_file:
        print()
        table(["file", "passed", "failed", "skipped"],
              [[file, str(c[PASSED]), str(c[FAILED]), str(c[SKIPPED])] for file, c in sorted(per_file.items())])
    if failures:
        print("failed:")
        for f in failures:
            print(f"  {f}")

    passed, failed, skipped = (sum(step.counts()[i] for step in steps) for i in range(3))
    steps_skipped = sum(step.skipped is not None for step in steps)
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    if steps_skipped:
        line += f", {steps_skipped} step{'s' if steps_skipped > 1 else ''} skipped"
    print(line)
    return 1 if failed or passed + failed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
