"""docs/architecture.md, the map of the code, stays true: its layer table is the layers
CMakeLists.txt declares (each dm_add_layer call: the layer, the layer below it, its
public headers), one per folder under src/, in the order tests/python/test_layers.py
checks includes by; its transport table is the registry of src/exchange/transports.cpp;
its file counts add up; every file it names exists and every link on it leads
somewhere; README.md and docs/concepts.md link to it, and nothing cites another map.
Serial: it reads files only."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAP = ROOT / "docs" / "architecture.md"
# Where a path the map names may start: the repository, or, as the code's own includes
# and imports name files, src/ (exchange/plan.hpp) and python/ (datamotion/shift.py).
BASES = [ROOT, ROOT / "src", ROOT / "python"]
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def map_text():
    return MAP.read_text()


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table(text, first_header):
    """The rows (lists of cells) of the table whose header's first cell is `first_header`."""
    lines = FENCE.sub("", text).splitlines()
    for i, line in enumerate(lines):
        if line.startswith("|") and cells(line)[0] == first_header:
            rows = []
            for row in lines[i + 2:]:  # past the header and its |---| line
                if not row.startswith("|"):
                    break
                rows.append(cells(row))
            return rows
    raise AssertionError(f"{MAP.name} has no table headed '{first_header}'")


def code_names(cell):
    return re.findall(r"`([^`]+)`", cell)


def without_comments(cmake):
    """CMake text without its comments (a # outside a quoted argument to the line's end)."""
    out = []
    for line in cmake.splitlines():
        quoted = False
        for k, ch in enumerate(line):
            if ch == '"' and (k == 0 or line[k - 1] != "\\"):
                quoted = not quoted
            elif ch == "#" and not quoted:
                line = line[:k]
                break
        out.append(line)
    return "\n".join(out)


def cmake_layers():
    """(layer, below or None, public headers, sources) of each dm_add_layer call, in order."""
    text = without_comments((ROOT / "CMakeLists.txt").read_text())
    variables = {m.group(1): m.group(2).split() for m in re.finditer(r"^\s*set\((\w+)\s+([^)]*)\)", text, re.M)}
    layers = []
    for m in re.finditer(r"^\s*dm_add_layer\(([^)]*)\)", text, re.M):
        words = []
        for word in m.group(1).split():
            ref = re.fullmatch(r"\$\{(\w+)\}", word)
            words += variables.get(ref.group(1), [word]) if ref else [word]
        name, args, key = words[0], {"BELOW": [], "HEADERS": [], "SOURCES": []}, None
        for word in words[1:]:
            if word in args:
                key = word
            else:
                args[key].append(word)
        layers.append((name, args["BELOW"][0] if args["BELOW"] else None, args["HEADERS"], args["SOURCES"]))
    assert layers, "no dm_add_layer call found in CMakeLists.txt"
    return layers


def map_layers():
    """(layer, folder, below or None, public headers) of each row of the map's layer table."""
    rows = []
    for row in table(map_text(), "layer"):
        below = code_names(row[2])
        headers = [h[len("include/"):] if h.startswith("include/") else h for h in code_names(row[3])]
        rows.append((row[0].strip("`"), row[1].strip("`"), below[0] if below else None, headers))
    return rows


@pytest.mark.parallel(nprocs=[1])
def test_the_layer_table_is_what_cmake_builds():
    declared = [(name, below, headers) for name, below, headers, _ in cmake_layers()]
    mapped = [(name, below, headers) for name, _, below, headers in map_layers()]
    assert mapped == declared, (
        "docs/architecture.md's layer table (layer, built on, public headers) differs from CMakeLists.txt's "
        f"dm_add_layer calls:\n  map:   {mapped}\n  cmake: {declared}")


@pytest.mark.parallel(nprocs=[1])
def test_every_layer_is_its_folder_under_src_and_every_folder_a_layer():
    folders = sorted(p.name for p in (ROOT / "src").iterdir() if p.is_dir())
    layers = map_layers()
    assert sorted(name for name, *_ in layers) == folders, f"layers {[n for n, *_ in layers]}, src/ holds {folders}"
    wrong = [f"{name}: folder {folder}" for name, folder, *_ in layers if folder != f"src/{name}/"]
    assert not wrong, "\n".join(wrong)
    outside = [f"{name}: {source}" for name, _, _, sources in cmake_layers() for source in sources
               if not source.startswith(f"src/{name}/")]
    assert not outside, "sources compiled into a layer outside its folder:\n" + "\n".join(outside)


@pytest.mark.parallel(nprocs=[1])
def test_the_include_rule_knows_the_same_layers():
    tree = ast.parse((ROOT / "tests" / "python" / "test_layers.py").read_text())
    lists = {node.targets[0].id: ast.literal_eval(node.value) for node in tree.body
             if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
             and node.targets[0].id in ("LAYERS", "CAPABILITIES")}
    layers = map_layers()
    foundation = [name for name, _, below, _ in layers if below != "exchange"]
    capabilities = [name for name, _, below, _ in layers if below == "exchange"]
    assert lists.get("LAYERS") == foundation, f"test_layers.py LAYERS {lists.get('LAYERS')}, the map {foundation}"
    assert lists.get("CAPABILITIES") == capabilities, (
        f"test_layers.py CAPABILITIES {lists.get('CAPABILITIES')}, the map {capabilities}")
    chain = [below for _, _, below, _ in layers if below != "exchange"]
    assert chain == [None] + foundation[:-1], f"the foundation layers are not a chain: {foundation} on {chain}"


