"""Checker type names and the error a checker raises for values it cannot compare.

ARE declares its hard/scripted groups as lists *inside* the checker enum, so they become two
extra (bogus) enum members and ``is_hard()``/``is_scripted()`` work by substring tests
(docs/are-differences.md, CheckerType enum).  Here the groups are plain module-level frozensets: iterating
:class:`CheckerType` yields only real checker names.
"""

from __future__ import annotations

import enum

from ..errors import CheckerInputError

__all__ = ["CheckerInputError", "CheckerType", "SoftCheckerType"]


class CheckerType(str, enum.Enum):
    """Per-argument checker names used in tool registries and scripted parameters.

    The value of every member is its name, so ``CheckerType("eq_checker")`` and plain-string
    lookups both work.  ``code_judge`` names a scenario-level evaluator: it is neither hard,
    scripted nor soft, and no per-argument function is registered for it.
    """

    eq_checker = "eq_checker"
    unordered_list_checker = "unordered_list_checker"
    list_attendees_checker = "list_attendees_checker"
    datetime_checker = "datetime_checker"
    phone_number_checker = "phone_number_checker"
    eq_str_strip_checker = "eq_str_strip_checker"
    path_checker = "path_checker"
    unordered_path_list_checker = "unordered_path_list_checker"
    llm_checker = "llm_checker"
    contain_any_checker = "contain_any_checker"
    contain_all_checker = "contain_all_checker"
    code_judge = "code_judge"

    def is_hard(self) -> bool:
        """True for the eight deterministic agent-vs-oracle checkers (ARE's ``hard_checkers``)."""
        return self in _HARD

    def is_scripted(self) -> bool:
        """True for ``contain_any_checker``/``contain_all_checker`` (agent value vs ``targets``)."""
        return self in _SCRIPTED

    def is_soft(self) -> bool:
        """True for ``llm_checker``: the argument is judged by the soft (LLM) checkers."""
        return self is CheckerType.llm_checker


_HARD: frozenset[CheckerType] = frozenset(
    {
        CheckerType.eq_checker,
        CheckerType.unordered_list_checker,
        CheckerType.list_attendees_checker,
        CheckerType.datetime_checker,
        CheckerType.phone_number_checker,
        CheckerType.eq_str_strip_checker,
        CheckerType.path_checker,
        CheckerType.unordered_path_list_checker,
    }
)
_SCRIPTED: frozenset[CheckerType] = frozenset({CheckerType.contain_any_checker, CheckerType.contain_all_checker})


class SoftCheckerType(str, enum.Enum):
    """Names of ARE's soft (LLM or text) checkers, run per tool in registry order."""

    placeholder_checker = "placeholder_checker"
    content_checker = "content_checker"
    sanity_checker = "sanity_checker"
    signature_checker = "signature_checker"
    cab_checker = "cab_checker"
    email_checker = "email_checker"
    message_checker = "message_checker"
    user_message_checker = "user_message_checker"
    event_checker = "event_checker"
    tone_checker = "tone_checker"

    @property
    def needs_subtask(self) -> bool:
        """Whether ARE extracts the subtask before running this checker.

        ``sanity_checker`` is included as in ARE, although it never uses the subtask.
        """
        return self in _NEEDS_SUBTASK


_NEEDS_SUBTASK: frozenset[SoftCheckerType] = frozenset(
    {
        SoftCheckerType.content_checker,
        SoftCheckerType.user_message_checker,
        SoftCheckerType.event_checker,
        SoftCheckerType.sanity_checker,
    }
)
