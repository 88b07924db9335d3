"""Test helpers shipped with pytest-are-judge.

:class:`~pytest_are_judge.testing.llm_server.FakeLLMServer` is a real,
local, OpenAI-compatible HTTP server: LLM-judge tests point litellm at it
instead of patching anything.
"""

from pytest_are_judge.testing.llm_server import (
    DEFAULT_ANSWER,
    FakeLLMServer,
    Reply,
    last_user_message,
)

__all__ = ["DEFAULT_ANSWER", "FakeLLMServer", "Reply", "last_user_message"]
