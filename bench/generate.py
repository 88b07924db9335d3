"""Synthetic scenarios and agent runs of any size, for benchmarks (deterministic: seeded)."""

from __future__ import annotations

import random
from typing import Any

from pytest_are_judge.model import Event, EventType, OperationType, OracleEvent, Run, Scenario, ToolCall

TOOLS = [
    ("Shopping", "ShoppingApp", "add_to_cart", lambda i: {"item_id": f"item{i}", "quantity": 1 + i % 3}),
    ("Emails", "EmailClientV2", "delete_email", lambda i: {"email_id": f"e{i}"}),
    ("Calendar", "Calendar", "delete_calendar_event", lambda i: {"event_id": f"c{i}"}),
    ("Contacts", "Contacts", "delete_contact", lambda i: {"contact_id": f"k{i}"}),
    (
        "Emails",
        "EmailClientV2",
        "send_email",
        lambda i: {
            "recipients": [f"p{i}@x.com"],
            "cc": [],
            "subject": f"s{i}",
            "content": f"c{i}",
            "attachment_paths": [],
        },
    ),
]


def make_run(n_events: int, *, seed: int = 0, width: int = 4, turns: int = 1) -> Run:
    """A scenario with ``n_events`` oracle agent events (DAG of ``width`` parallel chains per turn)
    and an agent run that replays it with fresh ids, in a shuffled causal order."""
    rnd = random.Random(seed)
    start = 1_700_000_000.0
    events: list[OracleEvent] = []
    agent: list[Event] = []
    t_user = start + 1
    per_turn = max(1, n_events // turns)
    k = 0
    prev_smtu: str | None = None
    for turn in range(turns):
        uid = f"user_msg_{turn}"
        events.append(
            OracleEvent(
                event_id=uid,
                event_type=EventType.USER,
                dependencies=[prev_smtu] if prev_smtu else [],
                relative_time=1.0,
                action=ToolCall(
                    app="AgentUserInterface",
                    app_class="AgentUserInterface",
                    function="send_message_to_agent",
                    args={"content": f"task {turn}"},
                ),
            )
        )
        agent.append(
            Event(
                event_id=uid,
                event_type=EventType.USER,
                event_time=t_user,
                action=ToolCall(
                    app="AgentUserInterface",
                    app_class="AgentUserInterface",
                    function="send_message_to_agent",
                    args={"content": f"task {turn}"},
                    operation_type=OperationType.READ,
                ),
            )
        )
        heads = [uid] * width
        t = t_user
        last_ids = []
        for j in range(per_turn):
            app, cls, fn, mk = TOOLS[k % len(TOOLS)]
            chain = j % width
            eid = f"o{k}"
            events.append(
                OracleEvent(
                    event_id=eid,
                    event_type=EventType.AGENT,
                    dependencies=[heads[chain]],
                    relative_time=0.5,
                    action=ToolCall(app=app, app_class=cls, function=fn, args=mk(k)),
                )
            )
            heads[chain] = eid
            t += 0.01
            agent.append(
                Event(
                    event_id=f"agent-{k}",
                    event_type=EventType.AGENT,
                    event_time=t,
                    action=ToolCall(
                        app=app, app_class=cls, function=fn, args=mk(k), operation_type=OperationType.WRITE
                    ),
                    return_value=f"r{k}",
                )
            )
            last_ids.append(eid)
            k += 1
        smtu = f"smtu_{turn}"
        events.append(
            OracleEvent(
                event_id=smtu,
                event_type=EventType.AGENT,
                dependencies=list(dict.fromkeys(heads)),
                relative_time=0.5,
                action=ToolCall(
                    app="AgentUserInterface",
                    app_class="AgentUserInterface",
                    function="send_message_to_user",
                    args={"content": "done"},
                ),
            )
        )
        t += 0.01
        agent.append(
            Event(
                event_id=f"agent-smtu-{turn}",
                event_type=EventType.AGENT,
                event_time=t,
                action=ToolCall(
                    app="AgentUserInterface",
                    app_class="AgentUserInterface",
                    function="send_message_to_user",
                    args={"content": "done"},
                    operation_type=OperationType.WRITE,
                ),
            )
        )
        prev_smtu = smtu
        t_user = t + 1
    _ = rnd  # order is already a causal order; kept seeded for future variants
    return Run(
        scenario=Scenario(scenario_id=f"gen{n_events}", start_time=start, events=events),
        events=agent,
        run_id=f"gen{n_events}",
    )


def run_summary(run: Run) -> dict[str, Any]:
    return {"oracle_events": len(run.scenario.events), "agent_events": len(run.events)}
