"""Argument checkers and ARE's default per-tool checker registries.

Hard checkers compare an agent argument value with the oracle's; scripted checkers test an
agent value against configured ``targets``; soft checker names describe LLM judging, which
lives elsewhere.  See :mod:`._hard` for where these differ from ARE.
"""

from ._hard import (
    contain_all_checker,
    contain_any_checker,
    datetime_checker,
    eq_checker,
    eq_str_strip_checker,
    list_attendees_checker,
    path_checker,
    phone_number_checker,
    unordered_list_checker,
    unordered_path_list_checker,
)
from ._normalize import normalize_arg, normalize_str
from ._registry import (
    CheckerKind,
    UnknownCheckerError,
    checker_kind,
    get_checker,
    known_checkers,
    load_criteria_tools,
    load_soft_registry,
    load_tool_registry,
    register_checker,
)
from ._types import CheckerInputError, CheckerType, SoftCheckerType

__all__ = [
    "CheckerInputError",
    "CheckerKind",
    "CheckerType",
    "SoftCheckerType",
    "UnknownCheckerError",
    "checker_kind",
    "contain_all_checker",
    "contain_any_checker",
    "datetime_checker",
    "eq_checker",
    "eq_str_strip_checker",
    "get_checker",
    "known_checkers",
    "list_attendees_checker",
    "load_criteria_tools",
    "load_soft_registry",
    "load_tool_registry",
    "normalize_arg",
    "normalize_str",
    "path_checker",
    "phone_number_checker",
    "register_checker",
    "unordered_list_checker",
    "unordered_path_list_checker",
]
