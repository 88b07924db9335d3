"""A live test of an agent with the are_recorder fixture: run it, record what it does, and the
run is judged against booking.yaml when the test body passes."""

from __future__ import annotations

import agent
import pytest


@pytest.mark.are_scenario("booking.yaml")
def test_the_agent_books_the_table(are_recorder):
    tools = {
        "find_restaurant": are_recorder.record(agent.find_restaurant),
        "book_table": are_recorder.record(agent.book_table),
    }
    message = "Book a table for two at Chez Nous tonight at 8pm."
    are_recorder.user(message)
    are_recorder.reply(agent.run_agent(message, tools))
