"""An offline report of measurements: PNG plots, HTML tables and a CSV, a section per seed.

:func:`write_report` turns one or more ``datamotion.bench/1`` results documents
(what ``datamotion bench`` and the experiments write, see docs/bench.md) into a
folder that opens in any browser without a network: ``index.html`` (inline CSS,
no JavaScript), one PNG per plot next to it, ``results.csv`` (every row of every
kernel in long format, without the raw samples) and ``model.json`` (the fits
drawn). Each seed paper has a section (:data:`SEEDS`), where each of our plots
stands beside the seed's own numbers. See docs/report.md.

Nothing here loads MPI: a report can be written anywhere from the JSON files.
Sizes are in bytes, times in microseconds unless a column says otherwise,
bandwidths in MB/s (10**6 bytes per second).
"""

from __future__ import annotations

import csv
import html
import json
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from ..._files import atomic_write
from ..constants import FIT_MAX_RELATIVE_RMSE, FIT_MIN_R2, RESULTS_SCHEMA
from ..fit import fit_results, flagged_fits, noise_notes
from ..results import check_model, check_results, load_results
from . import cm5, cm5_items, cvl, paragon, predicted, pshift, redist
from .compare import conditions_text, csv_rows, items_section, sharing
from .format import Entry, make_entries, num, params_text, table
from .plots import Plots

__all__ = ["write_report", "merge_results", "load_folder", "SEEDS", "KNOWN_KERNELS", "ITEMS"]

SEEDS = (cm5, paragon, pshift, redist, cvl)
"""The seed papers in report order. Each module names its ``TITLE``, ``SEED`` (the
paper and its machine), the ``KERNELS`` it draws, and ``sections(entries, plots)``:
the HTML of its subsections, each a ``<section>`` with an ``<h3>``."""

KNOWN_KERNELS = frozenset().union(*(seed.KERNELS for seed in SEEDS)) | predicted.KERNELS
"""Kernels some seed section draws; entries of any other kernel are listed in the
"other kernels" table."""

SEED_ITEMS = {cm5: cm5_items.ITEMS, paragon: paragon.ITEMS, pshift: pshift.ITEMS, redist: redist.ITEMS,
              cvl: cvl.ITEMS}
"""Each seed's numbered data tables and figures (44 in all), each beside ours in its own section."""
ITEMS = tuple(item for items in SEED_ITEMS.values() for item in items)

SUITE_KERNELS = {
    "pt2pt": ("pingpong", "exchange", "stream", "bidir", "pingpong_fine", "distance"),
    "collectives": cm5.COLLECTIVE_KERNELS, "local": ("memcopy", "vector"), "patterns": cm5.PATTERN_KERNELS,
    "cm5": cm5.EXPERIMENT_KERNELS, "paragon": paragon.PARAGON_KERNELS, "pshift": tuple(pshift.KERNELS),
    "redist": tuple(redist.KERNELS), "cvl": tuple(cvl.KERNELS), "gauss": ("gauss_elimination",),
}
"""The kernels each suite of ``datamotion bench`` writes: a seed's heading names the
suites whose kernels it shows, and names the paper alone only when the paper's own
suite ran."""
OWN_SUITE = {cm5: "cm5", paragon: "paragon", pshift: "pshift", redist: "redist", cvl: "cvl"}


