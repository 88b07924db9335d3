"""Strict, case-insensitive verdict parsing.  Only the model's final verdict counts.

A verdict marker is a whole word in double square brackets, e.g. ``[[Success]]`` or
``[[false]]``.  Unknown bracketed words (``[[User Name]]``) are ignored; of the recognised
markers, the **last** one in the answer is the verdict, so an answer that quotes a marker
and then concludes differently is read by its conclusion.  We only ever parse the model's
answer, never the prompt, so agent text that imitates a marker cannot change the result.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass

PASS_WORDS = frozenset({"success", "true", "pass"})
FAIL_WORDS = frozenset({"failure", "false", "fail"})

_MARKER = re.compile(r"\[\[\s*([A-Za-z]+)\s*\]\]")
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S | re.I)
_SUBTASK = re.compile(r"<subtask>(.*?)</subtask>", re.S | re.I)


@dataclass(frozen=True)
class Parsed:
    verdict: bool | None
    """True (pass), False (fail) or None (no verdict found)."""
    how: str = ""
    """``"json"`` or ``"marker"`` (or ``""`` when nothing was found)."""
    reason: str = ""


def parse_markers(text: str | None) -> bool | None:
    """The final recognised ``[[...]]`` marker of ``text`` (case-insensitive), or None."""
    if not text:
        return None
    verdict: bool | None = None
    for m in _MARKER.finditer(text):
        word = m.group(1).lower()
        if word in PASS_WORDS:
            verdict = True
        elif word in FAIL_WORDS:
            verdict = False
    return verdict


def parse_json_verdict(text: str | None) -> Parsed | None:
    """A structured answer ``{"verdict": "success"|"failure", "reason": ...}``, or None."""
    if not text:
        return None
    body = text.strip()
    fence = _FENCE.match(body)
    if fence:
        body = fence.group(1)
    if not body.startswith("{"):
        return None
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    raw = data.get("verdict")
    if isinstance(raw, bool):
        v: bool | None = raw
    elif isinstance(raw, str):
        w = raw.strip().strip("[]").strip().lower()
        v = True if w in PASS_WORDS else False if w in FAIL_WORDS else None
    else:
        v = None
    if v is None:
        return None
    reason = data.get("reason", "")
    return Parsed(v, "json", reason if isinstance(reason, str) else json.dumps(reason))


def parse_verdict(text: str | None) -> Parsed:
    """JSON verdict if the whole answer is one, else the final marker."""
    js = parse_json_verdict(text)
    if js is not None:
        return js
    v = parse_markers(text)
    return Parsed(v, "marker" if v is not None else "", "")


def parse_subtask(text: str | None) -> str | None:
    """The text of the **last** ``<subtask>`` element (the model's final answer), or None."""
    if not text:
        return None
    found = _SUBTASK.findall(text)
    if not found:
        return None
    return html.unescape(found[-1]).strip()
