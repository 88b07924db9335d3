"""Visual reports: a per-run view, a self-contained HTML page and a Markdown summary.

- :func:`run_record` (``record``): the JSON-able record of one judged run, made from its judgment
  (its trace: oracle graph, timeline, windows) — every report below draws only from records;
- :func:`render_html` (``html``): one offline HTML file (inline CSS, JS and SVG);
- :func:`render_markdown` / :func:`write_markdown_summary` (``markdown``): Markdown with a
  Mermaid graph per failing run, also written to ``$GITHUB_STEP_SUMMARY`` when set.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "RunRecord": "record",
    "run_record": "record",
    "build_report": "record",
    "summarize": "record",
    "display_status": "record",
    "render_html": "html",
    "write_html": "html",
    "render_markdown": "markdown",
    "write_markdown_summary": "markdown",
    "mermaid_graph": "markdown",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    mod = _EXPORTS.get(name)
    if mod is None:
        raise AttributeError(f"module 'pytest_are_judge.report' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{mod}", __name__), name)
    globals()[name] = value
    return value