def _provenance_section(results: Mapping[str, Any]) -> str:
    p = results.get("provenance") if isinstance(results.get("provenance"), Mapping) else {}

    def get(*keys):
        values = [p.get(k) for k in keys if p.get(k) not in (None, "")]
        return ", ".join(html.escape(str(v)) for v in values) if values else "—"

    clock = []
    if num(p.get("wtick_s")) is not None:
        clock.append(f"MPI_Wtick {num(p['wtick_s']):.3g} s")
    if num(p.get("steady_clock_resolution_s")) is not None:
        clock.append(f"steady_clock {num(p['steady_clock_resolution_s']):.3g} s")
    hosts = p.get("hosts")
    hosts_text = html.escape(", ".join(str(h) for h in hosts)) if isinstance(hosts, list) and hosts else get("hosts")
    warnings = results.get("warnings") if isinstance(results.get("warnings"), list) else []
    warn_text = _warnings_html([str(w) for w in warnings]) if warnings else "none"
    quick = results.get("quick")
    validated = results.get("validated")
    rows = [
        ("datamotion", f"{get('version')} (git {get('git_revision')}, {get('build_type')} build, {get('compiler')})"),
        ("MPI library", get("mpi_library")),
        ("MPI standard", get("mpi_standard")),
        ("ranks", get("ranks")),
        ("hosts", hosts_text),
        ("thread level", get("thread_level")),
        ("clock resolution", ", ".join(clock) or "—"),
        ("Python", f"{get('python')} (mpi4py {get('mpi4py')}, numpy {get('numpy')})"),
        ("run", ("quick" if quick else "full" if quick is False
                 else "quick and full runs" if results.get("sources") else "—")
         + (", every received byte validated" if validated else ", not validated" if validated is not None else "")),
        ("warnings", warn_text),
    ]
    sources = results.get("sources")
    if isinstance(sources, Mapping) and sources:
        rows.insert(-1, ("files", _sources_html(sources)))
    env = p.get("environment")
    if isinstance(env, Mapping) and env:
        rows.append(("environment", "<br>".join(f"<code>{html.escape(str(k))}={html.escape(str(v))}</code>"
                                                for k, v in sorted(env.items()))))
    body = "\n".join(f"<tr><th scope=row>{k}</th><td>{v}</td></tr>" for k, v in rows)
    return f'<section id="provenance"><h2>Provenance</h2><table class=prov>{body}</table></section>'



def _warnings_html(warnings: Sequence[str], shown: int = 5) -> str:
    """The first few warnings as a list, the rest folded away (a long run on a shared
    machine gathers many)."""
    items = ["<li>" + html.escape(w) + "</li>" for w in warnings]
    out = "<ul class=warnings>" + "".join(items[:shown]) + "</ul>"
    if len(items) > shown:
        out += (f"<details><summary>{len(items) - shown} more</summary><ul class=warnings>"
                + "".join(items[shown:]) + "</ul></details>")
    return out


def _sources_html(sources: Mapping[str, Any]) -> str:
    """One line per merged file: its ranks, thread level and whether it was a quick run."""
    lines = []
    for name, prov in sources.items():
        prov = prov if isinstance(prov, Mapping) else {}
        lines.append(f"<code>{html.escape(str(name))}</code>: {html.escape(str(prov.get('ranks', '—')))} ranks, "
                     f"thread level {html.escape(str(prov.get('thread_level', '—')))}")
    return "<br>".join(lines)


def _other_section(entries: Sequence[Entry]) -> str:
    others = [e for e in entries if e.kernel not in KNOWN_KERNELS]
    if not others:
        return ""
    rows = [(html.escape(e.kernel), f"<code>{html.escape(params_text(e.params)) or '—'}</code>", str(e.nrows))
            for e in others]
    return ('<section id="other"><h2>Other kernels</h2><p>Kernels this report has no section for; their rows are '
            "in results.csv.</p>" + table(["kernel", "params", "rows"], rows, numeric_from=2) + "</section>")


def _named_items(named: Sequence[Tuple[str, Sequence[str]]]) -> str:
    """``<li>`` per fit: its name in bold, then its lines."""
    return "".join(f"<li><b>{html.escape(name)}</b>: {html.escape('; '.join(lines))}</li>" for name, lines in named)


