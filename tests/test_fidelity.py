"""ARE-exact verdicts for the five kinds of divergence found on unseen traces, on cases built
from the real ARE traces in tests/data/are (our own mutations; ARE's verdict for each follows
from docs/are-differences.md and the spec): derived oracles get ARE's tool defaults, placeholders
to read-only oracle calls, checkers that raise, phone numbers, duplicate agent event ids.  Each
runs in both oracle modes where the mutation allows (an oracle-run trace, or the oracle derived
from the scenario definition)."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from conformance import CASES

from pytest_are_judge.checkers._signatures import signature
from pytest_are_judge.judge import GraphPerEventJudge, config_from_mapping
from pytest_are_judge.readers.are_json import read_export

REPLAY = {"cab": "cab__replay__exact_ids", "calendar": "calendar__replay__exact_ids"}


def load(trace: str) -> tuple[dict[str, Any], dict[str, Any]]:
    case = CASES / REPLAY[trace]
    return json.loads((case / "agent.json").read_text()), json.loads((case / "oracle.json").read_text())


def judge(agent: dict[str, Any], oracle: dict[str, Any] | None, **cfg: Any) -> Any:
    run = read_export(agent, file="agent.json", oracle=oracle, oracle_file="oracle.json" if oracle else None)
    return GraphPerEventJudge(config_from_mapping({"soft_fallback": "ignore", **cfg})).judge_run(run)


def event(data: dict[str, Any], eid: str, *, completed: bool = True) -> dict[str, Any]:
    return next(e for e in data["completed_events" if completed else "events"] if e["event_id"] == eid)


def set_arg(ev: dict[str, Any], name: str, value: Any, value_type: str | None = "str") -> None:
    for a in ev["action"]["args"]:
        if a["name"] == name:
            a["value"], a["value_type"] = value, value_type
            return
    ev["action"]["args"].append({"name": name, "value": value, "value_type": value_type})


def drop_arg(ev: dict[str, Any], name: str) -> None:
    ev["action"]["args"] = [a for a in ev["action"]["args"] if a["name"] != name]


BOTH = pytest.mark.parametrize("mode", ["oracle_trace", "derived"])


# ------------------------------------------------------------------ 1. ARE's tool defaults


def test_a_derived_oracle_has_the_defaults_of_omitted_arguments() -> None:
    """The definition omits ``start_datetime`` (default None); the agent passes a time.  ARE's
    simulation records start_datetime=None, so the datetime check fails; without the signature
    the argument would go unchecked (a false pass)."""
    agent, _ = load("calendar")
    drop_arg(event(agent, "oracle_add", completed=False), "start_datetime")
    j = judge(agent, None)
    assert j.success is False and j.failure_kind == "oracle_event_matching"
    text = str(j.failure)
    # every argument of the signature, in signature order, as ARE's failure text lists them
    assert (
        "-title: Project sync\n-start_datetime: None\n-end_datetime: 2024-10-07 11:00:00\n-tag: None\n"
        "-description: None\n-location: Room 4\n-attendees: ['Alice Martin', 'Bob Stone']\n"
    ) in text


def test_derived_failure_texts_equal_ares_on_every_labelled_case() -> None:
    from conformance import case_dirs, config_for

    mismatches = []
    for case in case_dirs():
        exp = json.loads((case / "expected.json").read_text())
        run = read_export(json.loads((case / "agent.json").read_text()), file=str(case / "agent.json"))
        j = GraphPerEventJudge(config_from_mapping(config_for(case))).judge_run(run)
        if j.success != exp["success"] or (exp["failure"] is not None and str(j.failure) != exp["failure"]):
            mismatches.append(case.name)
    assert mismatches == []


# ------------------------------------------------------------------ 2. placeholders to read-only calls


def _quote_placeholder() -> tuple[dict[str, Any], dict[str, Any]]:
    agent, oracle = load("cab")
    set_arg(event(agent, "oracle_order", completed=False), "service_type", "{{oracle_quote}}")
    quote = event(agent, "oracle_quote")
    quote["metadata"]["return_value"] = "Premium"  # the agent's own quotation call answered "Premium"
    return agent, oracle


def test_a_placeholder_to_a_read_is_resolved_from_the_agents_equal_read_call() -> None:
    agent, _ = _quote_placeholder()
    j = judge(agent, None)
    assert j.success is True, j.render()  # "{{oracle_quote}}" -> "Premium", as ARE's simulation
    event(agent, "oracle_quote")["metadata"]["return_value"] = "Default"
    j = judge(agent, None)
    assert j.success is False and "-service_type: Default" in str(j.failure)


def test_without_an_equal_read_call_it_is_an_input_error_never_a_compare_with_the_literal() -> None:
    agent, _ = _quote_placeholder()
    set_arg(event(agent, "oracle_quote"), "ride_time", "2024-10-07 09:00:00")  # not the oracle's call
    j = judge(agent, None)
    assert j.is_error and j.failure_kind == "input_error"
    text = j.render()
    assert "'{{oracle_quote}}'" in text and "oracle-run trace" in text and "event oracle_order" in text


# ------------------------------------------------------------------ 3. where ARE raises


@BOTH
def test_a_missing_agent_argument_fails_like_are(mode: str) -> None:
    agent, oracle = load("calendar")
    drop_arg(event(agent, "oracle_add"), "attendees")  # ARE: KeyError -> "Exception"
    j = judge(agent, oracle if mode == "oracle_trace" else None)
    assert j.success is False and not j.is_error and str(j.failure) == "Exception"
    assert j.failure.arg == "attendees" and j.failure.oracle_event_id == "oracle_add"
    assert "missing from the agent's call" in j.render()
    r = judge(agent, oracle if mode == "oracle_trace" else None, checker_errors="reject")
    assert r.success is False and r.failure_kind == "oracle_event_matching"


@BOTH
def test_a_non_list_for_a_list_checker_fails_like_are(mode: str) -> None:
    agent, oracle = load("calendar")
    set_arg(event(agent, "oracle_add"), "attendees", "7", "int")
    j = judge(agent, oracle if mode == "oracle_trace" else None)
    assert j.success is False and str(j.failure) == "Exception" and j.failure.checker == "list_attendees_checker"


@BOTH
def test_a_raising_scripted_check_fails_like_are(mode: str) -> None:
    agent, oracle = load("calendar")
    set_arg(event(agent, "oracle_smtu"), "content", None, None)  # contain_any on None: ARE raises
    params = {
        "oracle_smtu": [
            {"arg_name": "content", "checker_type": "contain_any_checker", "checker_args": {"targets": ["sync"]}}
        ]
    }
    j = judge(agent, oracle if mode == "oracle_trace" else None, event_id_to_checker_params=params)
    assert j.success is False and str(j.failure) == "Exception" and j.failure.checker == "contain_any_checker"


# ------------------------------------------------------------------ 4. phone numbers


def _with_contact(phone_oracle: str, phone_agent: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The calendar trace with one more oracle call, ContactsApp.add_new_contact, done by the agent."""
    agent, oracle = load("calendar")
    agent["apps"].append({"name": "ContactsApp", "class_name": "ContactsApp", "app_state": {}})
    oracle["apps"].append({"name": "ContactsApp", "class_name": "ContactsApp", "app_state": {}})
    definition = {
        "event_id": "oracle_contact",
        "event_type": "AGENT",
        "event_time": None,
        "event_relative_time": 1,
        "dependencies": ["user_msg_0"],
        "action": {
            "app": "ContactsApp",
            "function": "add_new_contact",
            "args": [
                {"name": "first_name", "value": "Dana", "value_type": "str"},
                {"name": "last_name", "value": "Scully", "value_type": "str"},
                {"name": "phone", "value": phone_oracle, "value_type": "str"},
            ],
        },
    }
    for data in (agent, oracle):
        data["events"].append(copy.deepcopy(definition))
    call = copy.deepcopy(event(agent, "oracle_delete"))
    call["event_id"] = "oracle_contact"
    call["event_time"] = 1728000002.0
    # ARE records every argument of the signature (defaults included) in completed events
    sig = signature("ContactsApp", "add_new_contact")
    assert sig is not None
    full = sig.with_defaults({"first_name": "Dana", "last_name": "Scully", "phone": phone_agent})
    call["action"] = {
        "app": "ContactsApp",
        "function": "add_new_contact",
        "operation_type": "WRITE",
        "args": [{"name": k, "value": v, "value_type": "str" if v is not None else None} for k, v in full.items()],
    }
    oracle_call = copy.deepcopy(call)
    set_arg(oracle_call, "phone", phone_oracle)
    agent["completed_events"].insert(2, call)
    oracle["completed_events"].insert(2, oracle_call)
    return agent, oracle


@BOTH
def test_phone_numbers_compare_digits_like_are_by_default(mode: str) -> None:
    agent, oracle = _with_contact("+1 415 555 0100", "(415) 555-0100")
    side = oracle if mode == "oracle_trace" else None
    assert judge(agent, side).success is False  # digits 14155550100 vs 4155550100
    assert judge(agent, side, phone_match="e164").success is True  # the same E.164 number
    agent, oracle = _with_contact("+1 415 555 0100", "+1 (415) 555-0100")
    assert judge(agent, oracle if mode == "oracle_trace" else None).success is True  # equal digits


# ------------------------------------------------------------------ 5. duplicate agent event ids


@BOTH
def test_duplicate_agent_event_ids_are_an_input_error(mode: str) -> None:
    agent, oracle = load("calendar")
    event(agent, "oracle_smtu")["event_id"] = "oracle_delete"
    j = judge(agent, oracle if mode == "oracle_trace" else None)
    assert j.is_error and j.failure_kind == "input_error"
    assert "'oracle_delete'" in j.render() and "must be unique" in j.render()
