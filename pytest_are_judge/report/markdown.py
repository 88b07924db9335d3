"""A Markdown summary (GitHub step summaries, PR comments) with a Mermaid graph per failing run."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._rate import format_rate as _pct

__all__ = ["mermaid_graph", "render_markdown", "repeats_markdown", "write_markdown_summary"]

_STATUS_ICON = {"passed": "✅", "failed": "❌", "error": "⚠️"}
_CLASS_DEFS = (
    "classDef matched fill:#dafbe1,stroke:#1a7f37,color:#1f2328",
    "classDef failed fill:#ffebe9,stroke:#cf222e,stroke-width:3px,color:#1f2328",
    "classDef unmatched fill:#ffffff,stroke:#cf222e,stroke-dasharray:4 3,color:#1f2328",
    "classDef not_reached fill:#f6f8fa,stroke:#6e7781,stroke-dasharray:2 3,color:#57606a",
)
_MAX_FAILURE_CHARS = 4000


def _mid(i: int) -> str:
    return f"n{i}"


def _label(text: str) -> str:
    """Text safe inside a quoted Mermaid label."""
    text = re.sub(r"[\r\n]+", " ", str(text))
    return text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;").replace("`", "'")


def _short_tool(tool: str) -> str:
    return tool.split("__", 1)[1] if "__" in tool else tool


def mermaid_graph(view: Mapping[str, Any]) -> str:
    """``graph TD`` of a run's oracle nodes, classed matched / failed / unmatched / not_reached."""
    nodes = list(view.get("oracle_nodes") or [])
    ids = {n["id"]: _mid(i) for i, n in enumerate(nodes)}
    lines = ["graph TD"]
    for n in nodes:
        extra = f"→ {n['matched_agent_event']}" if n.get("matched_agent_event") else n["status"].replace("_", " ")
        label = "<br/>".join(_label(x) for x in (n["id"], _short_tool(n["tool"]), extra))
        lines.append(f'  {ids[n["id"]]}["{label}"]')
    for n in nodes:
        for p in n.get("deps") or n.get("parents") or []:
            if p in ids:
                lines.append(f"  {ids[p]} --> {ids[n['id']]}")
    for status in ("matched", "failed", "unmatched", "not_reached"):
        members = [ids[n["id"]] for n in nodes if n.get("status") == status]
        if members:
            lines.append(f"  class {','.join(members)} {status}")
    lines += [f"  {c}" for c in _CLASS_DEFS]
    return "\n".join(lines)


def _cell(text: Any) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _fence(text: str) -> str:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    return "`" * max(3, longest + 1)


def render_markdown(report: Mapping[str, Any], *, title: str | None = None, max_runs: int = 50) -> str:
    """Markdown: totals, a table of failing runs, and per failing run its failure report and a
    Mermaid graph (at most ``max_runs`` detailed runs)."""
    runs = list(report.get("runs") or [])
    summary = dict(report.get("summary") or {})
    if not summary:
        from .view import summarize_views

        summary = summarize_views(runs)
    bad = [r for r in runs if r.get("status") != "passed"]
    out = [f"## {title or report.get('title') or 'ARE judge results'}", ""]
    total = summary.get("total", len(runs))
    from .view import is_expected_failure

    failed = summary.get("failed", 0)
    expected = summary.get("expected_failures", 0)
    as_expected = f" ({expected} expected: declared known-bad)" if expected else ""
    out.append(
        f"**{summary.get('passed', 0)} passed**, **{failed} failed**{as_expected}, "
        f"**{summary.get('error', 0)} errors** of {total} run(s)."
    )
    kinds = summary.get("by_failure_kind") or {}
    if kinds:
        out.append("")
        out.append("Failure kinds: " + ", ".join(f"`{k}` × {v}" for k, v in kinds.items()))
    out += repeats_markdown(report.get("repeats"))
    if not bad:
        out += ["", "All runs passed. ✅", ""]
        return "\n".join(out)
    out += ["", "| | Scenario | Run | Failure kind | Categories | Source |", "|---|---|---|---|---|---|"]
    for r in bad:
        out.append(
            f"| {_STATUS_ICON.get(r.get('status'), '')} | {_cell(r.get('scenario_id'))} | "
            f"{_cell(r.get('run_id'))}{' (expected to fail)' if is_expected_failure(r) else ''} | "
            f"{_cell(r.get('failure_kind'))} | {_cell(', '.join(r.get('categories') or []))} | {_cell(r.get('source'))} |"
        )
    for r in bad[:max_runs]:
        out += ["", f"### {_STATUS_ICON.get(r.get('status'), '')} {r.get('scenario_id')} : {r.get('run_id')}", ""]
        where = [f"`{_cell(r['nodeid'])}`"] if r.get("nodeid") else []
        if r.get("outcome"):
            where.append(f"pytest: {r['outcome']}")
        if where:
            out += [" · ".join(where), ""]
        text = str(r.get("failure_text") or (r.get("judgment") or {}).get("failure") or "")
        if len(text) > _MAX_FAILURE_CHARS:
            text = text[:_MAX_FAILURE_CHARS] + "\n… (truncated)"
        if text:
            fence = _fence(text)
            out += ["<details><summary>Failure report</summary>", "", f"{fence}text", text, fence, "", "</details>", ""]
        if r.get("oracle_nodes"):
            out += ["```mermaid", mermaid_graph(r), "```"]
    if len(bad) > max_runs:
        out += ["", f"… and {len(bad) - max_runs} more failing run(s)."]
    out.append("")
    return "\n".join(out)


