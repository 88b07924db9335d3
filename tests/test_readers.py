"""Readers: ARE export decoding, native scenarios, and clear errors for bad input."""

from __future__ import annotations

import json

import pytest
from conformance import TRACES

from pytest_are_judge.errors import InputError
from pytest_are_judge.pipeline import load_config
from pytest_are_judge.readers import load_file, load_runs
from pytest_are_judge.readers.are_json import parse_arg_value, read_export
from pytest_are_judge.readers.native import json_schema

W = {"file": "f.json", "event_id": "e", "field": "x"}


@pytest.mark.parametrize(
    "value,vtype,expected",
    [
        ("2", "str", "2"),
        ("2", "int", 2),
        ("2.5", "float", 2.5),
        ("True", "bool", True),
        ("yes", "bool", True),
        ("False", "bool", False),
        ('["a", "b"]', "list[str] | None", ["a", "b"]),
        ("['a', 'b']", "list", ["a", "b"]),  # Python repr: ARE cannot re-import it, we can
        ('{"k": 1}', "dict[str, Any]", {"k": 1}),
        ("{{oracle_x}}", "str", "{{oracle_x}}"),
        ("x", "Optional[str]", "x"),
        (None, None, None),
        ("2024-10-07", "datetime", "2024-10-07"),
    ],
)
def test_arg_decoding_follows_value_type(value, vtype, expected):
    assert parse_arg_value(value, vtype, where=W) == expected


def test_undecodable_value_names_file_event_and_field():
    with pytest.raises(InputError) as ei:
        parse_arg_value("abc", "int", where=W)
    msg = str(ei.value)
    assert "file f.json" in msg and "event e" in msg and "field x" in msg and "'int'" in msg


@pytest.fixture()
def cab():
    return json.loads((TRACES / "cab.json").read_text())


def test_export_maps_app_names_to_classes(cab):
    run = read_export(cab, file="cab.json")
    tools = [e.tool_name for e in run.events]
    assert "CabApp__order_ride" in tools and "AgentUserInterface__send_message_to_user" in tools
    assert run.scenario.user is not None and run.scenario.user.full_name == "Sam Rivera"
    assert run.scenario.start_time == 1728000000.0


@pytest.mark.parametrize(
    "mutate,needle",
    [
        (lambda d: d.update(version="v0"), "unsupported export version"),
        (lambda d: d["events"][1].update(dependencies=["nope"]), "dependency 'nope'"),
        (lambda d: d["events"][1].update(event_type="BOGUS"), "event_type must be one of"),
        (lambda d: d["completed_events"][1].update(event_time="soon"), "expected a number of seconds"),
        (lambda d: d["events"][2].update(event_time_comparator="ABOUT"), "event_time_comparator"),
        (lambda d: d["metadata"]["definition"].update(start_time=None), "start_time"),
    ],
)
def test_malformed_exports_are_clear_input_errors(cab, mutate, needle, tmp_path):
    mutate(cab)
    p = tmp_path / "bad.json"
    p.write_text(json.dumps(cab))
    runs, errors = load_runs([p])
    assert runs == [] and len(errors) == 1
    assert needle in str(errors[0]) and str(p) in str(errors[0])


