"""``datamotion report``: the offline HTML report of results (plots, tables, CSV)."""

from __future__ import annotations

from .._files import require_writable_folder
from .common import CommandError


def run(args) -> int:
    """``datamotion report RESULTS --out DIR``, offline."""
    from .._extras import MissingExtra

    try:
        from ..measure import report, results
    except MissingExtra as exc:
        raise CommandError(str(exc)) from None
    try:
        require_writable_folder(args.out)
        merged = report.load_folder(args.results)
        fitted = results.load_model(args.model) if args.model else None
        index, plots = report.write_report_counted(merged, args.out, fitted)
    except (ValueError, OSError) as exc:
        raise CommandError(str(exc)) from None
    print(f"wrote {index} ({plots} plots)")
    return 0
