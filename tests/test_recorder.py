"""Recording a live run (pytest_are_judge.Recorder and the are_recorder fixture): judged like any
run, saved so that it can be replayed offline."""

from __future__ import annotations

import asyncio
import itertools
import json
import shutil
from pathlib import Path

import pytest

from pytest_are_judge import Recorder
from pytest_are_judge.cli import main

EXAMPLE = Path(__file__).resolve().parent.parent / "example_scenarios" / "recorder"
ASK = "Book a table for two at Chez Nous tonight at 8pm."


def ticking() -> itertools.count[float]:
    return itertools.count(0.0, 1.5)


def recorder(tmp_path: Path, **kw) -> Recorder:
    shutil.copytree(EXAMPLE, tmp_path / "ex", dirs_exist_ok=True)
    clock = ticking()
    return Recorder(tmp_path / "ex" / "booking.yaml", clock=lambda: next(clock), **kw)


def test_a_recorded_run_is_judged_and_replays_to_the_same_verdict(tmp_path: Path, capsys) -> None:
    rec = recorder(tmp_path)

    def find_restaurant(query: str) -> list[dict]:
        return [{"id": "r-42", "name": "Chez Nous"}]

    def book_table(restaurant: str, people: int, time: str = "2024-10-04 20:00:00") -> dict:
        return {"booking_id": "b1"}

    rec.user(ASK)
    found = rec.record(find_restaurant)(query="Chez Nous")
    rec.record(book_table)(found[0]["id"], people=2)  # positional and default arguments are recorded by name
    rec.reply("Booked.")
    assert [e["tool"] for e in rec.events] == [
        "AgentUserInterface.send_message_to_agent",
        "Bookings.search_restaurants",
        "Bookings.book_table",
        "AgentUserInterface.send_message_to_user",
    ]
    assert rec.events[2]["args"] == {"restaurant_id": "r-42", "party_size": 2, "time": "2024-10-04 20:00:00"}
    assert [e["time"] for e in rec.events] == [1.5, 3.0, 4.5, 6.0]  # the injected clock
    live = rec.judge()
    assert live.success, live.render()
    rec.save(tmp_path / "ex" / "recordings" / "booking.log.json")
    assert main([str(tmp_path / "ex" / "booking.yaml"), "--json"]) == 0  # replayed offline
    assert json.loads(capsys.readouterr().out.splitlines()[0])["status"] == "PASS"


def test_async_tools_and_failing_tools_are_recorded(tmp_path: Path) -> None:
    rec = recorder(tmp_path)

    async def find_restaurant(query: str) -> list[dict]:
        await asyncio.sleep(0)
        return [{"id": "r-42"}]

    def book_table(restaurant: str, people: int, time: str) -> dict:
        raise RuntimeError("fully booked")

    rec.user(ASK)
    asyncio.run(rec.record(find_restaurant)(query="Chez Nous"))
    with pytest.raises(RuntimeError):
        rec.record(book_table)(restaurant="r-42", people=2, time="2024-10-04 20:00:00")
    assert rec.events[1]["returns"] == [{"id": "r-42"}]
    assert rec.events[2]["error"] == "RuntimeError: fully booked"
    rec.reply("Sorry, it is fully booked.")
    j = rec.judge()
    assert j.success is False and not j.is_error  # a failed call is no booking


def test_the_fixture_judges_the_live_run_when_the_test_body_passes(pytester: pytest.Pytester, run_pytest) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    pytester.makepyfile(
        test_wrong_party="""
        import agent
        import pytest

        @pytest.mark.are_scenario("booking.yaml", record="recordings/wrong.log.json")
        def test_party_of_three(are_recorder):
            tools = {"find_restaurant": are_recorder.record(agent.find_restaurant),
                     "book_table": are_recorder.record(agent.book_table)}
            ticks = iter(range(100))
            are_recorder.clock = lambda: float(next(ticks))  # an injected clock
            are_recorder.user("Book a table for two at Chez Nous tonight at 8pm.")
            are_recorder.reply(agent.run_agent("...", tools, party_size=3))
        """
    )
    result = run_pytest("-p", "no:xdist", "test_booking_agent.py", "test_wrong_party.py")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*test_party_of_three*",
            "*Agent did not perform the following oracle tool call:*",
            "tool name: RestaurantApp__book_table",
            "*recorded run: *wrong.log.json*",
        ]
    )
    saved = json.loads((pytester.path / "recordings" / "wrong.log.json").read_text())
    assert saved["events"][2]["args"]["party_size"] == 3
    assert [e["time"] for e in saved["events"]] == [1.0, 2.0, 3.0, 4.0]


def test_the_fixture_needs_a_scenario_and_validates_the_marker(pytester: pytest.Pytester, run_pytest) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    pytester.makepyfile(
        test_bad="""
        import pytest

        def test_no_marker(are_recorder):
            pass

        @pytest.mark.are_scenario("booking.yaml", recrod="x.json")
        def test_typo(are_recorder):
            pass
        """
    )
    result = run_pytest("-p", "no:xdist", "test_bad.py")
    result.assert_outcomes(errors=2)
    result.stdout.fnmatch_lines(
        [
            "*are_recorder needs @pytest.mark.are_scenario*",
            "*are_scenario(path, run=None, oracle=None, record=None) got recrod*",
        ]
    )


def test_a_live_run_counts_in_the_session_summary_and_reports(pytester: pytest.Pytester, run_pytest) -> None:
    shutil.copytree(EXAMPLE, pytester.path, dirs_exist_ok=True)
    result = run_pytest("-p", "no:xdist", "test_booking_agent.py", "--are-report=report.json")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["runs judged: 1  passed: 1*"])
    report = json.loads((pytester.path / "report.json").read_text())
    [run] = report["runs"]
    assert run["nodeid"].endswith("test_the_agent_books_the_table") and run["verdict"] == "pass"
