"""Our prompt texts (``prompts/*.txt``), strict rendering and escaping of untrusted text.

Agent-controlled values are neutralised before they are put between our tags: Unicode NFKC
with format characters (zero-width spaces...) removed, so look-alikes become what they imitate;
``&``, ``<`` and ``>`` become HTML entities (a value cannot close ``</agent_call>``, nor write
the :data:`FENCE` placeholder); double square brackets are broken apart (a value cannot show a
verdict marker such as ``[[Success]]``).  Reference values and tasks get the same escaping so
equal texts look equal.

Every call gets its own random code (:func:`fenced` replaces :data:`FENCE`): it marks the
agent's data and must end the model's verdict line, so a verdict copied from agent text (which
cannot know the code) never counts.  Cache keys are computed before the code is set.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import secrets
import string
from importlib import resources
from typing import Any

#: Bump when the meaning of a prompt changes (the content hash is appended automatically).
PROMPT_SERIES = "2"

FENCE = "<FENCE>"
"""Placeholder of the per-call code in prompt texts; escaped text can never contain it."""

_SECTION = re.compile(r"^--- ([a-z_ ]+) ---$", re.M)


@functools.cache
def prompt_text(name: str) -> str:
    return resources.files(__package__).joinpath("prompts", f"{name}.txt").read_text(encoding="utf-8")


@functools.cache
def sections(name: str) -> dict[str, str]:
    """``--- section ---`` blocks of a prompt file."""
    text = prompt_text(name)
    parts = _SECTION.split(text)
    out: dict[str, str] = {}
    for i in range(1, len(parts), 2):
        out[parts[i].strip()] = parts[i + 1].strip("\n")
    return out


@functools.cache
def prompt_version() -> str:
    """``PROMPT_SERIES`` plus a hash of every prompt file: any edit invalidates cached verdicts."""
    h = hashlib.sha256()
    for entry in sorted(resources.files(__package__).joinpath("prompts").iterdir(), key=lambda p: p.name):
        if entry.name.endswith(".txt"):
            h.update(entry.name.encode())
            h.update(entry.read_bytes())
    return f"{PROMPT_SERIES}.{h.hexdigest()[:10]}"


def render(template: str, **values: str) -> str:
    """Substitute ``$name`` placeholders; a missing value is an error (never a silent blank)."""
    try:
        return string.Template(template).substitute(values)
    except KeyError as exc:
        raise ValueError(f"prompt variable {exc.args[0]!r} has no value") from None


def escape(text: Any) -> str:
    """Neutralise our tag and marker syntax inside untrusted text."""
    from .guard import strip_invisible

    s = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    s = strip_invisible(s)
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    while "[[" in s or "]]" in s:
        s = s.replace("[[", "[ [").replace("]]", "] ]")
    return s


def describe_args(args: dict[str, Any]) -> str:
    """One ``name: value`` line per argument, values escaped."""
    return "\n".join(f"{k}: {escape(v)}" for k, v in args.items())


def security_note() -> str:
    return prompt_text("_common").strip()


STRUCTURED_SUFFIX = (
    '\n\nAnswer with one JSON object and nothing else: {"reason": "<one or two sentences>", '
    '"verdict": "success" or "failure", "code": "' + FENCE + '"}.'
)

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "json_schema",
    "json_schema": {
        "name": "verdict",
        "strict": True,
        "schema": {
            "type": "object",
            "properties": {
                "reason": {"type": "string"},
                "verdict": {"type": "string", "enum": ["success", "failure"]},
                "code": {"type": "string"},
            },
            "required": ["reason", "verdict", "code"],
            "additionalProperties": False,
        },
    },
}


def chat(system: str, user: str, *, structured: bool = False) -> list[dict[str, str]]:
    if structured:
        user = user + STRUCTURED_SUFFIX
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def new_fence() -> str:
    """A fresh per-call code: 12 hex digits, unguessable by the agent."""
    return secrets.token_hex(6)


def fenced(messages: list[dict[str, str]], code: str) -> list[dict[str, str]]:
    """``messages`` with :data:`FENCE` replaced by ``code``."""
    return [{**m, "content": m["content"].replace(FENCE, code)} for m in messages]
