"""Small builders for hand-made scenarios and runs in tests (through the native reader)."""

from __future__ import annotations

from typing import Any

from pytest_are_judge.model import Run, Scenario
from pytest_are_judge.readers.native import NativeAgentEvent, agent_events_from_native, read_native

UNREGISTERED_TOOL_SCENARIO = """
format: are-judge/scenario-v1
scenario_id: odd
events:
  - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: hi}}
  - {id: x, tool: NoSuchApp.do_thing, after: [u], args: {a: 1}}
runs:
  - id: r
    events:
      - {id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {content: hi}}
      - {tool: NoSuchApp.do_thing, time: 1, args: {a: 1}}
"""
"""A scenario whose tool is in no checker registry: every run of it is an input error."""

USER_MSG = {
    "id": "user_msg",
    "type": "user",
    "tool": "AgentUserInterface.send_message_to_agent",
    "args": {"content": "do it"},
    "delay": 1,
}


def scenario(
    events: list[dict[str, Any]], *, user: dict[str, Any] | None = None, with_user_msg: bool = True, **kw: Any
) -> Scenario:
    doc = {
        "scenario_id": kw.pop("scenario_id", "s"),
        "start_time": kw.pop("start_time", 1000.0),
        "events": ([USER_MSG] if with_user_msg else []) + events,
        **kw,
    }
    if user:
        doc["user"] = user
    sc, _ = read_native(doc, file="test.yaml")
    return sc


def run(sc: Scenario, events: list[dict[str, Any]], *, with_user_msg: bool = True, run_id: str = "r") -> Run:
    items = (
        [
            {
                "id": "user_msg",
                "type": "user",
                "tool": "AgentUserInterface.send_message_to_agent",
                "args": {"content": "do it"},
                "time": 1,
            }
        ]
        if with_user_msg
        else []
    ) + events
    evs = agent_events_from_native(
        [NativeAgentEvent.model_validate(i) for i in items], start_time=sc.start_time, apps={}
    )
    return Run(scenario=sc, events=evs, run_id=run_id)


def smtu(
    eid: str = "o_smtu", after: list[str] | None = None, delay: float = 1, content: str = "done"
) -> dict[str, Any]:
    return {
        "id": eid,
        "tool": "AgentUserInterface.send_message_to_user",
        "args": {"content": content},
        "after": after or [],
        "delay": delay,
    }


def a_smtu(t: float, eid: str = "a_smtu", content: str = "done") -> dict[str, Any]:
    return {"id": eid, "tool": "AgentUserInterface.send_message_to_user", "args": {"content": content}, "time": t}


_MAIL_HEAD = """format: are-judge/scenario-v1
scenario_id: {sid}
apps: {{EmailClientV2: EmailClientV2}}
events:
  - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, args: {{content: send it}}}}
  - {{id: send, tool: EmailClientV2.send_email, after: [u], args: {{recipients: [a@x.org], subject: s, content: c}}}}
runs:
"""
_MAIL_RUN = """  - id: {id}
    {expect}
    events:
      - {{id: u, type: user, tool: AgentUserInterface.send_message_to_agent, time: 0, args: {{content: send it}}}}
      - {{tool: EmailClientV2.send_email, time: 2, args: {{recipients: [{to}], subject: s, content: c}}}}
"""


def mail_scenario_yaml(runs: dict[str, str], *, sid: str = "mail", expect_fail: tuple[str, ...] = ()) -> str:
    """A native scenario (one email to a@x.org) with runs ``{run id: recipient}``: a run passes
    when its recipient is a@x.org; runs in ``expect_fail`` are declared known-bad."""
    body = "".join(
        _MAIL_RUN.format(id=k, to=v, expect="expect: fail" if k in expect_fail else "") for k, v in runs.items()
    )
    return _MAIL_HEAD.format(sid=sid) + body
