"""The oracle plan's fast schedule (no pydantic events) equals the general path: the derived
oracle run of ARE's oracle mode, then ARE's preprocessing and event filter."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_are_judge.checkers import load_tool_registry
from pytest_are_judge.errors import InputError
from pytest_are_judge.judge import oracle
from pytest_are_judge.judge.events import judged_events
from pytest_are_judge.model import EventType, OperationType, OracleEvent, Scenario, ToolCall

REGISTRY = frozenset(load_tool_registry())
TOOLS = [
    ("AgentUserInterface", "AgentUserInterface", "send_message_to_user"),
    ("AgentUserInterface", "AgentUserInterface", "send_message_to_agent"),
    ("Emails", "EmailClientV2", "send_email"),
    ("Emails", "EmailClientV2", "get_email_by_id"),
    ("Shop", "ShoppingApp", "add_to_cart"),
    ("Shop", "ShoppingApp", "list_all_products"),
    ("Notes", "NotesApp", "make_note"),  # not in the registry: operation type inferred from the name
]
TYPES = [EventType.USER, EventType.ENV, EventType.AGENT, EventType.AGENT, EventType.AGENT, EventType.CONDITION]


@st.composite
def scenarios(draw: st.DrawFn) -> Scenario:
    n = draw(st.integers(1, 9))
    events: list[OracleEvent] = []
    for i in range(n):
        etype = draw(st.sampled_from(TYPES))
        eid = draw(st.sampled_from([f"e{i}", f"env_expansion_{i}", f"a{i}"]))
        if any(e.event_id == eid for e in events):
            eid = f"x{i}"
        parents = (
            draw(st.lists(st.sampled_from([e.event_id for e in events]), max_size=3, unique=True)) if events else []
        )
        action = None
        if draw(st.integers(0, 9)) > 0:
            app, cls, fn = draw(st.sampled_from(TOOLS))
            op = draw(st.sampled_from([None, OperationType.READ, OperationType.WRITE]))
            action = ToolCall(
                app=app, app_class=cls, function=fn, args={"n": i, "text": f"t{i % 3}"}, operation_type=op
            )
        absolute = draw(st.booleans()) and draw(st.booleans())
        events.append(
            OracleEvent(
                event_id=eid,
                event_type=etype,
                action=action,
                dependencies=parents,
                relative_time=None if absolute else draw(st.sampled_from([0.0, 1.0, 2.5])),
                absolute_time=draw(st.sampled_from([100.0, 101.0, 102.0])) if absolute else None,
            )
        )
    return Scenario(scenario_id="s", start_time=100.0, events=events)


def _view(evs: list) -> list[tuple]:
    return [(e.event_id, e.event_type, e.event_time, e.tool_name, dict(e.args)) for e in evs]


@settings(max_examples=300, deadline=None)
@given(scenarios())
def test_fast_schedule_equals_derived_run_then_filter(sc: Scenario) -> None:
    order = oracle._topological(sc.events, file=None)
    fast = oracle._schedule(sc, REGISTRY, order)
    assert fast is not None  # no call that ARE's preprocessing rewrites
    derived = oracle.derive_oracle_run(sc, REGISTRY, order=order)
    assert _view(fast) == _view(derived)  # every scheduled event (the tasks read them all)
    assert _view([e for e in fast if e.kept]) == _view(judged_events(derived))


def _scenario_with(cls: str, fn: str) -> Scenario:
    return Scenario(
        scenario_id="s",
        events=[
            OracleEvent(
                event_id="u",
                event_type=EventType.USER,
                action=ToolCall(
                    app="AgentUserInterface",
                    app_class="AgentUserInterface",
                    function="send_message_to_agent",
                    args={"content": "x"},
                ),
            ),
            OracleEvent(
                event_id="a",
                event_type=EventType.AGENT,
                dependencies=["u"],
                relative_time=1.0,
                action=ToolCall(
                    app=cls, app_class=cls, function=fn, args={"email_id": "1"}, operation_type=OperationType.WRITE
                ),
            ),
        ],
    )


def test_a_call_that_preprocessing_rewrites_takes_the_general_path() -> None:
    sc = _scenario_with("EmailClientV2", "add_email")
    assert oracle._schedule(sc, REGISTRY, oracle._topological(sc.events, file=None)) is None
    plan = oracle.build_plan(sc, REGISTRY)
    assert plan.steps["a"].event_type == EventType.ENV  # ARE re-types add_email as an ENV event


def test_build_plan_gives_the_same_plan_either_way() -> None:
    sc = _scenario_with("Shop", "add_to_cart")
    fast = oracle.build_plan(sc, REGISTRY)
    general = oracle.build_plan(sc.model_copy(update={"oracle_run": oracle.derive_oracle_run(sc, REGISTRY)}), REGISTRY)
    assert [
        [(s.event_id, s.event_type, s.event_time, s.tool_name, s.args, s.parents) for s in t] for t in fast.turns
    ] == [[(s.event_id, s.event_type, s.event_time, s.tool_name, s.args, s.parents) for s in t] for t in general.turns]
    assert fast.tasks == general.tasks


def test_a_misspelt_tool_of_a_known_app_is_an_input_error_with_suggestions() -> None:
    with pytest.raises(InputError) as err:
        oracle.build_plan(_scenario_with("EmailClientV2", "send_emial"), REGISTRY)
    assert err.value.event_id == "a" and err.value.field == "tool"
    assert "EmailClientV2 has no tool 'send_emial'" in str(err.value) and "did you mean send_email" in str(err.value)


def test_an_argument_the_tool_does_not_take_is_an_input_error_naming_it() -> None:
    oracle.build_plan(_scenario_with("EmailClientV2", "delete_email"), REGISTRY)  # takes email_id: fine
    sc = _scenario_with("EmailClientV2", "delete_email")
    sc.events[1].action.args = {"mail_id": "1"}  # type: ignore[union-attr]
    with pytest.raises(InputError) as err:
        oracle.build_plan(sc, REGISTRY)
    assert err.value.field == "args.mail_id" and "its arguments: email_id" in str(err.value)


def test_a_custom_app_is_not_checked_against_are_signatures() -> None:
    plan = oracle.build_plan(_scenario_with("MyCRM", "open_ticket"), REGISTRY)
    assert plan.steps["a"].tool_name == "MyCRM__open_ticket"
