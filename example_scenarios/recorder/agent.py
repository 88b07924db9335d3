"""A tiny scripted "agent" (no model, no network) standing in for yours."""

from __future__ import annotations

from typing import Any

RESTAURANTS = [{"id": "r-42", "name": "Chez Nous"}, {"id": "r-7", "name": "Chez Vous"}]


def find_restaurant(query: str) -> list[dict[str, Any]]:
    return [r for r in RESTAURANTS if query.lower() in r["name"].lower()]


def book_table(restaurant: str, people: int, time: str) -> dict[str, Any]:
    return {"booking_id": f"b-{restaurant}-{people}", "time": time}


def run_agent(message: str, tools: dict[str, Any], *, party_size: int = 2) -> str:
    """Reads the request, finds the restaurant, books it, and answers the user."""
    found = tools["find_restaurant"](query="Chez Nous")
    booking = tools["book_table"](restaurant=found[0]["id"], people=party_size, time="2024-10-04 20:00:00")
    return f"Booked {found[0]['name']} for {party_size} at 8pm (booking {booking['booking_id']})."
