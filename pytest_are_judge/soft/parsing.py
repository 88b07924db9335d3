"""Strict, case-insensitive verdict parsing.  Only the model's final verdict counts.

A verdict marker is a whole word in double square brackets, e.g. ``[[Success]]`` or
``[[false]]``; unknown bracketed words (``[[User Name]]``) are ignored.

:func:`parse_answer` is what the judge uses: the verdict is read only from the answer's **last
line**, which must be a marker followed by the call's code (``[[Failure]] 3fa9c1d2e7b4``); an
answer holding both a pass and a fail marker is **contradictory** (inconclusive: an error,
never a pass nor a fail); a JSON verdict counts only when a JSON answer was asked for, and
only with the call's code.  Agent text cannot know the code, so a verdict it carries into the
answer never counts.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

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


def _json_answer(text: str | None) -> dict[str, Any] | None:
    """The answer as one JSON object (a ```json fence allowed), or None."""
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
    return data if isinstance(data, dict) else None


def parse_json_verdict(text: str | None) -> Parsed | None:
    """A structured answer ``{"verdict": "success"|"failure", "reason": ...}``, or None."""
    data = _json_answer(text)
    return None if data is None else _json_verdict(data)


def _json_verdict(data: dict[str, Any]) -> Parsed | None:
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


def _final_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip("*_`> \t") if lines else ""


def parse_answer(text: str | None, code: str, *, structured: bool = False) -> Parsed:
    """The verdict of an answer to a call with code ``code`` (see the module docstring).

    ``Parsed.how`` is ``"marker"``/``"json"`` for a verdict, ``"contradictory"`` for an answer
    with both verdicts, ``""`` when there is none in the required place."""
    from .guard import strip_invisible

    if not text:
        return Parsed(None)
    text = strip_invisible(text)
    if structured:
        data = _json_answer(text)
        js = None if data is None else _json_verdict(data)
        if data is None or js is None:
            return Parsed(None)
        return js if str(data.get("code", "")).strip() == code else Parsed(None, "", "the answer's code is wrong")
    words = {m.group(1).lower() for m in _MARKER.finditer(text)}
    if words & PASS_WORDS and words & FAIL_WORDS:
        return Parsed(None, "contradictory", "the answer holds both a pass and a fail verdict")
    m = re.search(r"\[\[\s*([A-Za-z]+)\s*\]\]\s*[:#-]?\s*" + re.escape(code) + r"$", _final_line(text), re.I)
    if m is None:
        return Parsed(None)
    word = m.group(1).lower()
    verdict = True if word in PASS_WORDS else False if word in FAIL_WORDS else None
    return Parsed(verdict, "marker" if verdict is not None else "")


def parse_subtask(text: str | None) -> str | None:
    """The text of the **last** ``<subtask>`` element (the model's final answer), or None."""
    if not text:
        return None
    found = _SUBTASK.findall(text)
    if not found:
        return None
    return html.unescape(found[-1]).strip()