@pytest.mark.parallel(nprocs=[1])
def test_the_transport_table_is_the_registry():
    source = (ROOT / "src" / "exchange" / "transports.cpp").read_text()
    registered = [(name, selectable == "true")
                  for name, selectable in re.findall(r'\{"(\w+)",\s*[\w:<>]+,\s*(true|false)\}', source)]
    assert registered, "no registry rows found in src/exchange/transports.cpp"
    mapped = [(row[0].strip("`"), row[2] == "yes") for row in table(map_text(), "registered name")]
    assert mapped == registered, f"the map's transports (name, selectable) {mapped}, the registry {registered}"


@pytest.mark.parallel(nprocs=[1])
def test_the_memory_count_is_the_files_listed():
    rows = table(map_text(), "role")
    files = {name for row in rows for name in code_names(row[1]) if "/" in name}
    stated = re.search(r"That is (\d+) files", map_text())
    assert stated, "the map no longer says how many files a memory kind touches"
    assert int(stated.group(1)) == len(files), f"the map says {stated.group(1)} files, its table lists {len(files)}"


def exists(name):
    if "*" in name:
        return any(any(base.glob(name)) for base in BASES)
    return any((base / name).exists() for base in BASES)


@pytest.mark.parallel(nprocs=[1])
def test_every_file_the_map_names_exists():
    text = FENCE.sub("", map_text())
    names = sorted({name for name in re.findall(r"`([^`\s]+)`", text)
                    if "/" in name and "<" not in name and re.fullmatch(r"[\w.*/-]+", name)})
    assert len(names) > 50, f"only {len(names)} paths found on the map"
    missing = [name for name in names if not exists(name)]
    assert not missing, "docs/architecture.md names files that do not exist:\n" + "\n".join(missing)


def anchors(page):
    """The anchors of a page's headings, as GitHub makes them."""
    found, seen = set(), {}
    for line in FENCE.sub("", page.read_text()).splitlines():
        m = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).replace("`", "").lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        found.add(slug if n == 0 else f"{slug}-{n}")
    return found


@pytest.mark.parallel(nprocs=[1])
def test_every_link_on_the_map_leads_somewhere():
    broken = []
    for target in re.findall(r"\[[^\]]*\]\(([^)\s]+)\)", FENCE.sub("", map_text())):
        if re.match(r"\w+://", target):
            continue
        path, _, anchor = target.partition("#")
        page = (MAP.parent / path).resolve() if path else MAP
        if not page.exists():
            broken.append(f"{target}: no such file")
        elif anchor and page.suffix == ".md" and anchor not in anchors(page):
            broken.append(f"{target}: no such heading in {page.name}")
    assert not broken, "\n".join(broken)


@pytest.mark.parallel(nprocs=[1])
def test_the_map_is_linked_and_the_only_one_cited():
    for page, link in [(ROOT / "README.md", "(docs/architecture.md)"), (ROOT / "docs" / "concepts.md", "(architecture.md)")]:
        assert link in page.read_text(), f"{page.relative_to(ROOT)} does not link to docs/architecture.md"
    cited = "ARCHITECTURE" + ".md"  # the design notes outside the repository, which it cannot link to
    folders = ["src", "include", "python", "tests", "docs", "cmake", "fortran", "examples", "benchmarks"]
    files = [ROOT / f for f in ("CMakeLists.txt", "README.md", "dev")] + [
        p for folder in folders for p in (ROOT / folder).rglob("*")
        if p.is_file() and p.suffix not in (".pyc", ".so", ".png") and p != Path(__file__).resolve()]
    citing = [str(p.relative_to(ROOT)) for p in files if cited in p.read_text(errors="replace")]
    assert not citing, f"files that cite {cited} where the map is docs/architecture.md:\n" + "\n".join(citing)


# What may read an axis's block size and source, or name a distribution kind, outside
# src/layout: the Walker-Otto schedules (block-cyclic axes only, asked first) and the
# binding that shows them. DM_DIST_BLOCK, the default kind, may be named anywhere.
BLOCK_READERS = {"src/redist/plan.cpp", "python/bindings/grid.cpp"}


def without_cpp_comments(text):
    return re.sub(r"//[^\n]*|/\*.*?\*/", "", text, flags=re.S)


@pytest.mark.parallel(nprocs=[1])
def test_capabilities_ask_the_axis_map_not_the_kind():
    sources = [p for folder in ("src", "python/bindings") for p in (ROOT / folder).rglob("*.[ch]pp")
               if "src/layout/" not in p.as_posix()]
    readers, namers = set(), set()
    for path in sources:
        code = without_cpp_comments(path.read_text())
        name = str(path.relative_to(ROOT))
        if re.search(r"\.(block|src)\(\)", code):
            readers.add(name)
        if re.search(r"\bDM_DIST_(?!BLOCK\b)\w+", code):
            namers.add(name)
    assert readers <= BLOCK_READERS, f"read an AxisMap's block() or src(): {sorted(readers - BLOCK_READERS)}"
    assert not namers, f"name a distribution kind instead of asking the AxisMap: {sorted(namers)}"
    assert "block_cyclic()" in (ROOT / "src/redist/plan.cpp").read_text(), "the schedules no longer ask first"
