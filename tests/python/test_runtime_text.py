"""The library formats and reads its text without iostreams or locales: describe(),
volume, error messages and cost model files go through std::to_chars,
std::from_chars and std::string (src/core/text.hpp). An extension module whose
toolchain links libstdc++ statically crashed in ostream's number formatting when
NumPy had loaded the system libstdc++ first (its locale facets came from the other
runtime); ``./dev test`` builds such an extension and runs the text tests in it."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Everything compiled into the library, the C API and the Python extension.
FOLDERS = ["src", "include", "python/bindings", "fortran"]
SUFFIXES = {".c", ".cpp", ".cc", ".h", ".hpp"}
IOSTREAMS = re.compile(
    r"#\s*include\s*<(sstream|iostream|istream|ostream|fstream|iomanip|streambuf|locale|syncstream|spanstream)>"
    r"|\bstd::(basic_)?(i|o)?(string|f)?stream\b|\bstd::(cout|cerr|clog|cin|endl|locale|use_facet|"
    r"setprecision|setw|stringbuf|filebuf)\b|\b(i|o)?stringstream\b|\b(i|o)fstream\b")


def sources():
    return sorted(p for folder in FOLDERS for p in (ROOT / folder).rglob("*") if p.suffix in SUFFIXES)


@pytest.mark.parallel(nprocs=[1])
def test_no_iostreams_in_the_library():
    paths = sources()
    assert len(paths) > 50, f"only {len(paths)} source files found under {FOLDERS}"
    found = [f"{path.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}: {m.group(0)}"
             for path in paths for text in [path.read_text()] for m in IOSTREAMS.finditer(text)]
    assert not found, "iostreams in the library (use core/text.hpp):\n" + "\n".join(found)


@pytest.mark.parallel(nprocs=[1])
def test_the_pattern_finds_iostreams():
    caught = ["#include <sstream>", "# include <iostream>", "std::ostringstream s;", "std::cerr << x",
              "std::istringstream in(text);", "std::ifstream file(path);", "s << std::setprecision(3)",
              "std::locale::classic()", "std::ostream &out"]
    allowed = ["#include <string_view>", "std::to_chars(buf, end, x)", "std::string stream_name;",
               "upstream", "#include <cstdio>", "std::from_chars(a, b, v)"]
    assert all(IOSTREAMS.search(s) for s in caught), [s for s in caught if not IOSTREAMS.search(s)]
    assert not any(IOSTREAMS.search(s) for s in allowed), [s for s in allowed if IOSTREAMS.search(s)]
