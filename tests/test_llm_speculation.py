"""Speculation (``llm_options.speculate``): soft checks asked ahead, concurrently, give the
verdicts of ARE's order; without it, only the calls ARE's order needs are made."""

from __future__ import annotations

import re
from typing import Any

import pytest
from builders import run, scenario
from llm_server import FakeLLMServer, Reply, fence_of, last_user_message

from pytest_are_judge.judge import GraphPerEventJudge, GraphPerEventJudgeConfig

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def ride(eid: str, end: str, after: list[str]) -> dict[str, Any]:
    return {
        "id": eid,
        "tool": "CabApp.order_ride",
        "args": {"start_location": "Home", "end_location": end, "service_type": "Default"},
        "after": after,
        "delay": 0.5,
    }


def agent_ride(t: float, eid: str, end: str) -> dict[str, Any]:
    return {
        "id": eid,
        "tool": "CabApp.order_ride",
        "args": {"start_location": "home", "end_location": end, "service_type": "Default"},
        "time": t,
    }


# two rides ordered at once; the agent wrote them in the other order and in other words
SC = scenario([ride("to_airport", "Airport", ["user_msg"]), ride("to_hotel", "Hotel", ["user_msg"])])
RUN = run(SC, [agent_ride(1.2, "a_hotel", "Hotel Lutetia, Paris"), agent_ride(1.3, "a_airport", "CDG airport")])


def destinations(request: dict[str, Any]) -> tuple[str, str]:
    text = last_user_message(request)
    ref = re.search(r"<reference_call>.*?end_location: (.*?)\n", text, re.S)
    agent = re.search(r"<agent_call[^>]*>.*?end_location: (.*?)\n", text, re.S)
    assert ref and agent
    return ref.group(1), agent.group(1)


def same_place(request: dict[str, Any]) -> str:
    """A model that compares the first word of the reference's destination."""
    ref, agent = destinations(request)
    ok = ref.split()[0].lower() in agent.lower()
    return f"{'[[Success]]' if ok else '[[Failure]]'} {fence_of(request)}"


def judge(server: FakeLLMServer, **opts: Any) -> GraphPerEventJudge:
    return GraphPerEventJudge(
        GraphPerEventJudgeConfig(
            llm=True,
            judge_provider="openai",
            judge_endpoint=server.base_url,
            judge_model="judge",
            llm_options={"max_retries": 0, **opts},
        )
    )


@pytest.fixture
def server():
    with FakeLLMServer(responder=same_place, latency=0.1) as s:
        yield s


def test_without_speculation_only_the_calls_of_ares_order_are_made(server) -> None:
    j = judge(server).judge_run(RUN)
    assert j.success, j.render()
    # to_airport: a_hotel (no), a_airport (yes); to_hotel: a_hotel (yes) -- one at a time
    assert [destinations(r) for r in server.requests] == [
        ("Airport", "Hotel Lutetia, Paris"),
        ("Airport", "CDG airport"),
        ("Hotel", "Hotel Lutetia, Paris"),
    ]
    assert server.max_in_flight == 1


def test_speculation_gives_the_same_verdict_and_matches_in_fewer_round_trips(server) -> None:
    plain = judge(server).judge_run(RUN)
    server.reset()
    ahead = judge(server, speculate=True).judge_run(RUN)
    assert ahead.success == plain.success is True
    assert ahead.agent_event_id_to_oracle_event_id == plain.agent_event_id_to_oracle_event_id
    # guessed ahead, at once: to_airport-a_hotel and to_hotel-a_airport (both wrong guesses);
    # then ARE's order asks to_airport-a_airport and to_hotel-a_hotel
    assert server.call_count == 4 and server.max_in_flight == 2


def test_when_the_guesses_are_right_a_turn_costs_one_round_trip(server) -> None:
    in_order = run(SC, [agent_ride(1.2, "a_airport", "CDG airport"), agent_ride(1.3, "a_hotel", "Hotel Lutetia")])
    j = judge(server, speculate=True).judge_run(in_order)
    assert j.success and server.call_count == 2 and server.max_in_flight == 2


def test_a_failing_extra_call_cannot_change_the_verdict(server) -> None:
    """The one pair ARE's order never asks (to_hotel vs a_airport) fails with HTTP 500."""

    def flaky(request: dict[str, Any]) -> str | Reply:
        if destinations(request) == ("Hotel", "CDG airport"):
            return Reply(status=500)
        return same_place(request)

    server.responder = flaky
    j = judge(server, speculate=True).judge_run(RUN)
    assert j.success and not j.is_error, j.render()
    assert ("Hotel", "CDG airport") in [destinations(r) for r in server.requests]  # it was asked, and failed


def test_speculation_agrees_with_the_sequential_order_on_failures_too(server) -> None:
    wrong = run(SC, [agent_ride(1.2, "a_hotel", "Hotel Lutetia"), agent_ride(1.3, "a_station", "Gare du Nord")])
    plain = judge(server).judge_run(wrong)
    server.reset()
    ahead = judge(server, speculate=True).judge_run(wrong)
    assert plain.success is False and not plain.is_error
    assert (ahead.success, ahead.failure_kind, str(ahead.failure)) == (
        plain.success,
        plain.failure_kind,
        str(plain.failure),
    )
