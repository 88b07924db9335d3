"""Agent logs in other formats (OpenAI chat / Responses, Anthropic, LangChain, OTel GenAI), built
with the real SDK types (tests/adapters_convert.py), judged like ARE exports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from adapters_convert import CONVERT, FORMATS
from conformance import case_dirs, config_for

from pytest_are_judge.cli import main
from pytest_are_judge.errors import InputError
from pytest_are_judge.judge import GraphPerEventJudge
from pytest_are_judge.judge.config import config_from_mapping
from pytest_are_judge.model import Event, EventType, Run
from pytest_are_judge.readers import adapters, load_file
from pytest_are_judge.readers.native import NativeAgentEvent, agent_events_from_native

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::UserWarning")

EXAMPLE = Path(__file__).resolve().parent.parent / "example_scenarios"


def alias(ev: Event) -> str:
    """The agent's own name for a tool: not ARE's, so the tool map is needed."""
    assert ev.action is not None
    return f"{ev.action.function}_in_{(ev.action.app_class or ev.action.app).lower()}"


def tool_map_for(events: list[Event]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for ev in events:
        if ev.action is not None and ev.event_type == EventType.AGENT:
            out[alias(ev)] = {"tool": f"{ev.action.app_class or ev.action.app}.{ev.action.function}"}
    return out


def load_case(case: Path) -> Run:
    oracle = json.loads((case / "oracle.json").read_text())
    return load_file(case / "agent.json", oracle=oracle, oracle_file=str(case / "oracle.json")).runs[0]


def converted(run: Run, fmt: str, *, timed: bool = True) -> tuple[Run, bool]:
    log = CONVERT[fmt](run.events, alias, timed=timed)
    user_ids = [e.event_id for e in run.events if e.event_type == EventType.USER]
    dicts, has_times = adapters.read_log(
        json.loads(json.dumps(log)),  # through JSON, as a file would be
        file=f"{fmt}.json",
        tool_map=tool_map_for(run.events),
        start_time=run.scenario.start_time,
        user_ids=user_ids,
    )
    events = agent_events_from_native(
        [NativeAgentEvent.model_validate(d) for d in dicts], start_time=run.scenario.start_time, apps={}
    )
    meta = {"format": fmt, "timestamps": has_times}
    return run.model_copy(update={"events": events, "metadata": meta}), has_times


CASES = [
    c
    for c in case_dirs()
    if not any(e.event_type == EventType.ENV for e in load_case(c).events) and "write_tool_labelled_read" not in c.name
]
"""The labelled cases a chat log can express: not the 3 whose agent log holds environment events,
nor the 3 that label single calls of a write tool as reads in the ARE export."""


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_labelled_are_case_gets_ares_verdict_in_every_format(fmt: str) -> None:
    """131 of the 137 labelled cases (see CASES), each converted with the SDK's own types and a
    tool map, get ARE's verdict."""
    assert len(CASES) == 131
    wrong = []
    for case in CASES:
        expected = json.loads((case / "expected.json").read_text())
        run, has_times = converted(load_case(case), fmt)
        assert has_times
        cfg = config_from_mapping(config_for(case))
        verdict = GraphPerEventJudge(cfg).judge_run(run)
        if verdict.is_error or verdict.success != expected["success"]:
            wrong.append((case.name, expected["success"], verdict.failure_kind, str(verdict.failure)[:200]))
    assert wrong == []


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_log_without_times_reports_time_windows_as_not_checked(fmt: str) -> None:
    """The agent ordered the ride 60 s late (ARE: a time failure); without times the window cannot
    be checked: the run is judged on everything else, and the report says what was not checked."""
    case = CASES[[c.name for c in CASES].index("cab__time_shift_out__oracle_order_plus60")]
    cfg = config_from_mapping(config_for(case))
    run, has_times = converted(load_case(case), fmt, timed=fmt == "otel")
    if fmt == "otel":
        assert has_times  # spans always carry times: the late ride fails as in ARE
        assert GraphPerEventJudge(cfg).judge_run(run).success is False
        return
    assert not has_times
    j = GraphPerEventJudge(cfg).judge_run(run)
    assert j.success and not j.is_error
    assert "time not checked (oracle_order): the agent log has no timestamps" in j.notes, j.notes


