"""One self-contained HTML report: inline CSS, JS and SVG, no network access."""

from __future__ import annotations

import html as _html
import json
import re
from collections.abc import Mapping
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["render_html", "write_html"]

_MARKERS = re.compile(r"__TITLE__|/\*__CSS__\*/|/\*__JS__\*/|__DATA__")


@cache
def _asset(name: str) -> str:
    return (resources.files(__package__) / name).read_text(encoding="utf-8")


def _script_json(data: Any) -> str:
    """JSON safe inside a ``<script>`` element (no ``</script>``, no ``<!--``)."""
    text = json.dumps(data, ensure_ascii=False, default=str, separators=(",", ":"))
    return (
        text.replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
    )


def render_html(report: Mapping[str, Any], *, title: str | None = None) -> str:
    """The report page for ``{"runs": [RunRecord, ...], "summary": {...}}`` (:func:`~.record.build_report`;
    optionally ``"repeats"``: a :func:`~pytest_are_judge.repeats.repeats_report` result).

    Summary table with filters (status, failure kind, text search; also ``?status=``, ``?kind=``,
    ``?q=`` in the URL), and per run the oracle graph, a timeline with tolerance windows and the
    failure report.  Everything is drawn by inline JavaScript from the embedded JSON.
    """
    if not isinstance(report, Mapping) or not isinstance(report.get("runs", []), list):
        raise TypeError("render_html expects a mapping with a 'runs' list (see build_report)")
    data = {"runs": list(report.get("runs", [])), "summary": dict(report.get("summary") or {})}
    if report.get("settings"):
        data["settings"] = str(report["settings"])
    if report.get("repeats"):  # pass@k / pass^k of repeated runs (summarize_repeats), drawn as a table
        data["repeats"] = dict(report["repeats"])
    if not data["summary"]:
        from .record import summarize

        data["summary"] = dict(summarize(data["runs"]))
    page_title = title or report.get("title") or "pytest-are-judge report"
    parts = {
        "__TITLE__": _html.escape(str(page_title)),
        "/*__CSS__*/": _asset("report.css"),
        "/*__JS__*/": _asset("report.js").replace("</", "<\\/"),
        "__DATA__": _script_json(data),
    }
    # one pass, so inserted text is never searched for markers again
    return _MARKERS.sub(lambda m: parts[m.group(0)], _asset("report.html"))


def write_html(report: Mapping[str, Any], path: str | Path, *, title: str | None = None) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(render_html(report, title=title), encoding="utf-8")
    return p
