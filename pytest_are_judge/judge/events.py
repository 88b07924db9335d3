"""ARE's event preprocessing and the graph judge's event filter, applied to both sides."""

from __future__ import annotations

import operator

from ..model import Event, EventType, OperationType


def preprocess(event: Event) -> Event:
    """ARE's special cases (event_utils.py:44-71); AGENT events only.

    - ``CabApp.get_quotation`` is a read;
    - ``add_email`` on ``EmailClientApp``/``EmailClientV2`` is re-typed ENV;
    - ``SandboxLocalFileSystem.makedirs`` (that exact class) is named ``SandboxLocalFileSystem__mkdir``.
    """
    action = event.action
    if event.event_type != EventType.AGENT or action is None:
        return event
    cls, fn = action.app_class, action.function
    if cls == "CabApp" and fn == "get_quotation" and action.operation_type != OperationType.READ:
        return event.model_copy(update={"action": action.model_copy(update={"operation_type": OperationType.READ})})
    if cls in ("EmailClientApp", "EmailClientV2") and fn == "add_email":
        return event.model_copy(update={"event_type": EventType.ENV})
    if cls == "SandboxLocalFileSystem" and fn == "makedirs":
        return event.model_copy(
            update={"action": action.model_copy(update={"tool_name_override": "SandboxLocalFileSystem__mkdir"})}
        )
    return event


def keep(event: Event) -> bool:
    """ARE's ``EnvAgentEventFilter``: non-failed ENV/USER events and non-failed AGENT writes."""
    if event.failed:
        return False
    action = event.action
    return kept(event.event_type, event.event_id, action.operation_type if action is not None else None)


def kept(event_type: EventType, event_id: str, operation_type: OperationType | None) -> bool:
    """The filter's rule for a non-failed event: ENV/USER events (except environment
    expansions) and AGENT writes (an event without an action has no operation type)."""
    if event_type == EventType.ENV or event_type == EventType.USER:
        return "env_expansion" not in event_id
    return event_type == EventType.AGENT and operation_type == OperationType.WRITE


def judged_events(events: list[Event]) -> list[Event]:
    """Preprocess, filter, and stable-sort by event time (ARE's turn split order)."""
    kept = [e for e in map(preprocess, events) if keep(e)]
    kept.sort(key=_event_time)
    return kept


_event_time = operator.attrgetter("event_time")


def split_turns(events: list[Event]) -> list[list[Event]]:
    """Split judged agent events into turns: each AUI message closes its turn (ARE's turn split).

    Returns at least one (possibly empty) turn.
    """
    turns: list[list[Event]] = [[]]
    for e in events:
        turns[-1].append(e)
        if e.is_aui_message:
            turns.append([])
    return turns
