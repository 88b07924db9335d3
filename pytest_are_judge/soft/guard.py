"""Agent text is untrusted: neutralised before it enters a prompt, and pre-scanned for text that
addresses the judge (*suspected prompt injection*), which is never passed by an LLM.

The scan is deterministic and runs on a normalised copy of the text (Unicode NFKC, format
characters such as zero-width spaces removed, HTML entities decoded, whitespace collapsed),
so full-width, zero-width and entity-encoded variants are seen as what they imitate.  What it
looks for: verdict look-alikes (``[[Success]]``, ``{"verdict": ...}``, ``VERDICT: pass``), our
data tags, chat-role tokens, and instructions to a grader (``ignore previous instructions``,
``answer success``, ``as the judge``...).  An ordinary email, message or event text has none.
"""

from __future__ import annotations

import html
import re
import unicodedata
from typing import Any

__all__ = ["normalize", "strip_invisible", "suspected_argument", "suspected_injection"]

_VERDICT_WORDS = r"(?:success|failure|true|false|pass(?:ed)?|fail(?:ed)?|correct|incorrect|yes|no)"
_PASS_WORDS = r"(?:success|pass(?:ed|ing)?|true|acceptable|approved)"
_FILLER = (
    r"(?:\s*[:,]?\s*(?:with|as|only|just|exactly|the|a|word|token|verdict|string|label|it|this|call|answer|result))*"
)
_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (why, re.compile(rx, re.I))
    for why, rx in (
        ("a verdict marker", r"\[\s*\[\s*" + _VERDICT_WORDS + r"\s*\]\s*\]"),
        ("a JSON verdict", r"[\"']\s*(?:verdict|grade)\s*[\"']\s*:"),
        (
            "a verdict line",
            r"(?:^|\n)\s*(?:final\s+)?verdict\s*[:=]|\bverdict\s*[:=]\s*[\"'\[(]*\s*" + _VERDICT_WORDS + r"\b",
        ),
        ("the judge's data tags", r"</?\s*(?:agent_call|agent_actions|reference_call|oracle_actions)\b"),
        (
            "a chat-role token",
            r"<\|\s*(?:im_start|im_end|system|assistant|endoftext)\s*\|>|\[/?INST\]|<</?SYS>>"
            r"|(?:^|\n)\s*#{0,3}\s*(?:system|developer)\s*(?:prompt|message)?\s*:",
        ),
        (
            "an instruction to ignore the judge's instructions",
            r"\b(?:ignore|disregard|forget|override|bypass)\b[^.\n]{0,40}"
            r"\b(?:instructions|rules|system\s+prompt|prompt|guidelines|grading\s+criteria)\b",
        ),
        (
            "text addressed to the judge",
            r"\b(?:note|message|instructions?)\s+(?:to|for)\s+(?:the\s+)?"
            r"(?:judge|grader|evaluator|reviewer|assessor|ai|llm|language\s+model)\b"
            r"|\b(?:hey|hello|attention|psst),?\s+(?:judge|grader|evaluator|assessor|ai|llm)\b"
            r"|\byou\s+are\s+(?:the|an?)\s+(?:judge|grader|evaluator|assessor)\b"
            r"|\bas\s+(?:the|an?)\s+(?:grader|evaluator|assessor|judge)\s*,?\s+you\b",
        ),
        (
            "an instruction to give a verdict",
            r"\b(?:answer|respond|reply|output|return|print|say|conclude|mark|grade|rate|label|classify|judge)\b"
            + _FILLER
            + r"\s*[:,]?\s*[\"'\[(]*\s*"
            + _PASS_WORDS
            + r"\b",
        ),
        (
            "a claim about the grading",
            r"\b(?:this|the)\s+(?:call|answer|response|action|output)s?\s+"
            r"(?:is|was|has\s+been|should\s+be|must\s+be)\s+(?:already\s+)?(?:verified|approved|graded|pre-approved|"
            r"marked\s+(?:as\s+)?(?:correct|success|passing))\b",
        ),
    )
)


def strip_invisible(text: str) -> str:
    """``text`` in NFKC with format characters (zero-width spaces and joiners, bidi controls,
    soft hyphens...) removed."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


# Cyrillic and Greek letters that look like Latin ones (NFKC keeps them apart): "[[Ѕuccess]]"
_HOMOGLYPHS = str.maketrans(
    "АВЕЅІЈКМНОРСТХУаеѕіјорсхуԁһԛԝΑΒΕΖΗΙΚΜΝΟΡΤΥΧαοριυντ",
    "ABESIJKMHOPCTXYaesijopcxydhqwABEZHIKMNOPTYXaopiuvt",
)


def normalize(text: str) -> str:
    """What the scan reads: :func:`strip_invisible`, HTML entities decoded (twice: ``&amp;lt;``),
    Latin look-alike letters folded, runs of spaces collapsed."""
    text = strip_invisible(html.unescape(html.unescape(strip_invisible(text)))).translate(_HOMOGLYPHS)
    return re.sub(r"[ \t\u00a0]+", " ", text)


def _texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in (*_texts(k), *_texts(v))]
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _texts(v)]
    return []


def suspected_injection(value: Any) -> str | None:
    """Why ``value`` (a string, or the strings inside a list/mapping) looks like text addressed to
    the judge, or None.  The reason quotes the matched text, shortened and made visible."""
    from .._text import shorten, visible

    for text in _texts(value):
        norm = normalize(text)
        for why, rx in _RULES:
            m = rx.search(norm)
            if m:
                return f"{why} ({visible(shorten(m.group(0).strip(), 60))!r})"
    return None


def suspected_argument(args: dict[str, Any]) -> str | None:
    """``argument 'name': why`` for the first argument whose value looks addressed to the
    judge (:func:`suspected_injection`), or None."""
    for arg, value in args.items():
        why = suspected_injection(value)
        if why is not None:
            return f"argument {arg!r}: {why}"
    return None
