"""Plain-text helpers shared by every human-readable output (terminal, failure reports, CLI).

Agent text is untrusted: :func:`visible` shows control characters (ANSI escapes, carriage
returns, bidirectional overrides...) as escapes, so text from a run can never move the cursor,
recolour a terminal or hide what follows it.  :func:`shorten` bounds a value, saying how long it
was; :func:`table` lays out rows in aligned columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["bounded", "shorten", "table", "visible"]

# C0 controls (tab and newline handled by the caller's choice), DEL, C1 controls, and the
# Unicode format characters that reorder or hide text (bidi embeddings/overrides/isolates,
# zero-width joiners, the BOM).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_CONTROL_AND_LAYOUT = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")
_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    ch = match.group(0)
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: object, *, multiline: bool = False) -> str:
    """``text`` with every control character shown as an escape (``\\x1b``, ``\\u202e``).

    With ``multiline``, newlines and tabs are kept (a report's own line structure); otherwise
    they are escaped too, so a value stays on one line.
    """
    s = text if isinstance(text, str) else str(text)
    return (_CONTROL if multiline else _CONTROL_AND_LAYOUT).sub(_escape, s)


def shorten(text: str, limit: int) -> str:
    """``text`` cut to about ``limit`` characters; a cut text ends with ``… (N chars)``."""
    if len(text) <= limit:
        return text
    tail = f"… ({len(text)} chars)"
    return text[: max(0, limit - len(tail))] + tail


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, indent: str = "") -> list[str]:
    """Aligned columns: a header line, a rule, then one line per row (trailing blanks cut)."""
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return (indent + "  ".join(c.ljust(w) for c, w in zip(cells, widths))).rstrip()

    return [line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)]


def bounded(data: object, limit: int = 2000, *, items: int = 200) -> object:
    """JSON-like ``data`` with every string cut to about ``limit`` characters and every list or
    mapping to ``items`` entries (the cut says how much there was): safe to render and to send
    between processes whatever an agent wrote."""
    if isinstance(data, str):
        return shorten(data, limit)
    if isinstance(data, dict):
        out = {shorten(str(k), 200): bounded(v, limit, items=items) for k, v in list(data.items())[:items]}
        if len(data) > items:
            out["…"] = f"{len(data) - items} more entries"
        return out
    if isinstance(data, (list, tuple)):
        seq = [bounded(v, limit, items=items) for v in list(data)[:items]]
        if len(data) > items:
            seq.append(f"… {len(data) - items} more items")
        return seq
    if data is None or isinstance(data, (bool, int, float)):
        if isinstance(data, int) and not isinstance(data, bool) and data.bit_length() > 100:
            return f"<an integer of {data.bit_length()} bits>"
        return data
    return shorten(str(data), limit)