def repeats_markdown(repeats: Mapping[str, Any] | None) -> list[str]:
    """A pass@k / pass^k table (a :func:`~pytest_are_judge.repeats.summarize_repeats` result,
    optionally with a ``baseline`` :func:`~pytest_are_judge.repeats.compare_repeats` result)."""
    if not repeats or not repeats.get("k"):
        return []
    k = repeats["k"]
    o = repeats.get("overall") or {}
    base = (repeats.get("baseline") or {}).get("scenarios") or {}
    out = [
        "",
        f"### Repeated runs (k={k})",
        "",
        f"| Scenario | Runs | Passed | pass@{k} | pass^{k} |{' vs baseline |' if base else ''}",
        f"|---|---|---|---|---|{'---|' if base else ''}",
    ]
    for sid, r in (repeats.get("scenarios") or {}).items():
        row = f"| {_cell(sid)} | {r['n']} | {r['c']} | {_pct(r.get('pass_at_k'))} | {_pct(r.get('pass_hat_k'))} |"
        if base:
            b = base.get(sid) or {}
            cmp = b.get("status", "")
            if b.get("baseline") and b.get("current"):
                cmp += f" ({_pct(b['baseline'].get('pass_hat_k'))} → {_pct(b['current'].get('pass_hat_k'))})"
            row += f" {'❌ ' if b.get('status') == 'regressed' else ''}{cmp} |"
        out.append(row)
    out.append(
        f"| **overall** ({o.get('scored', 0)} scored) | {o.get('runs', 0)} | {o.get('passes', 0)} | "
        f"**{_pct(o.get('pass_at_k'))}** | **{_pct(o.get('pass_hat_k'))}** |{' |' if base else ''}"
    )
    if repeats.get("min_pass_hat_k") is not None:
        verdict = "✅ OK" if repeats.get("gate_passed") else "❌ FAILED"
        out += ["", f"{verdict}: pass^{k} {_pct(o.get('pass_hat_k'))} vs minimum {_pct(repeats['min_pass_hat_k'])}"]
    return out


def write_markdown_summary(
    report: Mapping[str, Any], path: str | Path | None = None, *, title: str | None = None
) -> list[Path]:
    """Write :func:`render_markdown` to ``path`` (replaced) when given, and append it to
    ``$GITHUB_STEP_SUMMARY`` when that variable is set (GitHub Actions).  Returns the paths
    written."""
    text = render_markdown(report, title=title)
    written: list[Path] = []
    if path is not None:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
        written.append(p)
    gh = os.environ.get("GITHUB_STEP_SUMMARY")
    if gh and (path is None or Path(gh).resolve() != Path(path).resolve()):
        with open(gh, "a", encoding="utf-8") as fh:
            fh.write(text + "\n")
        written.append(Path(gh))
    return written
