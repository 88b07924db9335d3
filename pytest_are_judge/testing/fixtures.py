"""Pytest fixtures around :class:`FakeLLMServer`.

Not registered automatically: import the fixture into a ``conftest.py`` (or
list this module in ``pytest_plugins``) to use it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pytest_are_judge.testing.llm_server import FakeLLMServer

__all__ = ["fake_llm_server"]


@pytest.fixture
def fake_llm_server() -> Iterator[FakeLLMServer]:
    """A started :class:`FakeLLMServer` on an ephemeral 127.0.0.1 port, stopped afterwards."""
    with FakeLLMServer() as server:
        yield server
