"""Using pytest-are-judge from ordinary test functions: fixtures, markers and assertions.

Run it from the repository root:  pytest docs/examples/test_with_fixtures.py
(it judges the scenarios in example_scenarios/).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from pytest_are_judge import assert_judged

SCENARIOS = Path(__file__).resolve().parents[2] / "example_scenarios"


@pytest.fixture
def judge_config():
    # Module-wide judge settings (override this fixture in a conftest.py for a whole folder).
    return {"post_event_tolerance_seconds": 30}


@pytest.mark.are_scenario(SCENARIOS / "office_move.yaml", run="good")
def test_bound_run_passes(are_judgment, agent_events, oracle_events):
    assert are_judgment.success
    assert len(agent_events) == 8
    assert {e.event_id for e in oracle_events} >= {"mkdir", "mv_q1", "mv_q2", "checkout"}


@pytest.mark.are_scenario(SCENARIOS / "office_move.yaml", run="checkout_before_tape")
def test_bound_run_is_rejected_for_causality(are_judgment):
    assert not are_judgment.success
    assert are_judgment.failure.categories == ["causality"]


@pytest.mark.parametrize(
    "are_scenario",
    [(SCENARIOS / "team_dinner.yaml", "good"), {"path": SCENARIOS / "email_reply.yaml", "run": "good"}],
    ids=["dinner", "email"],
)
def test_parametrised_scenarios(are_judge, are_run):
    are_judge.assert_judged(are_run)


@pytest.mark.judge_config(extra_send_message_to_user_allowed=0)
def test_marker_tightens_the_judge(are_judge, load_scenario):
    run = load_scenario(SCENARIOS / "new_client_ride.yaml", run="chatty")
    assert are_judge.config.extra_send_message_to_user_allowed == 0
    assert are_judge.config.post_event_tolerance_seconds == 30  # from the judge_config fixture
    assert not are_judge(run).success


def test_assertion_helper_on_events(load_scenario):
    good = load_scenario(SCENARIOS / "email_reply.yaml", run="good")
    # events + scenario, any judge_config kwargs
    judgment = assert_judged(good.events, good.scenario, matching="exact")
    assert judgment.agent_event_id_to_oracle_event_id["a1"] == "send"
