"""A Markdown summary (GitHub step summaries, PR comments) with a Mermaid graph per failing run.

Everything that comes from a run (ids, arguments, failure texts) is inert here: inside code
spans or fenced blocks whose fences are longer than any backtick run in the text, with control
characters shown as escapes; Mermaid labels are entity-escaped.  No raw HTML, link or image from
a run survives.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .._rate import format_rate as _pct
from .._text import shorten, visible
from .record import display_status, summarize

__all__ = ["code", "mermaid_graph", "render_markdown", "repeats_markdown", "write_markdown_summary"]

_ICON = {"passed": "✅", "failed": "❌", "error": "⚠️", "xfailed": "☑️", "xpassed": "❗"}
_CLASS_DEFS = (
    "classDef matched fill:#dafbe1,stroke:#1a7f37,color:#1f2328",
    "classDef rejected fill:#ffebe9,stroke:#cf222e,stroke-width:3px,color:#1f2328",
    "classDef not_reached fill:#f6f8fa,stroke:#6e7781,stroke-dasharray:2 3,color:#57606a",
)
_MAX_FAILURE_CHARS = 4000


def code(text: Any, *, cell: bool = False) -> str:
    """``text`` as an inline code span that no content can break out of (empty: nothing)."""
    s = visible(str(text if text is not None else ""))
    if not s:
        return ""
    longest = max((len(m) for m in re.findall(r"`+", s)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if s.startswith("`") or s.endswith("`") or (s.startswith(" ") and s.endswith(" ")) else ""
    out = f"{fence}{pad}{s}{pad}{fence}"
    return out.replace("|", "\\|") if cell else out


def _fenced(text: str, info: str = "text") -> list[str]:
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{info}", text, fence]


def _label(text: Any) -> str:
    """Text safe inside a quoted Mermaid label (entity codes for anything that is markup)."""
    s = visible(str(text))
    for ch, ent in (("#", "#35;"), ('"', "#quot;"), ("<", "#lt;"), (">", "#gt;"), ("`", "#96;"), ("&", "#38;")):
        s = s.replace(ch, ent)
    return s


def _short_tool(tool: str) -> str:
    return tool.split("__", 1)[1] if "__" in tool else tool


def mermaid_graph(record: Mapping[str, Any]) -> str:
    """``graph TD`` of a run's oracle events, classed matched / rejected / not_reached."""
    nodes = list((record.get("trace") or {}).get("oracle") or [])
    ids = {n["id"]: f"n{i}" for i, n in enumerate(nodes)}
    lines = ["graph TD"]
    for n in nodes:
        extra = f"→ {n['agent_event']}" if n.get("agent_event") else n["state"].replace("_", " ")
        label = "<br/>".join(_label(shorten(str(x), 60)) for x in (n["id"], _short_tool(n["tool"]), extra))
        lines.append(f'  {ids[n["id"]]}["{label}"]')
    for n in nodes:
        for p in n.get("deps") or []:
            if p in ids:
                lines.append(f"  {ids[p]} --> {ids[n['id']]}")
    for state in ("matched", "rejected", "not_reached"):
        members = [ids[n["id"]] for n in nodes if n.get("state") == state]
        if members:
            lines.append(f"  class {','.join(members)} {state}")
    lines += [f"  {c}" for c in _CLASS_DEFS]
    return "\n".join(lines)


def _title(r: Mapping[str, Any]) -> str:
    if r.get("scenario_id"):
        return f"{code(r['scenario_id'])} : {code(r.get('run_id'))}"
    return f"{code(r.get('path') or r.get('nodeid') or r.get('run_id') or 'input')} (could not be read)"


def render_markdown(report: Mapping[str, Any], *, title: str | None = None, max_runs: int = 50) -> str:
    """Markdown: totals, a table of the runs that did not pass as expected, and per such run its
    failure report and a Mermaid graph (at most ``max_runs`` detailed runs)."""
    runs = list(report.get("runs") or [])
    summary = dict(report.get("summary") or summarize(runs))
    out = [f"## {visible(title or report.get('title') or 'ARE judge results')}", ""]
    parts = [f"**{summary.get('passed', 0)} passed**", f"**{summary.get('failed', 0)} failed**"]
    if summary.get("expected_failures"):
        parts.append(f"{summary['expected_failures']} failed as expected (declared known-bad)")
    if summary.get("unexpected_passes"):
        parts.append(f"**{summary['unexpected_passes']} known-bad passed**")
    parts.append(f"**{summary.get('error', 0)} errors**")
    out.append(", ".join(parts) + f" of {summary.get('total', len(runs))} run(s).")
    kinds = summary.get("by_failure_kind") or {}
    if kinds:
        out += ["", "Failure kinds: " + ", ".join(f"{code(k)} × {v}" for k, v in kinds.items())]
    out += repeats_markdown(report.get("repeats"))
    untimed = [r for r in runs if any(str(n).startswith("time not checked") for n in r.get("notes") or [])]
    if untimed:
        names = ", ".join(code(f"{r.get('scenario_id')}:{r.get('run_id')}") for r in untimed[:20])
        more = f" and {len(untimed) - 20} more" if len(untimed) > 20 else ""
        out += ["", f"⏱️ Time windows not checked (agent logs without timestamps): {names}{more}."]
    bad = [r for r in runs if display_status(r) not in ("passed", "xfailed")]
    if not bad:
        out += ["", "All runs passed or failed as declared. ✅", ""]
        return "\n".join(out)
    out += ["", "| | Scenario | Run | Failure kind | Categories | Source |", "|---|---|---|---|---|---|"]
    for r in bad:
        st = display_status(r)
        out.append(
            f"| {_ICON.get(st, '')} {st} | {code(r.get('scenario_id'), cell=True)} | {code(r.get('run_id'), cell=True)} | "
            f"{code(r.get('failure_kind'), cell=True)} | {code(', '.join(r.get('categories') or []), cell=True)} | "
            f"{code(r.get('path'), cell=True)} |"
        )
    for r in bad[:max_runs]:
        st = display_status(r)
        out += ["", f"### {_ICON.get(st, '')} {_title(r)}", ""]
        where = [code(r["nodeid"])] if r.get("nodeid") else []
        if r.get("outcome"):
            where.append(f"pytest: {code(r['outcome'])}")
        if r.get("baseline"):
            where.append(f"baseline: {code(r['baseline'])}")
        if where:
            out += [" · ".join(where), ""]
        text = visible(str(r.get("failure_text") or r.get("failure") or ""), multiline=True)
        if st == "xpassed" and not text:
            text = "declared known-bad (expect: fail), but the judge passed it"
        if len(text) > _MAX_FAILURE_CHARS:
            text = text[:_MAX_FAILURE_CHARS] + "\n… (truncated)"
        if text:
            out += ["<details><summary>Failure report</summary>", "", *_fenced(text), "", "</details>", ""]
        if (r.get("trace") or {}).get("oracle"):
            out += _fenced(mermaid_graph(r), "mermaid")
    if len(bad) > max_runs:
        out += ["", f"… and {len(bad) - max_runs} more run(s)."]
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
        row = f"| {code(sid, cell=True)} | {r['n']} | {r['c']} | {_pct(r.get('pass_at_k'))} | {_pct(r.get('pass_hat_k'))} |"
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
