"""Hard (deterministic) and scripted argument checkers.

Each hard checker is a pure function ``(agent_value, oracle_value, **kwargs) -> bool`` that
reproduces the ARE checker of the same name, including its None/empty rules (docs/are-differences.md, kept on purpose).
Scripted checkers take ``(agent_value, targets, **kwargs)`` and ignore the oracle value.
Extra keyword arguments (for example ``arg_name``, which ARE passes to every checker) are
accepted and ignored unless a checker documents them.

Deliberate differences from ARE, all limited to inputs on which ARE *raises*:

* A value that cannot be compared (an unparseable datetime, a non-str attendee or path,
  unhashable list elements, a non-str ``contain_*`` value) raises :class:`CheckerInputError`
  with a readable message, instead of a bare ``ValueError``/``TypeError``/``AttributeError``.
* ``phone_number_checker`` additionally accepts two numbers that the ``phonenumbers`` package
  parses to the same E.164 number (see its docstring).  It never rejects a pair ARE accepts.
* ``contain_any_checker``/``contain_all_checker`` require a str agent value even when
  ``targets`` is empty (ARE only fails when it first lowercases the value).

Where ARE quietly iterates a str as a list of characters (list checkers given a str), so
do we: these functions raise only where ARE raises.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from ._normalize import normalize_str
from ._types import CheckerInputError

__all__ = [
    "contain_all_checker",
    "contain_any_checker",
    "datetime_checker",
    "eq_checker",
    "eq_str_strip_checker",
    "list_attendees_checker",
    "path_checker",
    "phone_number_checker",
    "unordered_list_checker",
    "unordered_path_list_checker",
]

DATETIME_FORMAT = "%Y-%m-%d %H:%M:%S"


def eq_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """Plain ``==``.  None equals only None."""
    return bool(agent_value == oracle_value)


def _none_or_empty(value: Any, checker: str) -> bool:
    try:
        return value is None or len(value) == 0
    except TypeError:
        raise CheckerInputError("a list or None", value, checker=checker) from None


def _to_set(values: Any, checker: str) -> set[Any]:
    try:
        return set(values)
    except TypeError:
        raise CheckerInputError("a list of hashable values", values, checker=checker) from None


def unordered_list_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """Compare as sets: order and duplicates are ignored, case matters.

    ARE's None rules: a None agent matches a None or empty oracle; a None oracle matches an
    empty agent.  A str is iterated as characters, exactly as in ARE.
    """
    name = "unordered_list_checker"
    if agent_value is None:
        return _none_or_empty(oracle_value, name)
    if oracle_value is None:
        return _none_or_empty(agent_value, name)
    return _to_set(agent_value, name) == _to_set(oracle_value, name)


def _norm_path(value: Any, checker: str) -> str:
    """ARE's path normalisation: ``os.path.normpath(p).lstrip("/")`` (so ``""`` becomes ``"."``)."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise CheckerInputError("a path string", value, checker=checker)
    return os.path.normpath(value).lstrip("/")


def path_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """Equal after ``normpath`` and removing leading slashes; case matters.

    If either side is None the result is ``agent == oracle`` (so None never equals ``""``;
    G2 differs here, ARE does not).
    """
    if agent_value is None or oracle_value is None:
        return bool(agent_value == oracle_value)
    name = "path_checker"
    return _norm_path(agent_value, name) == _norm_path(oracle_value, name)


def _norm_path_set(values: Any, checker: str) -> set[str]:
    if not isinstance(values, Iterable):
        raise CheckerInputError("a list of path strings", values, checker=checker)
    return {_norm_path(v, checker) for v in values}


def unordered_path_list_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """Sets of normalised paths (see :func:`path_checker`), with the None rules of
    :func:`unordered_list_checker`."""
    name = "unordered_path_list_checker"
    if agent_value is None:
        return _none_or_empty(oracle_value, name)
    if oracle_value is None:
        return _none_or_empty(agent_value, name)
    return _norm_path_set(agent_value, name) == _norm_path_set(oracle_value, name)


def _parse_datetime(value: Any) -> datetime:
    if isinstance(value, str):
        try:
            return datetime.strptime(value, DATETIME_FORMAT)
        except ValueError:
            pass
    raise CheckerInputError("a datetime 'YYYY-MM-DD HH:MM:SS'", value, checker="datetime_checker")


def datetime_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """Both parsed as ``%Y-%m-%d %H:%M:%S`` and compared; ``agent == oracle`` if either is None.

    ARE raises ``ValueError`` for a value that does not parse (docs/are-differences.md, checker_errors); we raise
    :class:`CheckerInputError` (a ``ValueError``) with the expected format in the message.
    """
    if agent_value is None or oracle_value is None:
        return bool(agent_value == oracle_value)
    return bool(_parse_datetime(agent_value) == _parse_datetime(oracle_value))


def _strip_or_empty(value: Any) -> str:
    if not value:
        return ""
    if not isinstance(value, str):
        raise CheckerInputError("a str or None", value, checker="eq_str_strip_checker")
    return value.strip()


