"""Every numbered data table and figure of the seeds beside ours, item by item.

An :class:`Item` names one table or figure of a seed paper, the kernels of ours it
needs, and a function that returns its :class:`Row` s: one quantity each, ours and
the paper's in the same unit, so that the report shows their ratio. Where the paper
prints no number for a figure, its row quotes the number the paper derives
elsewhere (a table's fit, an equation) and says so, or carries the paper's
statement with no number and no ratio. The rows also go into results.csv.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from typing import Callable, Dict, List, Mapping, Optional, Sequence

from .format import Entry, fmt, num, table


@dataclass
class Row:
    """One quantity of an item: ours and the paper's, in ``unit``; ``note`` says where
    either comes from or why they are not compared (then ``compared`` is False)."""

    quantity: str
    ours: Optional[float]
    paper: Optional[float]
    unit: str
    note: str = ""
    compared: bool = True

    @property
    def ratio(self) -> Optional[float]:
        ours, paper = num(self.ours), num(self.paper)
        if not self.compared or ours is None or paper is None or paper == 0:
            return None
        if ours != 0 and (ours > 0) != (paper > 0):  # quantities of opposite signs have no meaningful ratio
            return None
        return ours / paper


@dataclass(frozen=True)
class Item:
    """One numbered data table or figure of a seed."""

    seed: str  # the seed module's short name: cm5, paragon, pshift, redist, cvl
    name: str  # as the paper numbers it: "Table 1", "Figure 11"
    title: str  # what it shows
    kernels: frozenset  # kernels of ours it is drawn from: its section appears when one has rows
    rows: Callable[[Sequence[Entry]], List[Row]]
    machine: str  # the paper's machine for this item
    differs: str = ""  # conditions that differ beyond machine and ranks

    @property
    def section_id(self) -> str:
        return f"item-{self.seed}-" + re.sub(r"[^a-z0-9]+", "-", self.name.lower()).strip("-")

    def present(self, entries: Sequence[Entry]) -> bool:
        return any(e.kernel in self.kernels and e.rows for e in entries)


def find(entries: Sequence[Entry], kernel: str, **params) -> List[Entry]:
    """Entries of ``kernel`` with rows whose params include ``params``."""
    return [e for e in entries if e.kernel == kernel and e.rows
            and all(e.params.get(k) == v for k, v in params.items())]


def one(entries: Sequence[Entry], kernel: str, **params) -> Optional[Entry]:
    found = find(entries, kernel, **params)
    return found[0] if found else None


def pick(entry: Optional[Entry], field: str = "median_us", **where) -> Optional[float]:
    """``field`` of the entry's first row matching ``where`` (numbers compared as numbers)."""
    if entry is None:
        return None
    for r in entry.rows:
        if all((num(r.get(k)) == num(v)) if num(v) is not None else r.get(k) == v for k, v in where.items()):
            return num(r.get(field))
    return None


def _ratio_text(row: Row) -> str:
    ratio = row.ratio
    if ratio is None:
        return "—"
    return fmt(ratio)


def _value(value: Optional[float]) -> str:
    return "—" if num(value) is None else fmt(value)


def item_section(item: Item, entries: Sequence[Entry], conditions: str) -> str:
    """The item's ``<section>``: heading, the conditions, the rows with their ratios; ""
    when none of our rows is for this item (a rank of subgrid not measured, say)."""
    rows = item.rows(entries)
    if not rows:
        return ""
    body = [(html.escape(r.quantity), _value(r.ours), _value(r.paper), html.escape(r.unit), _ratio_text(r),
             html.escape(r.note)) for r in rows]
    differs = f" {html.escape(item.differs)}" if item.differs else ""
    text = (f"<p class=conditions>Ours: {conditions}. The paper: {html.escape(item.machine)}.{differs}</p>"
            + table(["quantity", "ours", "the paper", "unit", "ours / paper", "note"], body,
                    f"{html.escape(item.name)}: ours beside the paper's numbers", numeric_from=1))
    return (f'<section id="{item.section_id}" class=item><h4>{html.escape(item.name)}: {html.escape(item.title)}'
            f"</h4>{text}</section>")


def items_section(seed_id: str, items: Sequence[Item], entries: Sequence[Entry], conditions: str) -> str:
    """A seed's items that have data, each in its section, under one heading."""
    parts = [item_section(i, entries, conditions) for i in items if i.present(entries)]
    parts = [p for p in parts if p]
    if not parts:
        return ""
    return (f'<section id="{seed_id}-items"><h3>Every numbered table and figure beside the paper</h3>'
            "<p>One quantity a row, ours and the paper's in the same unit, and their ratio (— where the paper "
            "prints no number or ours is not comparable, the note says why).</p>" + "\n".join(parts) + "</section>")


def csv_rows(items: Sequence[Item], entries: Sequence[Entry]) -> List[Dict[str, object]]:
    """results.csv lines of the paper's numbers: one per row of every present item."""
    out = []
    for item in items:
        for r in item.rows(entries) if item.present(entries) else []:
            out.append({"kernel": f"paper:{item.seed}", "params": f"item={item.name};quantity={r.quantity}",
                        "item": item.name, "quantity": r.quantity, "unit": r.unit, "ours": num(r.ours),
                        "paper": num(r.paper), "ratio": r.ratio, "paper_machine": item.machine, "note": r.note})
    return out


def sharing(results: Mapping) -> Optional[tuple]:
    """(ranks on a host, cores) when ranks outnumber the cores of a host, else None:
    from the provenance, or from the warning of documents that predate it."""
    prov = results.get("provenance") if isinstance(results.get("provenance"), Mapping) else {}
    ranks, cores = num(prov.get("ranks_per_host")), num(prov.get("cores_per_host"))
    if ranks is not None and cores is not None:
        return (int(ranks), int(cores)) if ranks > cores else None
    for w in results.get("warnings") or []:
        m = re.search(r"(\d+) ranks share (\d+) cores", str(w))
        if m:
            return int(m.group(1)), int(m.group(2))
    return None


def conditions_text(results: Mapping) -> str:
    """Our conditions in words: ranks, hosts and whether ranks share cores."""
    prov = results.get("provenance") if isinstance(results.get("provenance"), Mapping) else {}
    ranks = prov.get("ranks", "?")
    hosts = prov.get("hosts") if isinstance(prov.get("hosts"), list) else []
    where = f"{ranks} ranks on {len(hosts) or 1} host{'s' if len(hosts) > 1 else ''}"
    shared = sharing(results)
    if shared:
        return (f"{where}, {shared[0]} ranks sharing {shared[1]} cores ({shared[0] / shared[1]:.3g} ranks per core: "
                "rates that add over ranks are not those of separate processors)")
    cores = num(prov.get("cores_per_host"))
    return where + (f", {int(cores)} cores a host, at most one rank per core" if cores is not None else "")
