"""Regenerate example_scenarios/adapters/logs/: one agent run written by each SDK's own types.

python tools/make_adapter_examples.py        (needs the [test] extra: openai, anthropic, ...)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from adapters_convert import CONVERT  # noqa: E402

from pytest_are_judge.model import Event  # noqa: E402
from pytest_are_judge.readers.native import NativeAgentEvent, agent_events_from_native  # noqa: E402

START = 1728000000.0
NAMES = {"CabApp__get_quotation": "quote", "CabApp__order_ride": "book_ride"}
RENAME = {"start_location": "pickup", "end_location": "dropoff", "service_type": "kind"}


def events(service: str) -> list[Event]:
    ride = {"start_location": "home", "end_location": "CDG airport", "service_type": service}
    quote = {"price": 42.5, "eta_minutes": 7}
    items = [
        {
            "id": "ask",
            "type": "user",
            "tool": "AgentUserInterface.send_message_to_agent",
            "time": 0,
            "args": {"content": "Get me a Default cab from home to the airport, please."},
        },
        {"id": "q1", "tool": "CabApp.get_quotation", "time": 2, "args": ride, "returns": quote, "operation": "read"},
        {"id": "r1", "tool": "CabApp.order_ride", "time": 4, "args": ride, "returns": {"ride_id": "R-17"}},
        {
            "id": "m1",
            "tool": "AgentUserInterface.send_message_to_user",
            "time": 5,
            "args": {"content": "Booked: your cab to CDG arrives in 7 minutes (ride R-17)."},
        },
    ]
    return agent_events_from_native([NativeAgentEvent.model_validate(i) for i in items], start_time=START, apps={})


def agent_names(ev: Event) -> str:
    return NAMES[ev.tool_name]


def renamed(evs: list[Event]) -> list[Event]:
    out = []
    for ev in evs:
        if ev.tool_name in NAMES and ev.action is not None:
            action = ev.action.model_copy(update={"args": {RENAME.get(k, k): v for k, v in ev.args.items()}})
            ev = ev.model_copy(update={"action": action})
        out.append(ev)
    return out


def main() -> None:
    logs = ROOT / "example_scenarios" / "adapters" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    for fmt, convert in CONVERT.items():
        data = convert(renamed(events("Default")), agent_names, timed=fmt == "otel")
        (logs / f"{fmt}.log.json").write_text(json.dumps(data, indent=1) + "\n")
    bad = CONVERT["openai_chat"](renamed(events("Premium")), agent_names, timed=False)
    (logs / "openai_chat.premium.log.json").write_text(json.dumps(bad, indent=1) + "\n")


if __name__ == "__main__":
    main()