def eq_str_strip_checker(agent_value: Any, oracle_value: Any, **kwargs: Any) -> bool:
    """``==`` after ``.strip()``; any falsy value (None, ``""``, 0) counts as ``""``."""
    return _strip_or_empty(agent_value) == _strip_or_empty(oracle_value)


def _digits(value: Any) -> str:
    if not isinstance(value, str):
        raise CheckerInputError("a phone number string", value, checker="phone_number_checker")
    return "".join(ch for ch in value if ch.isdigit())


def _e164(value: str, region: str | None) -> tuple[str, str] | None:
    """(E.164 number, extension) as parsed by ``phonenumbers``, or None if it does not parse."""
    try:
        import phonenumbers
    except ImportError:  # pragma: no cover - phonenumbers is a declared dependency
        return None
    text = value.strip()
    try:
        number = phonenumbers.parse(text, None)
    except phonenumbers.NumberParseException:
        if text.startswith("+") or not region:
            return None
        try:
            number = phonenumbers.parse(text, region)
        except phonenumbers.NumberParseException:
            return None
    if not phonenumbers.is_possible_number(number):
        return None
    e164 = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.E164)
    return e164, number.extension or ""


def phone_number_checker(
    agent_value: Any, oracle_value: Any, *, phone_region: str | None = "US", match: str = "digits", **kwargs: Any
) -> bool:
    """ARE's rule: both None pass, exactly one None fails (so ``""`` vs None fails), otherwise
    the digit characters of both are compared (``""`` vs ``""`` passes).

    With ``match="e164"`` (the judge's ``phone_match`` option) two numbers also pass when they
    parse to the same possible E.164 number and extension: each is parsed as international
    first, and a value without a leading ``+`` is then parsed in ``phone_region`` (default
    ``"US"``).  So ``+1 415 555 0100`` matches ``(415) 555-0100``, which ARE rejects.  Never
    stricter than ARE.
    """
    if agent_value is None or oracle_value is None:
        return agent_value is None and oracle_value is None
    if _digits(agent_value) == _digits(oracle_value):
        return True
    if match != "e164":
        return False
    agent_number = _e164(agent_value, phone_region)
    return agent_number is not None and agent_number == _e164(oracle_value, phone_region)


def _norm_names(values: Any, what: str) -> list[str]:
    if not isinstance(values, Iterable):
        raise CheckerInputError(f"{what} as a list of str", values, checker="list_attendees_checker")
    out = []
    for v in values:
        if not isinstance(v, str):
            raise CheckerInputError(f"{what} as str", v, checker="list_attendees_checker")
        out.append(normalize_str(v))
    return out


def list_attendees_checker(
    agent_value: Any,
    oracle_value: Any,
    tolerance_list_str: list[str] | None = None,
    **kwargs: Any,
) -> bool:
    """Attendee lists compared as sets of normalised names, ignoring tolerated names.

    ARE's rules, with ``tol`` the normalised ``tolerance_list_str`` (in the graph
    judge: the user's ``"<first_name> <last_name>"``):

    1. an oracle that is None or empty passes, whatever the agent sent;
    2. an oracle whose every entry is in ``tol`` (only the user) passes;
    3. otherwise both lists (a None agent is ``[]``) minus the ``tol`` entries are compared
       as sets of normalised names (case, accents, ASCII punctuation, outer spaces ignored).
    """
    tolerated = set(_norm_names(tolerance_list_str or [], "tolerated names"))
    if _none_or_empty(oracle_value, "list_attendees_checker"):
        return True
    oracle_names = _norm_names(oracle_value, "oracle attendees")
    if all(name in tolerated for name in oracle_names):
        return True
    agent_names = [] if agent_value is None else _norm_names(agent_value, "agent attendees")
    return {n for n in agent_names if n not in tolerated} == {n for n in oracle_names if n not in tolerated}


def _lower_text(value: Any, what: str, checker: str) -> str:
    if not isinstance(value, str):
        raise CheckerInputError(what, value, checker=checker)
    return value.lower()


def _contain(agent_value: Any, targets: Any, checker: str) -> list[bool]:
    text = _lower_text(agent_value, "the agent value as a str", checker)
    if not isinstance(targets, Iterable):
        raise CheckerInputError("targets as a list of str", targets, checker=checker)
    return [_lower_text(t, "each target as a str", checker) in text for t in targets]


def contain_any_checker(agent_value: Any, targets: Any, **_: Any) -> bool:
    """Scripted: some target is a case-insensitive substring of the agent value.

    Empty ``targets`` fail.  The oracle value is not used.
    """
    return any(_contain(agent_value, targets, "contain_any_checker"))


def contain_all_checker(agent_value: Any, targets: Any, **_: Any) -> bool:
    """Scripted: every target is a case-insensitive substring of the agent value.

    Empty ``targets`` pass.  The oracle value is not used.
    """
    return all(_contain(agent_value, targets, "contain_all_checker"))