def test_detection_of_every_format() -> None:
    run = load_case(CASES[0])
    for fmt in FORMATS:
        assert adapters.detect(json.loads(json.dumps(CONVERT[fmt](run.events, alias)))) == fmt


def test_tool_map_renames_tools_and_arguments_and_unmapped_tools_are_named(tmp_path: Path) -> None:
    scenario = yaml.safe_load((EXAMPLE / "email_reply.yaml").read_text())
    scenario.pop("runs")
    log = [
        {"role": "user", "content": "Email Grace the Q3 numbers, cc Alan."},
        {
            "role": "assistant",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {
                        "name": "email",
                        "arguments": json.dumps(
                            {"to": ["grace@example.com"], "cc": ["alan@example.com"], "subject": "Q3", "body": "Q3"}
                        ),
                    },
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": '{"ok": true}'},
        {"role": "assistant", "content": "Done, sent."},
    ]
    (tmp_path / "log.json").write_text(json.dumps(log))
    tool_map = {"email": {"tool": "EmailClientV2.send_email", "args": {"to": "recipients", "body": "content"}}}
    good = {**scenario, "tool_map": tool_map, "runs": [{"id": "chat", "file": "log.json"}]}
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(good))
    assert main([str(tmp_path / "s.yaml"), "--no-color"]) == 0
    bad = {**scenario, "runs": [{"id": "chat", "file": "log.json"}]}  # no tool map: 'email' is unmapped
    (tmp_path / "s.yaml").write_text(yaml.safe_dump(bad))
    assert main([str(tmp_path / "s.yaml"), "--json"]) == 1


def test_the_unmapped_tool_is_named_in_the_failure(tmp_path: Path, capsys) -> None:
    scenario = yaml.safe_load((EXAMPLE / "email_reply.yaml").read_text())
    log = [
        {"role": "user", "content": "Email Grace."},
        {
            "role": "assistant",
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "mailer", "arguments": "{}"}}],
        },
        {"role": "assistant", "content": "Done."},
    ]
    (tmp_path / "log.json").write_text(json.dumps(log))
    (tmp_path / "s.yaml").write_text(yaml.safe_dump({**scenario, "runs": [{"id": "chat", "file": "log.json"}]}))
    assert main([str(tmp_path / "s.yaml"), "--no-color"]) == 1
    assert "unmapped__mailer" in capsys.readouterr().out


@pytest.mark.parametrize(
    "log,why",
    [
        ({"nothing": 1}, "not an agent log in a known format"),
        (
            [{"role": "assistant", "tool_calls": [{"id": "x", "function": {"name": "a", "arguments": "{oops"}}]}],
            "not JSON",
        ),
        ([{"role": "assistant", "tool_calls": [{"id": "x", "function": {"arguments": "{}"}}]}], "without a tool name"),
    ],
)
def test_a_bad_log_is_an_input_error_naming_the_file(log: Any, why: str) -> None:
    with pytest.raises(InputError) as err:
        adapters.read_log(log, file="agent.json")
    assert err.value.file == "agent.json" and why in str(err.value)


def test_a_bad_tool_map_is_an_input_error() -> None:
    with pytest.raises(InputError, match=r"is not 'App\.function'"):
        adapters.check_tool_map({"x": "nodot"}, file="s.yaml")
    with pytest.raises(InputError, match=r"tool_map\.x"):
        adapters.check_tool_map({"x": {"tool": "A.b", "argz": {}}}, file="s.yaml")