def test_not_json_is_an_input_error(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{not json")
    with pytest.raises(InputError, match=r"cannot parse JSON at line 1"):
        load_file(p)


def test_unknown_document_is_an_input_error(tmp_path):
    p = tmp_path / "x.json"
    p.write_text('{"hello": 1}')
    with pytest.raises(InputError, match="not a scenario"):
        load_file(p)


def test_oracle_trace_in_folder_supplies_oracle_side(tmp_path, cab):
    (tmp_path / "oracle.json").write_text(json.dumps(cab))
    agent = json.loads(json.dumps(cab))
    for e in agent["completed_events"]:
        if e["event_type"] == "AGENT":
            e["event_id"] = "agent-" + e["event_id"]
    (tmp_path / "agent.json").write_text(json.dumps(agent))
    runs, errors = load_runs([tmp_path])
    assert not errors and len(runs) == 1
    assert runs[0].scenario.oracle_run is not None and runs[0].run_id == "agent"


NATIVE = """
scenario_id: demo
start_time: 1000
events:
  - {id: ask, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: hi}, delay: 1}
  - {id: buy, tool: Shopping.add_to_cart, args: {item_id: i1, quantity: 1}, after: [ask], delay: 2}
runs:
  - id: good
    events:
      - {id: ask, type: user, tool: AgentUserInterface.send_message_to_agent, args: {content: hi}, time: 1}
      - {id: a1, tool: Shopping.add_to_cart, args: {item_id: i1, quantity: 1}, time: 3}
  - id: bad
    expect: fail
    file: bad.log.json
"""


def test_native_scenario_with_inline_and_file_runs(tmp_path):
    (tmp_path / "demo.yaml").write_text(NATIVE)
    (tmp_path / "bad.log.json").write_text(
        json.dumps(
            [
                {
                    "id": "ask",
                    "type": "user",
                    "tool": "AgentUserInterface.send_message_to_agent",
                    "args": {"content": "hi"},
                    "time": 1,
                }
            ]
        )
    )
    runs, errors = load_runs([tmp_path])
    assert not errors
    assert [(r.run_id, r.expected) for r in runs] == [("good", None), ("bad", "fail")]


def test_native_errors_name_the_event(tmp_path):
    p = tmp_path / "demo.yaml"
    p.write_text(NATIVE.replace("delay: 2}", "delay: soon}"))
    with pytest.raises(InputError) as ei:
        load_file(p)
    assert "event 'buy' field delay" in str(ei.value)


def test_native_yaml_syntax_error_has_a_line(tmp_path):
    p = tmp_path / "demo.yaml"
    p.write_text("scenario_id: [oops\n")
    with pytest.raises(InputError, match="cannot parse YAML at line"):
        load_file(p)


def test_not_utf8_is_an_input_error_naming_the_file(tmp_path):
    p = tmp_path / "demo.yaml"
    p.write_bytes(NATIVE.encode() + b"# caf\xe9\n")  # latin-1, not UTF-8
    with pytest.raises(InputError, match="not valid UTF-8") as ei:
        load_file(p)
    assert ei.value.file == str(p)
    cfg = tmp_path / "judge.yaml"
    cfg.write_bytes(b"matching: exact # \xff\n")
    with pytest.raises(InputError, match="not valid UTF-8") as ei:
        load_config(cfg)
    assert ei.value.file == str(cfg)


def test_line_endings_do_not_matter(tmp_path):
    seen = []
    for name, eol in (("lf", "\n"), ("crlf", "\r\n"), ("cr", "\r")):
        d = tmp_path / name
        d.mkdir()
        (d / "bad.log.json").write_text(
            json.dumps(
                [
                    {
                        "id": "ask",
                        "type": "user",
                        "tool": "AgentUserInterface.send_message_to_agent",
                        "args": {"content": "hi"},
                        "time": 1,
                    }
                ]
            )
        )
        (d / "demo.yaml").write_bytes(NATIVE.replace("\n", eol).encode())
        runs = [r.model_dump(mode="json") for r in load_file(d / "demo.yaml").runs]
        seen.append(json.dumps(runs).replace(str(d), "<dir>"))
    assert len(json.loads(seen[0])) == 2 and seen[0] == seen[1] == seen[2]


def test_native_agent_event_needs_a_dependency(tmp_path):
    p = tmp_path / "demo.yaml"
    p.write_text(NATIVE.replace("after: [ask], ", ""))
    with pytest.raises(InputError, match="needs at least one dependency"):
        load_file(p)


def test_schema_is_published_and_current():
    from pathlib import Path

    schema = json_schema()
    assert schema["title"] == "pytest-are-judge scenario"
    assert "events" in schema["properties"]
    published = Path(__file__).parent.parent / "docs" / "scenario.schema.json"
    assert json.loads(published.read_text()) == schema, (
        "regenerate with: are-judge --schema > docs/scenario.schema.json"
    )


def test_dependency_cycle_is_named(tmp_path):
    p = tmp_path / "demo.yaml"
    p.write_text(NATIVE.replace("after: [ask]", "after: [ask, buy]"))
    (tmp_path / "bad.log.json").write_text("[]")
    from pytest_are_judge.judge import GraphPerEventJudge

    runs, errors = load_runs([p])
    assert not errors, errors
    j = GraphPerEventJudge().judge_run(runs[0])
    assert j.is_error and "cycle: buy -> buy" in str(j.failure)


def test_condition_events_with_non_app_actions_are_tolerated(cab):
    cab["events"].append(
        {
            "class_name": "ConditionCheckEvent",
            "event_type": "CONDITION",
            "event_time": None,
            "event_id": "cond_1",
            "dependencies": ["user_msg_0"],
            "event_relative_time": 1.0,
            "action": {"function": "<lambda>", "args": []},
        }
    )
    run = read_export(cab, file="cab.json")
    cond = next(e for e in run.scenario.events if e.event_id == "cond_1")
    assert cond.action is None


def test_add_email_by_the_agent_counts_as_env_event(cab):
    from pytest_are_judge.judge.events import judged_events, preprocess
    from pytest_are_judge.model import Event, EventType, OperationType, ToolCall

    ev = Event(
        event_id="x",
        event_type=EventType.AGENT,
        action=ToolCall(
            app="Emails", app_class="EmailClientV2", function="add_email", operation_type=OperationType.WRITE
        ),
    )
    assert preprocess(ev).event_type == EventType.ENV
    mk = Event(
        event_id="y",
        event_type=EventType.AGENT,
        action=ToolCall(
            app="Files", app_class="SandboxLocalFileSystem", function="makedirs", operation_type=OperationType.WRITE
        ),
    )
    assert preprocess(mk).tool_name == "SandboxLocalFileSystem__mkdir"
    files_mk = mk.model_copy(update={"action": mk.action.model_copy(update={"app_class": "Files"})})
    assert preprocess(files_mk).tool_name == "Files__makedirs"  # ARE Q19, kept
    quote = Event(
        event_id="q",
        event_type=EventType.AGENT,
        action=ToolCall(app="Cabs", app_class="CabApp", function="get_quotation", operation_type=OperationType.WRITE),
    )
    assert judged_events([quote]) == []
