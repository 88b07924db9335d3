"""The ten soft checkers: which prompt each uses and what context it receives.

``placeholder_checker`` needs no model; the others ask the judge model with our own prompts
(``prompts/<name>.txt``) and read the final ``[[Success]]``/``[[Failure]]`` verdict.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from .prompts import describe_args, escape, render, sections, security_note


@dataclass(frozen=True)
class CheckerSpec:
    name: str
    prompt: str | None
    """Prompt file name (None: no model call)."""
    inputs: tuple[str, ...] = ()
    """Context values the prompt uses (besides ``agent_call``)."""
    needs_subtask: bool = False


CHECKERS: dict[str, CheckerSpec] = {
    s.name: s
    for s in (
        CheckerSpec("placeholder_checker", None),
        CheckerSpec(
            "content_checker", "content", ("oracle_call", "tool_name", "subtask", "today_date", "user_address"), True
        ),
        CheckerSpec("sanity_checker", "sanity", ("all_tasks",)),
        CheckerSpec("signature_checker", "signature", ("user_name",)),
        CheckerSpec("cab_checker", "cab", ("oracle_call", "user_address")),
        CheckerSpec("email_checker", "email", ("oracle_call", "today_date")),
        CheckerSpec("message_checker", "message", ("oracle_call", "today_date")),
        CheckerSpec("user_message_checker", "user_message", ("oracle_call", "subtask"), True),
        CheckerSpec("event_checker", "event", ("oracle_call", "user_address", "subtask"), True),
        CheckerSpec("tone_checker", "tone", ()),
    )
}
"""Unlike ARE, ``sanity_checker`` does not trigger subtask extraction: it never used it."""

PLACEHOLDERS = (
    "[User's Name]",
    "[User Name]",
    "[User]",
    "[Your Name]",
    "[My Name]",
    "Best regards,\nYour Name",
    "Best,\nYour Name",
)

_NUMBER_ONLY = re.compile(r"^content: \d+(\.\d+)?$")


def placeholder_check(agent_args: dict[str, Any]) -> tuple[bool, str]:
    """ARE's placeholder test (case-insensitive), on ``str()`` of every value (ARE raises on non-str)."""
    text = " ".join(v if isinstance(v, str) else str(v) for v in agent_args.values()).lower()
    for p in PLACEHOLDERS:
        if p.lower() in text:
            return False, f"the text contains the placeholder {p!r}"
    return True, "no template placeholder"


def sanity_shortcut(agent_args: dict[str, Any]) -> bool:
    """ARE passes a bare number sent to the user without asking the model."""
    rendered = "\n".join(f"{k}: {v}" for k, v in agent_args.items()).strip()
    return bool(_NUMBER_ONLY.match(rendered))


@dataclass
class SoftContext:
    tool_name: str
    agent_args: dict[str, Any]
    oracle_args: dict[str, Any]
    tasks: list[str] = field(default_factory=list)
    user_name: str = ""
    user_address: str = ""
    today_date: str = ""
    subtask: str = ""

    @property
    def task(self) -> str:
        return self.tasks[-1] if self.tasks else ""

    @property
    def previous_task(self) -> str:
        """Earlier tasks joined with a real newline (ARE joins with the two characters "/n": docs/llm.md, differences from ARE)."""
        return "\n".join(t for t in self.tasks[:-1] if t) if len(self.tasks) > 1 else ""

    def values(self) -> dict[str, str]:
        return {
            "agent_call": describe_args(self.agent_args),
            "oracle_call": describe_args(self.oracle_args),
            "tool_name": escape(self.tool_name),
            "subtask": escape(self.subtask.strip()) or "(not available)",
            "today_date": self.today_date or "(unknown)",
            "user_address": escape(self.user_address) or "(unknown)",
            "user_name": escape(self.user_name) or "(unknown)",
            "all_tasks": escape("\n".join(t for t in (self.previous_task, self.task) if t).strip())
            or "(not available)",
        }


def today_from(ts: float | None) -> str:
    """The oracle event's time in UTC as ``%Y-%m-%d %A`` ("" when unknown), as ARE."""
    if ts is None:
        return ""
    return datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%d %A")


def build_messages(spec: CheckerSpec, ctx: SoftContext) -> tuple[str, str]:
    """(system, user) texts of a model checker."""
    assert spec.prompt is not None
    sec = sections(spec.prompt)
    vals = ctx.values()
    system = render(sec["system"], security=security_note())
    user = render(sec["user"], **{k: vals[k] for k in ("agent_call", *spec.inputs)})
    return system, user


SUBTASK_HINTS = {
    "calendar": "The call creates a calendar event: keep what the task says about that event (its purpose, people, place and timing).",
    "user_message": "The call is the assistant's reply to the user: keep the question or request that this reply answers.",
    "plain": "",
}


def subtask_messages(tool_name: str, oracle_args: dict[str, Any], task: str) -> tuple[str, str]:
    variant = (
        "calendar"
        if "add_calendar_event" in tool_name
        else "user_message"
        if tool_name == "AgentUserInterface__send_message_to_user"
        else "plain"
    )
    sec = sections("subtask")
    system = render(sec["system"], variant_hint=SUBTASK_HINTS[variant]).rstrip()
    user = render(sec["user"], tool_name=escape(tool_name), oracle_call=describe_args(oracle_args), task=escape(task))
    return system, user