def test_failed_calls_are_ignored_and_model_dump_of_langchain_messages_is_read() -> None:
    from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

    anthropic_log = [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "CabApp__order_ride", "input": {}}]},
        {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "boom", "is_error": True}],
        },
    ]
    events, _ = adapters.read_log(anthropic_log, file="a.json")
    assert events[1]["error"] == "boom"
    lc = [
        HumanMessage(content="hi").model_dump(),
        AIMessage(content="", tool_calls=[{"name": "CabApp__order_ride", "args": {"a": 1}, "id": "c1"}]).model_dump(),
        ToolMessage(content='{"ride": 1}', tool_call_id="c1").model_dump(),
        AIMessage(content="Booked.").model_dump(),
    ]
    assert adapters.detect(lc) == "langchain"
    events, timed = adapters.read_log(lc, file="lc.json", user_ids=["ask"])
    assert not timed
    assert [(e["tool"], e.get("returns")) for e in events] == [
        ("AgentUserInterface.send_message_to_agent", None),
        ("CabApp.order_ride", {"ride": 1}),
        ("AgentUserInterface.send_message_to_user", None),
    ]
    assert events[0]["id"] == "ask" and events[1]["operation"] == "write"


def test_runs_whose_time_was_not_checked_are_shown_in_the_cli_and_the_session_summary(
    tmp_path: Path, capsys, pytester: pytest.Pytester, run_pytest
) -> None:
    src = EXAMPLE / "adapters"
    scenario = yaml.safe_load((src / "ride_to_airport.yaml").read_text())
    scenario["events"][1]["delay"] = 30  # the ride must be ordered 30 s after the request (±)
    scenario["runs"] = [{"id": "chat", "file": "openai_chat.log.json"}]
    for folder in (tmp_path, pytester.path):
        (folder / "s.yaml").write_text(yaml.safe_dump(scenario))
        (folder / "openai_chat.log.json").write_text((src / "logs" / "openai_chat.log.json").read_text())
    assert main([str(tmp_path), "--no-color"]) == 0
    assert "note ride_to_airport:chat: time not checked (order): the agent log has no timestamps" in (
        capsys.readouterr().out
    )
    result = run_pytest("--are-scenarios=.", "-p", "no:xdist")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["time not checked: 1 run(s) (their agent logs have no timestamps*"])


def test_the_format_option_forces_the_reader_in_the_cli_and_the_plugin(
    tmp_path: Path, capsys, pytester: pytest.Pytester, run_pytest
) -> None:
    src = EXAMPLE / "adapters"
    scenario = yaml.safe_load((src / "ride_to_airport.yaml").read_text())
    scenario["runs"] = [{"id": "chat", "file": "chat.log.json"}]
    for folder in (tmp_path, pytester.path):
        (folder / "s.yaml").write_text(yaml.safe_dump(scenario))
        (folder / "chat.log.json").write_text((src / "logs" / "openai_chat.log.json").read_text())
    assert main([str(tmp_path), "--json"]) == 0  # detected: openai_chat
    capsys.readouterr()
    assert main([str(tmp_path), "--json", "--format", "anthropic"]) == 1  # read as Anthropic: no tool calls
    assert json.loads(capsys.readouterr().out)["failure_kind"] == "tool_count"
    run_pytest("--are-scenarios=.", "-p", "no:xdist").assert_outcomes(passed=1)
    run_pytest("--are-scenarios=.", "-p", "no:xdist", "--are-format=anthropic").assert_outcomes(failed=1)


def test_reports_never_draw_a_window_that_was_not_checked_and_say_so() -> None:
    from pytest_are_judge.report import build_report, render_markdown, run_record

    case = CASES[[c.name for c in CASES].index("cab__time_shift_out__oracle_order_plus60")]
    run, _ = converted(load_case(case), "openai_chat", timed=False)
    j = GraphPerEventJudge(config_from_mapping(config_for(case))).judge_run(run)
    node = next(n for n in j.trace.oracle if n.id == "oracle_order")
    assert node.state == "matched" and node.window is None  # no checked window is drawn
    timed_run, _ = converted(load_case(case), "openai_chat", timed=True)
    timed = GraphPerEventJudge(config_from_mapping(config_for(case))).judge_run(timed_run)
    assert next(n for n in timed.trace.oracle if n.id == "oracle_order").window is not None
    md = render_markdown(build_report([run_record(j)]))
    assert f"Time windows not checked (agent logs without timestamps): `{j.scenario_id}:{j.run_id}`." in md