def _quality_part(fitted: Mapping[str, Any]) -> str:
    """The fits below the quality threshold, each named with its reasons, in red, then (folded) what
    the measured spreads say beside the flags; "" when there is neither."""
    flagged, noted = flagged_fits(fitted), noise_notes(fitted)
    out = ""
    if flagged:
        out += (f"<div class=bad><h3>Fits below the quality threshold</h3><p>{len(flagged)} fit(s) do not describe "
                "their measurements well enough to be trusted as they stand (a range of sizes off the fit beyond "
                "their measured spread, times too disturbed to judge, or a bandwidth above memcpy's; without "
                f"spreads: r² below {FIT_MIN_R2:g}, relative RMSE above {100 * FIT_MAX_RELATIVE_RMSE:.0f} % or a "
                f"parameter the data wanted negative):</p><ul>{_named_items(flagged)}</ul></div>")
    if noted:
        out += (f"<details><summary>{len(noted)} fit(s) with notes on disturbed or noisy times, judged against "
                f"their measured spread</summary><ul>{_named_items(noted)}</ul></details>")
    return out


def _notes_section(fitted: Mapping[str, Any]) -> str:
    notes = [str(n) for n in fitted.get("notes", []) if n] if isinstance(fitted.get("notes"), list) else []
    notes = [n for n in notes if "no model for kernel" not in n]  # kernels drawn without a fit, by design
    quality = _quality_part(fitted)
    if not notes and not quality:
        return ""
    items = "".join(f"<li>{html.escape(n)}</li>" for n in notes)
    listed = (f"<details><summary>{len(notes)} note(s) from the model fit</summary><ul>{items}</ul></details>"
              if notes else "")
    return f'<section id="notes"><h2>Fitting notes</h2>{quality}{listed}</section>'


# ---------------------------------------------------------------------------
# CSV and the page
# ---------------------------------------------------------------------------

_CSV_FIRST = ("bytes", "ranks", "median_us", "p05_us", "p95_us", "mean_us", "min_us", "ci95_lo_us", "ci95_hi_us",
              "reps")


