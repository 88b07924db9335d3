"""The oracle side: the oracle run (given or derived), turns, and per-turn dependency graphs."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..checkers._optypes import infer_operation_type
from ..checkers._signatures import app_tools, known_app, signature, suggest_tool
from ..errors import InputError
from ..model import AUI_SEND_TO_USER, Event, EventType, OperationType, OracleEvent, Scenario, TimeComparator, ToolCall
from .events import judged_events, kept


@dataclass(eq=False, slots=True)
class OracleStep:
    """One oracle event as the judge sees it (ARE's ``CompletedOracleEvent``)."""

    event_id: str
    event_type: EventType
    tool_name: str
    args: dict[str, Any]
    """Arguments of the oracle run (placeholders resolved with the oracle's own values)."""
    raw_args: dict[str, Any]
    """Arguments of the definition (may hold ``{{event_id}}`` placeholders)."""
    event_time: float
    absolute_time: float | None
    comparator: TimeComparator | None
    turn: int
    parents: list[str] = field(default_factory=list)
    """Same-turn judge-graph parents."""
    checks: list[Any] = field(default_factory=list)


@dataclass(eq=False)
class OraclePlan:
    """Per-turn oracle steps in topological order, plus everything turn-independent."""

    nb_turns: int
    turns: list[list[OracleStep]]
    steps: dict[str, OracleStep]
    tasks: list[str]
    """Per-turn task text (``send_message_to_agent`` contents), for soft judges."""


def kahn_order(ids: list[str], parents: dict[str, list[str]]) -> list[str] | None:
    """Kahn's algorithm with a FIFO queue: roots in ``ids`` order, children in the order their
    edges were added (ARE's ``scenario_utils`` order).  None when there is a cycle."""
    indeg = dict.fromkeys(ids, 0)
    children: dict[str, list[str]] = {i: [] for i in ids}
    for i in ids:
        ps = parents.get(i)
        if ps:
            indeg[i] = len(ps)
            for p in ps:
                children[p].append(i)
    order = [i for i in ids if indeg[i] == 0]  # the FIFO queue, kept: it is the order
    k = 0
    while k < len(order):
        for c in children[order[k]]:
            indeg[c] -= 1
            if indeg[c] == 0:
                order.append(c)
        k += 1
    return order if len(order) == len(ids) else None


def _topological(
    events: list[OracleEvent], *, file: str | None, by_id: dict[str, OracleEvent] | None = None
) -> list[OracleEvent]:
    if by_id is None:
        by_id = {e.event_id: e for e in events}
    order = kahn_order(list(by_id), {e.event_id: [d for d in e.dependencies if d in by_id] for e in events})
    if order is None:
        raise InputError(
            f"the event dependencies contain a cycle: {_describe_cycle(events)}", file=file, field="dependencies"
        )
    return [by_id[i] for i in order]


def _describe_cycle(events: list[OracleEvent]) -> str:
    """The cycle as 'a -> b -> a' (networkx is imported only on this error path)."""
    import networkx as nx

    g = nx.DiGraph()
    ids = {e.event_id for e in events}
    g.add_edges_from((d, e.event_id) for e in events for d in e.dependencies if d in ids)
    try:
        edges = nx.find_cycle(g)
    except nx.NetworkXNoCycle:  # pragma: no cover - Kahn found one
        return "unknown"
    return " -> ".join([edges[0][0], *(v for _, v in edges)])


def turn_of_events(
    scenario: Scenario, *, order: list[OracleEvent] | None = None, by_id: dict[str, OracleEvent] | None = None
) -> dict[str, int]:
    """Turn index of every definition event.

    An event's turn is the largest turn of its dependencies, plus one if any dependency is an
    oracle message to the user: the number of AUI messages on its longest ancestor path.
    Difference from ARE (docs/are-differences.md, multi-parent turn numbering): ARE's BFS may number a multi-parent event before all its parents
    are visited; we always use the longest path.
    """
    if order is None:
        order = _topological(scenario.events, file=scenario.source)
    if by_id is None:
        by_id = {e.event_id: e for e in scenario.events}
    # the events whose children start a new turn: oracle messages to the user
    closing = {
        eid
        for eid, e in by_id.items()
        if e.event_type == EventType.AGENT and e.action is not None and e.tool_name == AUI_SEND_TO_USER
    }
    turn: dict[str, int] = {}
    for e in order:
        t = 0
        for d in e.dependencies:
            td = turn[d] + 1 if d in closing else turn[d]
            if td > t:
                t = td
        turn[e.event_id] = t
    return turn


_NOT_SCHEDULED = (EventType.CONDITION, EventType.VALIDATION, EventType.STOP)
"""Definition events that ARE's oracle mode does not put in the oracle run."""


def _timed(scenario: Scenario, order: list[OracleEvent]) -> Iterator[tuple[OracleEvent, float]]:
    """Each definition event (in topological ``order``) with its oracle-run time: its latest
    parent's time plus its relative delay (scenario start without parents), or its absolute time."""
    times: dict[str, float] = {}
    for e in order:
        if e.relative_time is None and e.absolute_time is not None:
            t = e.absolute_time
        else:
            base = max((times[d] for d in e.dependencies), default=scenario.start_time)
            t = base + (e.relative_time or 0.0)
        times[e.event_id] = t
        yield e, t


def derive_oracle_run(
    scenario: Scenario, registry: frozenset[str], *, order: list[OracleEvent] | None = None
) -> list[Event]:
    """Schedule the definition as ARE's oracle mode would: each event at its latest parent's time
    plus its relative delay (or at its absolute time).  Ties are ordered by event id.  For an
    ARE export, each call is completed as ARE's simulation records it (:func:`simulated_call`).
    ``order``: the definition in topological order, when the caller has it already."""
    fill = fills_defaults(scenario)
    out: list[Event] = []
    for e, t in _timed(scenario, order if order is not None else _topological(scenario.events, file=scenario.source)):
        if e.event_type in _NOT_SCHEDULED:
            continue
        action = e.action
        if action is not None:
            args, op = simulated_call(action, registry, fill=fill)
            if op != action.operation_type or args is not action.args:
                action = action.model_copy(update={"operation_type": op, "args": args})
        out.append(Event(event_id=e.event_id, event_type=e.event_type, event_time=t, action=action))
    out.sort(key=lambda ev: (ev.event_time, ev.event_id))
    return out


def fills_defaults(scenario: Scenario) -> bool:
    """ARE's simulation records every argument of a call; a scenario read from an ARE export is
    completed the same way (a hand-written native scenario checks only what it states)."""
    return scenario.metadata.get("format") == "are_export"


def simulated_call(action: ToolCall, registry: frozenset[str], *, fill: bool) -> tuple[dict[str, Any], OperationType]:
    """The arguments and operation type of ``action`` as ARE's simulation would record the call:
    with ``fill``, every parameter of the tool's ARE signature in signature order (defaults for
    those the definition omits); the operation type from the definition, else the signature,
    else :func:`~..checkers._optypes.infer_operation_type`."""
    sig = signature(action.app_class or action.app, action.function)
    args = sig.with_defaults(action.args) if fill and sig is not None else action.args
    op = action.operation_type
    if op is None:
        if sig is not None and sig.operation_type in ("READ", "WRITE"):
            op = OperationType(sig.operation_type)
        else:
            op = infer_operation_type(action.tool_name, action.function, registry)
    return args, op


class _Scheduled:
    """One event of a derived oracle run, as the plan reads it (no pydantic model: the plan of
    every judged run needs one per definition event)."""

    __slots__ = ("args", "event_id", "event_time", "event_type", "kept", "tool_name")

    def __init__(
        self, event_id: str, event_type: EventType, event_time: float, tool_name: str, args: dict[str, Any], kept: bool
    ) -> None:
        self.event_id = event_id
        self.event_type = event_type
        self.event_time = event_time
        self.tool_name = tool_name
        self.args = args
        self.kept = kept


_PREPROCESSED = frozenset(
    {
        ("CabApp", "get_quotation"),
        ("EmailClientApp", "add_email"),
        ("EmailClientV2", "add_email"),
        ("SandboxLocalFileSystem", "makedirs"),
    }
)
"""Agent calls that :func:`~.events.preprocess` rewrites: a definition with one is derived
through :func:`derive_oracle_run` and real events instead."""


def _schedule(scenario: Scenario, registry: frozenset[str], order: list[OracleEvent]) -> list[_Scheduled] | None:
    """:func:`derive_oracle_run` followed by :func:`~.events.judged_events`' filter, without
    building events: the same times, order and kept events.  None when an event would be
    rewritten by ARE's preprocessing (then the general path is taken)."""
    fill = fills_defaults(scenario)
    out: list[_Scheduled] = []
    for e, t in _timed(scenario, order):
        etype = e.event_type
        if etype in _NOT_SCHEDULED:
            continue
        action = e.action
        if action is None:
            out.append(_Scheduled(e.event_id, etype, t, "NoApp__NoFunction", {}, kept(etype, e.event_id, None)))
            continue
        if etype == EventType.AGENT and (action.app_class, action.function) in _PREPROCESSED:
            return None
        args, op = simulated_call(action, registry, fill=fill)
        out.append(_Scheduled(e.event_id, etype, t, action.tool_name, args, kept(etype, e.event_id, op)))
    out.sort(key=_time_then_id)
    return out


def _time_then_id(ev: _Scheduled) -> tuple[float, str]:
    return ev.event_time, ev.event_id


PLACEHOLDER = re.compile(r"^\{\{\s*([^{}.\s]+)((?:\.[^{}.\s]+)*)\s*\}\}$")
"""``{{event_id}}`` or ``{{event_id.key.0}}``: a value from another event's return value."""


def _check_placeholders(scenario: Scenario, definition: dict[str, OracleEvent]) -> None:
    """A placeholder must name another event of the scenario (else it would be compared as the
    literal text ``{{...}}``)."""
    for e in scenario.events:
        for arg, value in (e.action.args if e.action is not None else {}).items():
            m = PLACEHOLDER.match(value) if isinstance(value, str) else None
            if m is None:
                continue
            ref = m.group(1)
            if ref == e.event_id:
                problem = "refers to the event itself"
            elif ref not in definition:
                near = difflib.get_close_matches(ref, list(definition), n=1)
                problem = "names no event of the scenario" + (f" (did you mean {near[0]!r}?)" if near else "")
            else:
                continue
            raise InputError(
                f"placeholder {value!r} {problem}", file=scenario.source, event_id=e.event_id, field=f"args.{arg}"
            )


def check_tools(scenario: Scenario) -> None:
    """An oracle call of a known ARE app must be one of its tools, with arguments the tool takes
    (a typo in the oracle would otherwise be blamed on the agent as a missing call)."""
    for e in scenario.events:
        action = e.action
        if action is None or e.event_type != EventType.AGENT:
            continue  # env and user events are matched by id: their arguments are never compared
        app = action.app_class or action.app
        if not known_app(app) or (app, action.function) in _PREPROCESSED:
            continue  # a custom app, or a call ARE rewrites before judging
        sig = signature(app, action.function)
        if sig is None:
            near = suggest_tool(app, action.function)
            hint = f"did you mean {', '.join(near)}?" if near else f"its tools: {', '.join(app_tools(app))}"
            raise InputError(
                f"{app} has no tool {action.function!r} (ARE 1.2.0): {hint}",
                file=scenario.source,
                event_id=e.event_id,
                field="tool",
            )
        if "kwargs" in sig.names:
            continue  # the tool takes any keyword argument
        unknown = [a for a in action.args if a not in sig.names]
        if unknown:
            raise InputError(
                f"{app}.{action.function} takes no argument {', '.join(map(repr, unknown))}; "
                f"its arguments: {', '.join(sig.names) or 'none'}",
                file=scenario.source,
                event_id=e.event_id,
                field=f"args.{unknown[0]}",
            )


def build_plan(scenario: Scenario, registry: frozenset[str]) -> OraclePlan:
    """Everything the judge needs from the oracle side, computed once per scenario."""
    definition = scenario.event_by_id()
    _check_placeholders(scenario, definition)
    check_tools(scenario)
    order = _topological(scenario.events, file=scenario.source, by_id=definition)
    turn_map = turn_of_events(scenario, order=order, by_id=definition)
    nb_turns = (max(turn_map.values()) + 1) if turn_map else 1
    run: list[Any] | None = _schedule(scenario, registry, order) if scenario.oracle_run is None else None
    kept: list[Any]
    if run is not None:
        kept = [ev for ev in run if ev.kept]
    else:
        run = (
            scenario.oracle_run
            if scenario.oracle_run is not None
            else derive_oracle_run(scenario, registry, order=order)
        )
        kept = judged_events(run)
    turns: list[list[OracleStep]] = [[] for _ in range(nb_turns)]
    steps: dict[str, OracleStep] = {}
    for ev in kept:
        d = definition.get(ev.event_id)
        if d is None:
            raise InputError(
                "the oracle run has an event that is not in the scenario definition",
                file=scenario.source,
                event_id=ev.event_id,
            )
        if ev.event_id in steps:
            raise InputError("the oracle run has this event twice", file=scenario.source, event_id=ev.event_id)
        step = OracleStep(
            event_id=ev.event_id,
            event_type=ev.event_type,
            tool_name=ev.tool_name,
            args=dict(ev.args),
            raw_args=dict(d.action.args) if d.action else {},
            event_time=ev.event_time,
            absolute_time=d.absolute_time if d.relative_time is None else None,
            comparator=d.comparator if d.event_type == EventType.AGENT else None,
            turn=turn_map[ev.event_id],
            checks=list(d.checks),
        )
        steps[ev.event_id] = step
        turns[step.turn].append(step)
    ordered = [_order_turn(turn_steps, definition) for turn_steps in turns]
    tasks = _tasks(run, turn_map, nb_turns)
    return OraclePlan(nb_turns=nb_turns, turns=ordered, steps=steps, tasks=tasks)


def _order_turn(turn_steps: list[OracleStep], definition: dict[str, OracleEvent]) -> list[OracleStep]:
    """Judge graph of a turn (parents restricted to the turn's kept events), in Kahn FIFO order
    with keys in oracle-run order (ARE's ``scenario_utils`` behaviour; parent order made stable)."""
    by_id = {s.event_id: s for s in turn_steps}
    for s in turn_steps:
        s.parents = list(dict.fromkeys(d for d in definition[s.event_id].dependencies if d in by_id))
    order = kahn_order(list(by_id), {s.event_id: s.parents for s in turn_steps})
    if order is None:  # cannot happen after the definition check; keep it loud
        raise InputError("the oracle graph of a turn contains a cycle")
    return [by_id[i] for i in order]


def _tasks(run: list[Any], turn_map: dict[str, int], nb_turns: int) -> list[str]:
    tasks = [""] * nb_turns
    for ev in run:
        if ev.tool_name == "AgentUserInterface__send_message_to_agent" and ev.event_id in turn_map:
            content = ev.args.get("content")
            if content is not None:
                tasks[turn_map[ev.event_id]] += f"{content}\n"
    return tasks
