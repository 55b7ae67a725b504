#!/usr/bin/env python3
"""Summarises the test reports of ``./dev test``.

    python tests/summarize.py build/reports

Reads ``ctest.xml`` (ctest's JUnit output; may be absent) and every
``pytest-np*.xml`` of the directory, including the per-rank ``pytest-npN.rankR.xml``
that ranks R > 0 of an N-rank launch write. Each test case counts once per
(file, classname, name), with its worst outcome over the ranks that ran it
(failure or error, then skipped, then passed). A launch whose rank reports are
incomplete (a rank died before writing one; or one of the launches of ``./dev``
below the largest is missing altogether) or unreadable counts as a failure.

Prints a short table per file and, alone on the last line,
``N passed, M failed`` (plus ``, K skipped`` if K > 0). Exits 1 if anything
failed or no test ran at all, else 0. Standard library only.
"""

from __future__ import annotations

import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

PASSED, SKIPPED, FAILED = 0, 1, 2
NAMES = {PASSED: "passed", SKIPPED: "skipped", FAILED: "failed"}
CTEST_FILE = "C++ (ctest)"
REPORT_FILE = "(reports)"
PYTEST_REPORT = re.compile(r"^pytest-np(\d+)(?:\.rank(\d+))?\.xml$")
# The rank counts of ./dev's Python launches, in the order it makes them (python_tests).
LAUNCHES = (1, 2, 3, 4, 5, 6, 7, 8, 13, 16)


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


def read_cases(path: Path, is_ctest: bool):
    """(file, classname, name, outcome) for every test case of a JUnit file."""
    root = ET.parse(path).getroot()
    for case in root.iter("testcase"):
        classname = case.get("classname", "") or ""
        name = case.get("name", "") or ""
        file = CTEST_FILE if is_ctest else pytest_file(classname, name, case.get("file"))
        yield file, classname, name, outcome(case)


def summarize(directory: Path):
    results: dict[tuple[str, str, str], int] = {}

    def record(key, result):
        results[key] = max(results.get(key, PASSED), result)

    launches: dict[int, set[int]] = {}
    files = []
    ctest = directory / "ctest.xml"
    if ctest.is_file():
        files.append((ctest, True))
    for path in sorted(directory.glob("pytest-np*.xml")):
        match = PYTEST_REPORT.match(path.name)
        if not match:
            continue
        nprocs, rank = int(match.group(1)), int(match.group(2) or 0)
        launches.setdefault(nprocs, set()).add(rank)
        files.append((path, False))

    for path, is_ctest in files:
        try:
            for file, classname, name, result in read_cases(path, is_ctest):
                record((file, classname, name), result)
        except (ET.ParseError, OSError) as e:
            record((REPORT_FILE, path.name, f"unreadable: {e}"), FAILED)

    # Every rank of an N-rank launch writes a report; one missing means a rank died.
    # ./dev makes the LAUNCHES in turn: one missing below the largest present means a
    # whole launch died.
    for nprocs in LAUNCHES:
        if nprocs < max(launches, default=0):
            launches.setdefault(nprocs, set())
    for nprocs, ranks in sorted(launches.items()):
        for rank in sorted(set(range(nprocs)) - ranks):
            missing = f"pytest-np{nprocs}.xml" if rank == 0 else f"pytest-np{nprocs}.rank{rank}.xml"
            record((REPORT_FILE, missing, "missing: the rank wrote no report"), FAILED)
    return results


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    directory = Path(argv[1])
    if not directory.is_dir():
        print(f"summarize: {directory} is not a directory", file=sys.stderr)
        results = {}
    else:
        results = summarize(directory)

    per_file: dict[str, list[int]] = {}
    failures = []
    for (file, classname, name), result in sorted(results.items()):
        per_file.setdefault(file, [0, 0, 0])[result] += 1
        if result == FAILED:
            failures.append(f"{file}::{name}" if file != REPORT_FILE else f"{classname}: {name}")

    totals = [sum(counts[i] for counts in per_file.values()) for i in (PASSED, SKIPPED, FAILED)]
    if per_file:
        width = max(len("file"), *(len(f) for f in per_file))
        print(f"{'file':<{width}}  {'passed':>6}  {'failed':>6}  {'skipped':>7}")
        for file, counts in sorted(per_file.items()):
            print(f"{file:<{width}}  {counts[PASSED]:>6}  {counts[FAILED]:>6}  {counts[SKIPPED]:>7}")
    if failures:
        print("failed:")
        for f in failures:
            print(f"  {f}")
    passed, skipped, failed = totals
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed or passed + failed == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