def _csv_fields(row: Mapping[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key, value in row.items():
        if key == "ci95_us":
            if isinstance(value, (list, tuple)) and len(value) == 2:
                out["ci95_lo_us"], out["ci95_hi_us"] = value
        elif value is None or isinstance(value, (bool, int, float, str)):
            out[str(key)] = value
    return out


def _write_csv(entries: Sequence[Entry], path: str) -> int:
    """Every row of every entry, then the paper's numbers of every item shown (kernel
    ``paper:<seed>``, with ``item``, ``quantity``, ``unit``, ``ours``, ``paper``, ``ratio``)."""
    lines = [(e.kernel, params_text(e.params), _csv_fields(r)) for e in entries for r in e.rows]
    lines += [(r.pop("kernel"), r.pop("params"), r) for r in csv_rows(ITEMS, entries)]
    seen: Dict[str, None] = {}
    for _, _, fields in lines:
        for key in fields:
            seen.setdefault(key, None)
    header = [k for k in _CSV_FIRST if k in seen] + [k for k in seen if k not in _CSV_FIRST]
    with atomic_write(path, newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "params"] + header)
        for kernel, params, fields in lines:
            w.writerow([kernel, params] + ["" if fields.get(k) is None else fields[k] for k in header])
    return len(lines)


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;
padding:0 1em;color:#1d1d1f;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{border-bottom:1px solid #d0d0d0;padding-bottom:.2em;margin-top:2em}
nav{margin:.5em 0 1.5em}nav a{margin-right:1em}
table{border-collapse:collapse;margin:1em 0;font-size:.92em}
th,td{border:1px solid #d0d0d0;padding:.25em .6em;vertical-align:top;text-align:left}
thead th{background:#f2f2f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.prov th{background:#f7f7f9;white-space:nowrap}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3em 0}
.ci{color:#777;font-size:.9em}ul.warnings{margin:0;padding-left:1.2em}
.plots{display:grid;grid-template-columns:repeat(auto-fill,minmax(520px,1fr));gap:1em}
figure{margin:0}figure img{max-width:100%;height:auto;border:1px solid #e4e4e4}
figcaption{font-size:.88em;color:#444}
.beside{display:grid;grid-template-columns:1fr 1fr;gap:1em;align-items:start}
.beside .seed{background:#faf8f2;padding:0 .6em}h4{margin:.4em 0}
.bad,td.bad{color:#b00020;font-weight:600}code{font-size:.9em}footer{margin-top:3em;color:#777;font-size:.85em}
"""


def _page(title: str, sections: Sequence[Tuple[str, str, str]], files: Sequence[str]) -> str:
    nav = " ".join(f'<a href="#{sid}">{name}</a>' for sid, name, body in sections if body)
    body = "\n".join(b for _, _, b in sections if b)
    return (f"<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
            f'<meta name=viewport content="width=device-width, initial-scale=1">'
            f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(title)}</h1><nav>{nav}</nav>\n{body}\n"
            f"<footer>{len(files)} plots; every row is in <a href=results.csv>results.csv</a>, the fits in "
            f"<a href=model.json>model.json</a>.</footer></body></html>\n")




def merge_results(docs: Sequence[Tuple[str, Mapping[str, Any]]]) -> dict:
    """One results document from several ``(name, document)`` pairs: every entry, in
    order, each remembering its ``source``; the first document's provenance, and
    every document's provenance under ``sources``; each warning once, prefixed by its
    file (and counted when repeated); ``quick`` None when quick and full runs mix. Local."""
    if not docs:
        raise ValueError("no results documents to report")
    for name, doc in docs:
        check_results(doc, name)
    if len(docs) == 1:
        return dict(docs[0][1])
    results, warnings = [], {}
    for name, doc in docs:
        results += [{**entry, "source": name} for entry in doc["results"] if isinstance(entry, Mapping)]
        for w in doc.get("warnings", []):
            if isinstance(w, str):
                warnings[f"{name}: {w}"] = warnings.get(f"{name}: {w}", 0) + 1
    first = docs[0][1]
    quick = {bool(doc.get("quick")) for _, doc in docs}
    return {"schema": RESULTS_SCHEMA, "provenance": first.get("provenance"),
            "quick": quick.pop() if len(quick) == 1 else None,  # None: some quick runs, some full
            "validated": all(doc.get("validated") for _, doc in docs),
            "warnings": [w if n == 1 else f"{w} (x{n})" for w, n in warnings.items()],
            "sources": {name: doc.get("provenance") for name, doc in docs}, "results": results}


def load_folder(path: str) -> dict:
    """The results of a JSON file, or of every results document (``*.json`` with
    schema ``datamotion.bench/1``) in a folder, merged by :func:`merge_results`.
    Local.

    Raises:
        ValueError: if the file is not a results document, or the folder holds none.
    """
    if not os.path.isdir(path):
        return load_results(path)
    docs = []
    for name in sorted(os.listdir(path)):
        if not name.endswith(".json"):
            continue
        try:
            docs.append((name, load_results(os.path.join(path, name))))
        except ValueError:
            continue  # model documents and other JSON files live beside results
    if not docs:
        raise ValueError(f"{path} holds no datamotion results document (*.json with schema {RESULTS_SCHEMA!r})")
    return merge_results(docs)


def suites_run(entries: Sequence[Entry]) -> List[str]:
    """The suites whose kernels the entries hold, in the order ``all`` runs them."""
    kernels = {e.kernel for e in entries if e.rows}
    return [name for name, ks in SUITE_KERNELS.items() if kernels & set(ks)]


def seed_title(seed, entries: Sequence[Entry]) -> str:
    """The seed's heading: its title when its own suite ran, else the suites shown beside its paper."""
    item_kernels = frozenset().union(*(i.kernels for i in SEED_ITEMS[seed]))
    shown = suites_run([e for e in entries if e.kernel in seed.KERNELS | item_kernels])
    if not shown or OWN_SUITE[seed] in shown:
        return seed.TITLE
    paper = seed.TITLE[seed.TITLE.rfind("(") + 1:].rstrip(")")
    return f"The {', '.join(shown)} suite{'s' if len(shown) > 1 else ''} beside {paper}"


def _seed_section(seed, entries: Sequence[Entry], plots: Plots, conditions: str) -> str:
    parts = [p for p in seed.sections(entries, plots) if p]
    parts.append(items_section(seed.__name__.rsplit(".", 1)[-1], SEED_ITEMS[seed], entries, conditions))
    parts = [p for p in parts if p]
    if not parts:
        return ""
    return (f'<section id="{seed.__name__.rsplit(".", 1)[-1]}"><h2>{html.escape(seed_title(seed, entries))}</h2>'
            f'<p class=seed>Seed: {html.escape(seed.SEED)}. Its numbers are quoted as published, beside ours.</p>'
            + "\n".join(parts) + "</section>")


def write_report_counted(results: Mapping[str, Any], out_dir: str, model: Optional[Mapping[str, Any]] = None
                  ) -> Tuple[str, int]:
    """Local. :func:`write_report`, also returning the number of plots written."""
    check_results(results, "results")
    if model is not None:
        check_model(model, "model")
        fitted = model
    else:
        fitted = fit_results(results)
    os.makedirs(out_dir, exist_ok=True)
    entries = make_entries(results, fitted)
    shared = sharing(results)
    plots = Plots(out_dir, note=f"{shared[0]} ranks share {shared[1]} cores: times include waiting for a core, and "
                                "rates summed over ranks are not those of separate processors." if shared else "")
    conditions = conditions_text(results)
    sections = [("provenance", "Provenance", _provenance_section(results))]
    sections += [(seed.__name__.rsplit(".", 1)[-1], seed_title(seed, entries),
                  _seed_section(seed, entries, plots, conditions)) for seed in SEEDS]
    sections += [("predicted", "Programs predicted", predicted.section(entries, plots)),
                 ("other", "Other kernels", _other_section(entries)),
                 ("notes", "Fitting notes", _notes_section(fitted))]
    _write_csv(entries, os.path.join(out_dir, "results.csv"))
    with atomic_write(os.path.join(out_dir, "model.json"), encoding="utf-8") as f:
        json.dump(fitted, f, indent=1)
    provs = list(results["sources"].values()) if isinstance(results.get("sources"), Mapping) \
        else [results.get("provenance")]
    ranks = sorted({p["ranks"] for p in provs if isinstance(p, Mapping) and isinstance(p.get("ranks"), int)})
    title = "datamotion benchmark report" + (
        "" if not ranks else f" ({ranks[0]} ranks)" if len(ranks) == 1 else f" ({ranks[0]}–{ranks[-1]} ranks)")
    index = os.path.join(out_dir, "index.html")
    with atomic_write(index, encoding="utf-8") as f:
        f.write(_page(title, sections, plots.files))
    return index, len(plots.files)


def write_report(results: dict, out_dir: str, model: Optional[dict] = None) -> str:
    """Writes an offline HTML report of a results document.

    Creates ``out_dir`` if needed and writes into it ``index.html`` (inline
    CSS, no JavaScript, nothing fetched from the network), one PNG per plot,
    ``results.csv`` (one line per row of every entry, raw samples left out)
    and ``model.json`` (the fits drawn). After the provenance, one section per
    seed paper of :data:`SEEDS` (each present when its data are), then the
    kernels no section draws, listed by name, and the fitting notes.

    Local: no MPI is loaded or called.

    Args:
        results: a parsed ``datamotion.bench/1`` document (:func:`load_folder`
            reads one file or merges a folder of them).
        out_dir: the folder to write into; files of the same names there
            are overwritten, other files are left alone.
        model: a ``datamotion.model/1`` document to draw; by default every
            kernel is fitted with :func:`datamotion.measure.fit.fit_results`.

    Returns:
        The path of ``index.html``.

    Raises:
        ValueError: if ``results`` or ``model`` is not such a document.
        OSError: if the folder cannot be written.
    """
    return write_report_counted(results, out_dir, model)[0]
