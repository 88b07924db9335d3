"""Unit tests for pytest_are_judge.checkers: hard/scripted checkers, types and registries.

Expected values follow ARE 1.2.0's checkers and registries (docs/are-differences.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_are_judge import checkers as C
from pytest_are_judge.checkers import (
    CheckerInputError,
    CheckerType,
    SoftCheckerType,
    UnknownCheckerError,
)

# ------------------------------------------------------------------ types


def test_checker_type_has_exactly_the_real_members():
    assert [m.value for m in CheckerType] == [
        "eq_checker",
        "unordered_list_checker",
        "list_attendees_checker",
        "datetime_checker",
        "phone_number_checker",
        "eq_str_strip_checker",
        "path_checker",
        "unordered_path_list_checker",
        "llm_checker",
        "contain_any_checker",
        "contain_all_checker",
        "code_judge",
    ]
    assert all(m.value == m.name for m in CheckerType)
    # Q18: ARE's list members do not exist here.
    for bogus in ("hard_checkers", "scripted_checkers"):
        assert bogus not in CheckerType.__members__
        with pytest.raises(ValueError):
            CheckerType(bogus)


def test_checker_type_classification():
    hard = {m.value for m in CheckerType if m.is_hard()}
    assert hard == {
        "eq_checker",
        "unordered_list_checker",
        "list_attendees_checker",
        "datetime_checker",
        "phone_number_checker",
        "eq_str_strip_checker",
        "path_checker",
        "unordered_path_list_checker",
    }
    assert {m.value for m in CheckerType if m.is_scripted()} == {
        "contain_any_checker",
        "contain_all_checker",
    }
    assert [m for m in CheckerType if m.is_soft()] == [CheckerType.llm_checker]
    cj = CheckerType.code_judge
    assert (cj.is_hard(), cj.is_scripted(), cj.is_soft()) == (False, False, False)
    # str enum: compares equal to its plain name
    assert CheckerType.eq_checker == "eq_checker"
    assert CheckerType("path_checker") is CheckerType.path_checker


def test_soft_checker_type_members_and_subtask():
    assert {m.value for m in SoftCheckerType} == {
        "placeholder_checker",
        "content_checker",
        "sanity_checker",
        "signature_checker",
        "cab_checker",
        "email_checker",
        "message_checker",
        "user_message_checker",
        "event_checker",
        "tone_checker",
    }
    assert {m.value for m in SoftCheckerType if m.needs_subtask} == {
        "content_checker",
        "user_message_checker",
        "event_checker",
        "sanity_checker",
    }


def test_checker_input_error_is_value_error_with_expected_and_got():
    err = CheckerInputError("a datetime 'YYYY-MM-DD HH:MM:SS'", "2024-10-07 08:30", checker="x")
    assert isinstance(err, ValueError)
    assert str(err) == "expected a datetime 'YYYY-MM-DD HH:MM:SS', got '2024-10-07 08:30'"
    assert (err.expected, err.received, err.checker) == (
        "a datetime 'YYYY-MM-DD HH:MM:SS'",
        "2024-10-07 08:30",
        "x",
    )


def test_checker_input_error_truncates_huge_values():
    err = CheckerInputError("a str", "x" * 1000)
    assert len(str(err)) < 200
    assert str(err).endswith("...")


# ------------------------------------------------------------------ normalisation


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Élodie-Marie O'Neil. ", "elodiemarie oneil"),
        ("ÇA VA?", "ca va"),
        ("a  b", "a  b"),  # inner whitespace is not collapsed
        ("\t x \n", "x"),
        ("«quoted»", "«quoted»"),  # non-ASCII punctuation is kept
        ("ñ", "n"),
        ("", ""),
        ("!!!", ""),
        ("- x -", "x"),  # punctuation is removed before the outer strip
    ],
)
def test_normalize_str(raw, expected):
    assert C.normalize_str(raw) == expected


def test_normalize_str_rejects_non_str_and_normalize_arg_uses_str():
    with pytest.raises(TypeError):
        C.normalize_str(5)  # type: ignore[arg-type]
    assert C.normalize_arg(12.5) == "125"
    assert C.normalize_arg(None) == "none"
    assert C.normalize_arg(["A", "b"]) == "a b"


# ------------------------------------------------------------------ eq


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        (None, None, True),
        (None, "", False),
        ("", None, False),
        ("a", "A", False),
        (1, 1.0, True),
        ([1, 2], [2, 1], False),
        ({"k": 1}, {"k": 1}, True),
    ],
)
def test_eq_checker(agent, oracle, ok):
    assert C.eq_checker(agent, oracle) is ok


# ------------------------------------------------------------------ unordered list


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        (None, None, True),
        (None, [], True),
        ([], None, True),
        ([], [], True),
        (None, ["a"], False),
        (["a"], None, False),
        (["a"], [], False),
        (["a", "b"], ["b", "a"], True),
        (["a", "a", "b"], ["b", "a"], True),  # duplicates ignored
        (["A"], ["a"], False),  # case matters
        (["a"], ["a", "b"], False),
    ],
)
def test_unordered_list_checker(agent, oracle, ok):
    assert C.unordered_list_checker(agent, oracle) is ok


def test_unordered_list_checker_unhashable_raises_readable_error():
    with pytest.raises(CheckerInputError, match="hashable") as info:
        C.unordered_list_checker([["a"]], ["a"])
    assert info.value.checker == "unordered_list_checker"
    with pytest.raises(CheckerInputError, match="a list or None"):
        C.unordered_list_checker(None, 5)


def test_unordered_list_checker_accepts_arg_name_kwarg():
    assert C.unordered_list_checker(["x"], ["x"], arg_name="recipients") is True


# ------------------------------------------------------------------ paths


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        ("./a//b/", "a/b", True),
        ("a/../b", "b", True),
        ("/a/b", "a/b", True),
        ("a/b/", "/a/b", True),
        ("//a", "a", True),
        ("", ".", True),  # "" normalises to "."
        ("", "./", True),
        ("", "/", False),  # "/" normalises to "", not "."
        ("A/b", "a/b", False),  # case matters
        ("a/b", "a/c", False),
        (None, None, True),
        (None, "", False),  # ARE: None never equals "" (G2 differs)
        ("", None, False),
    ],
)
def test_path_checker(agent, oracle, ok):
    assert C.path_checker(agent, oracle) is ok


def test_path_checker_non_str_raises():
    with pytest.raises(CheckerInputError, match="path string"):
        C.path_checker(3, "3")


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        (None, None, True),
        (None, [], True),
        ([], None, True),
        (None, ["a"], False),
        (["a"], None, False),
        (["/a/b", "./c"], ["c", "a//b/"], True),
        (["a", "a/"], ["a"], True),  # duplicates after normalisation
        (["a"], ["a", "b"], False),
        (["A"], ["a"], False),
    ],
)
def test_unordered_path_list_checker(agent, oracle, ok):
    assert C.unordered_path_list_checker(agent, oracle) is ok


def test_unordered_path_list_checker_non_str_element_raises():
    with pytest.raises(CheckerInputError, match="path string"):
        C.unordered_path_list_checker([1], ["1"])


# ------------------------------------------------------------------ datetime


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        ("2024-10-07 08:30:00", "2024-10-07 08:30:00", True),
        ("2024-10-07 08:30:00", "2024-10-07 08:30:01", False),
        ("2024-10-07 8:30:00", "2024-10-07 08:30:00", True),  # compared as parsed values
        (None, None, True),
        (None, "2024-10-07 08:30:00", False),
        ("2024-10-07 08:30:00", None, False),
    ],
)
def test_datetime_checker(agent, oracle, ok):
    assert C.datetime_checker(agent, oracle) is ok


@pytest.mark.parametrize("bad", ["2024-10-07 08:30", "2024-10-07T08:30:00", "tomorrow", 1728289800])
def test_datetime_checker_unparseable_raises_checker_input_error(bad):
    with pytest.raises(CheckerInputError) as info:
        C.datetime_checker(bad, "2024-10-07 08:30:00")
    assert str(info.value) == f"expected a datetime 'YYYY-MM-DD HH:MM:SS', got {bad!r}"
    assert info.value.checker == "datetime_checker"
    # and on the oracle side too
    with pytest.raises(CheckerInputError):
        C.datetime_checker("2024-10-07 08:30:00", bad)


def test_datetime_checker_error_is_still_a_value_error():
    with pytest.raises(ValueError):
        C.datetime_checker("2024-10-07 08:30", "2024-10-07 08:30")


# ------------------------------------------------------------------ eq_str_strip


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        (" a ", "a", True),
        ("a\n", "\ta", True),
        (None, "", True),
        ("", None, True),
        (None, None, True),
        (0, "", True),  # any falsy value counts as ""
        (None, "   ", True),
        ("A", "a", False),
        ("a b", "a  b", False),
        (None, "x", False),
    ],
)
def test_eq_str_strip_checker(agent, oracle, ok):
    assert C.eq_str_strip_checker(agent, oracle) is ok


def test_eq_str_strip_checker_truthy_non_str_raises():
    with pytest.raises(CheckerInputError, match="a str or None"):
        C.eq_str_strip_checker(5, "5")


# ------------------------------------------------------------------ phone


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        (None, None, True),
        (None, "", False),
        ("", None, False),
        ("", "", True),
        ("+1 (415) 555-0100", "14155550100", True),  # ARE's digits-only rule
        ("abc", "xyz", True),  # ARE: no digits on either side
        ("+1 415 555 0100", "(415) 555-0100", False),  # ARE: digits differ (phone_match="e164" passes)
        ("(415) 555-0100", "+1 415 555 0100", False),
        ("415-555-0100", "415-555-0101", False),
        ("+1 415 555 0100 ext. 12", "(415) 555-0100", False),  # extension differs
        ("+44 20 7946 0958", "020 7946 0958", False),  # default region is US
        ("+33 1 23 45 67 89", "+44 1 23 45 67 89", False),
        ("555", "+1 555", False),  # both parse to +1555, which is not a possible number
    ],
)
def test_phone_number_checker(agent, oracle, ok):
    assert C.phone_number_checker(agent, oracle) is ok


@pytest.mark.parametrize(
    ("agent", "oracle", "ok"),
    [
        ("+1 415 555 0100", "(415) 555-0100", True),  # the same E.164 number
        ("(415) 555-0100", "+1 415 555 0100", True),
        ("+1 (415) 555-0100", "14155550100", True),  # equal digits still pass
        ("415-555-0100", "415-555-0101", False),
        ("+1 415 555 0100 ext. 12", "(415) 555-0100", False),  # extension differs
        ("+44 20 7946 0958", "020 7946 0958", False),  # default region is US
        ("555", "+1 555", False),  # both parse to +1555, which is not a possible number
    ],
)
def test_phone_number_checker_e164_option(agent, oracle, ok):
    assert C.phone_number_checker(agent, oracle, match="e164") is ok


def test_phone_number_checker_region_kwarg():
    assert C.phone_number_checker("+44 20 7946 0958", "020 7946 0958", phone_region="GB", match="e164") is True
    assert C.phone_number_checker("+44 20 7946 0958", "020 7946 0958", phone_region="GB") is False  # digits
    assert C.phone_number_checker("+1 415 555 0100", "(415) 555-0100", phone_region=None, match="e164") is False


def test_phone_number_checker_non_str_raises():
    with pytest.raises(CheckerInputError, match="phone number string"):
        C.phone_number_checker(4155550100, "4155550100")


def test_importing_checkers_does_not_import_phonenumbers():
    code = (
        "import sys, pytest_are_judge.checkers as c; "
        "assert 'phonenumbers' not in sys.modules; "
        "c.phone_number_checker('1', '1'); assert 'phonenumbers' not in sys.modules; "
        "c.phone_number_checker('+1 415 555 0100', '(415) 555-0100'); assert 'phonenumbers' not in sys.modules; "
        "c.phone_number_checker('+1 415 555 0100', '(415) 555-0100', match='e164'); "
        "assert 'phonenumbers' in sys.modules"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------ attendees

USER = ["John Doe"]


@pytest.mark.parametrize(
    ("agent", "oracle", "tol", "ok"),
    [
        # 1. empty/None oracle passes whatever the agent sent
        (["Anyone"], None, None, True),
        (["Anyone"], [], USER, True),
        (None, None, None, True),
        # 2. oracle lists only the user
        ([], ["John Doe"], USER, True),
        (None, ["john doe."], USER, True),
        (["Somebody Else"], ["JOHN DOE"], USER, True),
        # ... but without a tolerance list the user is an ordinary attendee
        ([], ["John Doe"], None, False),
        # 3. compare normalised sets without the tolerated names
        (["Alice", "John Doe"], ["alice"], USER, True),
        (["Alice"], ["Alice", "John Doe"], USER, True),
        (["Alice"], ["Alice", "John Doe"], None, False),
        (["Élodie O'Brien"], ["elodie obrien"], None, True),
        ([" Bob ", "bob", "BOB!"], ["Bob"], None, True),
        (["John  Doe"], ["John Doe"], None, False),  # inner whitespace matters
        (None, ["Alice"], USER, False),
        (["Alice", "Bob"], ["Alice"], USER, False),
        (["Alice"], ["Alice", "Bob"], USER, False),
    ],
)
def test_list_attendees_checker(agent, oracle, tol, ok):
    assert C.list_attendees_checker(agent, oracle, tolerance_list_str=tol) is ok


def test_list_attendees_tolerance_is_normalised():
    assert C.list_attendees_checker([], ["john doe"], tolerance_list_str=["  JOHN DOE. "]) is True


def test_list_attendees_non_str_elements_raise():
    with pytest.raises(CheckerInputError, match="agent attendees as str"):
        C.list_attendees_checker(["Alice", 7], ["Alice"])
    with pytest.raises(CheckerInputError, match="oracle attendees as str"):
        C.list_attendees_checker(["Alice"], ["Alice", None])
    # ARE returns before looking at the agent when the oracle is empty
    assert C.list_attendees_checker([7], []) is True


# ------------------------------------------------------------------ scripted


@pytest.mark.parametrize(
    ("agent", "targets", "any_ok", "all_ok"),
    [
        ("Meet at the Cafe at noon", ["cafe"], True, True),
        ("Meet at the Cafe at noon", ["CAFE", "NOON"], True, True),
        ("Meet at the Cafe at noon", ["cafe", "midnight"], True, False),
        ("Meet at the Cafe at noon", ["bar"], False, False),
        ("anything", [], False, True),
        ("", [""], True, True),
    ],
)
def test_contain_checkers(agent, targets, any_ok, all_ok):
    assert C.contain_any_checker(agent, targets) is any_ok
    assert C.contain_all_checker(agent, targets=targets) is all_ok


@pytest.mark.parametrize("checker", [C.contain_any_checker, C.contain_all_checker])
def test_contain_checkers_require_str(checker):
    with pytest.raises(CheckerInputError, match="agent value as a str"):
        checker(None, ["a"])
    with pytest.raises(CheckerInputError, match="agent value as a str"):
        checker(["a"], [])
    with pytest.raises(CheckerInputError, match="each target as a str"):
        checker("abc", [1])


def test_contain_checkers_ignore_extra_kwargs():
    assert C.contain_any_checker("abc", ["B"], arg_name="content", oracle=None) is True


# ------------------------------------------------------------------ hypothesis properties

_items = st.lists(st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "B", "c"])), max_size=6)


@given(_items, _items)
def test_unordered_list_is_symmetric(a, b):
    assert C.unordered_list_checker(a, b) == C.unordered_list_checker(b, a)


@given(_items, st.randoms())
def test_unordered_list_ignores_order_and_duplicates(a, rnd):
    b = a + a[: len(a) // 2]
    rnd.shuffle(b)
    assert C.unordered_list_checker(a, b) is True
    assert C.unordered_list_checker(a, a + ["zz-not-there"]) is False


_segment = st.text(alphabet="abcXYZ019_-", min_size=1, max_size=5)


@given(st.lists(_segment, min_size=1, max_size=4), st.integers(0, 3), st.integers(0, 3))
def test_path_checker_ignores_leading_and_trailing_slashes(segments, lead, trail):
    path = "/".join(segments)
    assert C.path_checker("/" * lead + path + "/" * trail, path) is True
    assert C.path_checker(path, path + "x") is False


@given(st.text(max_size=20), st.text(alphabet=" -()+.x", max_size=10))
def test_phone_checker_never_stricter_than_digits_rule(number, noise):
    # inserting non-digit noise never changes the digits, so ARE passes and so must we
    assert C.phone_number_checker(number, noise + number + noise) is True


@given(st.text(max_size=12), st.lists(st.text(max_size=3), min_size=1, max_size=4))
def test_contain_all_implies_contain_any(agent, targets):
    if C.contain_all_checker(agent, targets):
        assert C.contain_any_checker(agent, targets)


# ------------------------------------------------------------------ checker registry


def test_builtin_checkers_are_registered_with_their_kind():
    assert C.get_checker(CheckerType.eq_checker) is C.eq_checker
    assert C.get_checker("list_attendees_checker") is C.list_attendees_checker
    for member in CheckerType:
        if member.is_hard():
            assert C.checker_kind(member) == "hard"
        elif member.is_scripted():
            assert C.checker_kind(member) == "scripted"
        elif member is CheckerType.code_judge:
            assert C.checker_kind(member) == "hard" and callable(C.get_checker(member))  # resolved lazily
        else:
            with pytest.raises(UnknownCheckerError):
                C.get_checker(member)
    assert len(C.known_checkers()) >= 10


def test_unknown_checker_error_lists_known_names():
    with pytest.raises(KeyError) as info:
        C.get_checker("fuzzy_checker")
    err = info.value
    assert isinstance(err, UnknownCheckerError)
    assert str(err).startswith("unknown checker 'fuzzy_checker'")
    assert "eq_checker" in str(err) and "contain_all_checker" in str(err)
    with pytest.raises(UnknownCheckerError):
        C.checker_kind("fuzzy_checker")


def test_register_custom_checker():
    def starts_with(agent, oracle, **_):
        return str(agent).startswith(str(oracle))

    try:
        assert C.register_checker("starts_with_checker", starts_with) is starts_with
        assert C.get_checker("starts_with_checker") is starts_with
        assert C.checker_kind("starts_with_checker") == "hard"
        assert "starts_with_checker" in C.known_checkers()
        C.register_checker("starts_with_checker", starts_with, kind="scripted")
        assert C.checker_kind("starts_with_checker") == "scripted"
    finally:
        from pytest_are_judge.checkers import _registry

        _registry._CHECKERS.pop("starts_with_checker", None)
    assert "starts_with_checker" not in C.known_checkers()


def test_register_checker_rejects_bad_input():
    with pytest.raises(ValueError, match="kind"):
        C.register_checker("x_checker", C.eq_checker, kind="soft")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        C.register_checker("x_checker", "not callable")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        C.register_checker("llm_checker", C.eq_checker)
    with pytest.raises(ValueError):
        C.register_checker(CheckerType.eq_checker, C.eq_checker, kind="scripted")
    assert "x_checker" not in C.known_checkers()
    assert C.get_checker("eq_checker") is C.eq_checker


# ------------------------------------------------------------------ per-tool registry


def test_registry_data_file_is_readable_json_with_40_base_tools():
    raw = (resources.files("pytest_are_judge") / "data" / "tool_registry.json").read_text("utf-8")
    data = json.loads(raw)
    tools = {k: v for k, v in data["tools"].items() if not k.startswith("$")}
    assert len(tools) == 40
    assert next(iter(tools)) == "ApartmentListingApp__save_apartment"
    assert list(tools)[-1] == "VirtualFileSystem__rmdir"
    assert raw.count("\n") > 50  # hand-written, one entry per line or more


def test_tool_registry_has_89_keys_and_typed_values():
    reg = C.load_tool_registry()
    assert len(reg) == 89
    for args in reg.values():
        assert all(isinstance(c, CheckerType) for c in args.values())


def test_tool_registry_argument_order():
    reg = C.load_tool_registry()
    assert list(reg["CalendarApp__add_calendar_event"].items()) == [
        ("attendees", CheckerType.list_attendees_checker),
        ("end_datetime", CheckerType.datetime_checker),
        ("start_datetime", CheckerType.datetime_checker),
        ("title", CheckerType.llm_checker),
        ("description", CheckerType.llm_checker),
        ("location", CheckerType.llm_checker),
    ]
    assert list(reg["EmailClientApp__send_email"]) == [
        "recipients",
        "cc",
        "attachment_paths",
        "subject",
        "content",
    ]
    assert reg["ContactsApp__add_new_contact"]["phone"] is CheckerType.phone_number_checker
    assert reg["ShoppingApp__checkout"] == {"discount_code": CheckerType.eq_str_strip_checker}
    assert reg["CabApp__user_cancel_ride"] == {}


def test_tool_registry_alias_expansion():
    reg = C.load_tool_registry()
    assert reg["EmailClientV2__send_email"] == reg["EmailClientApp__send_email"]
    assert reg["Mail__reply_to_email"] == reg["EmailClientApp__reply_to_email"]
    assert reg["Chats__send_message"] == {
        "user_id": CheckerType.eq_checker,
        "content": CheckerType.llm_checker,
        "attachment_path": CheckerType.path_checker,
    }
    assert reg["Files__mv"] == {"path1": CheckerType.path_checker, "path2": CheckerType.path_checker}
    assert reg["Cabs__user_cancel_ride"] == {}
    # Q19: the typo alias is kept and nothing else gets a makedirs entry
    assert reg["SandBoxLocalFileSystem__makedirs"] == {"path": CheckerType.path_checker}
    for missing in (
        "Files__makedirs",
        "SandboxLocalFileSystem__makedirs",
        "Messaging__send_message",
        "AgentUserInterface__send_message",
    ):
        assert missing not in reg
    assert not any(k.startswith(("VFS", "Files__open_")) for k in reg)


def test_tool_registry_key_counts_per_app():
    reg = C.load_tool_registry()
    counts: dict[str, int] = {}
    for key in reg:
        app = key.split("__")[0]
        counts[app] = counts.get(app, 0) + 1
    assert {a: counts[a] for a in ("EmailClientV2", "Mail", "Emails")} == {
        "EmailClientV2": 6,
        "Mail": 6,
        "Emails": 6,
    }
    assert counts["RentAFlat"] == 2
    assert counts["Contacts"] == 3
    assert counts["Messages"] == counts["Chats"] == 6
    assert counts["Calendar"] == 2
    assert counts["Shopping"] == 4
    assert counts["Cabs"] == 2
    assert counts["Files"] == 5
    assert counts["SandBoxLocalFileSystem"] == 1
    assert counts["VirtualFileSystem"] == 5


def test_tool_registry_callers_cannot_corrupt_the_cache():
    reg = C.load_tool_registry()
    reg["EmailClientApp__send_email"]["cc"] = CheckerType.eq_checker
    reg["Chats__send_message"].clear()
    del reg["Files__mv"]
    fresh = C.load_tool_registry()
    assert fresh["EmailClientApp__send_email"]["cc"] is CheckerType.unordered_list_checker
    assert fresh["Chats__send_message"]
    assert "Files__mv" in fresh
    # alias entries are independent copies
    fresh["Mail__send_email"]["cc"] = CheckerType.eq_checker
    assert fresh["Emails__send_email"]["cc"] is CheckerType.unordered_list_checker


# ------------------------------------------------------------------ soft and criteria registries


def test_soft_registry():
    soft = C.load_soft_registry()
    assert len(soft) == 27
    email = [
        SoftCheckerType.placeholder_checker,
        SoftCheckerType.signature_checker,
        SoftCheckerType.tone_checker,
        SoftCheckerType.email_checker,
    ]
    assert soft["EmailClientApp__send_email"] == email
    assert soft["Emails__reply_to_email"] == email
    assert soft["AgentUserInterface__send_message_to_user"] == [
        SoftCheckerType.sanity_checker,
        SoftCheckerType.user_message_checker,
    ]
    message = [
        SoftCheckerType.placeholder_checker,
        SoftCheckerType.tone_checker,
        SoftCheckerType.message_checker,
    ]
    for key in (
        "MessagingApp__send_message",
        "MessagingAppV2__send_message",
        "MessagingAppV2__send_message_to_group_conversation",
        "Chats__send_message_to_group_conversation",
        "Messages__send_message",
    ):
        assert soft[key] == message
    for key in (
        "MessagingApp__create_conversation",
        "MessagingAppV2__create_group_conversation",
        "MessagingAppV2__change_conversation_title",
        "Chats__change_conversation_title",
    ):
        assert soft[key] == [SoftCheckerType.content_checker]
    assert soft["Calendar__add_calendar_event"] == [SoftCheckerType.event_checker]
    assert soft["Cabs__order_ride"] == [SoftCheckerType.cab_checker]
    # edit_contact relies on the judge's content_checker fallback, not on the registry
    assert "ContactsApp__edit_contact" not in soft
    assert "Contacts__edit_contact" not in soft


def test_soft_registry_returns_copies():
    soft = C.load_soft_registry()
    soft["CabApp__order_ride"].append(SoftCheckerType.tone_checker)
    assert C.load_soft_registry()["CabApp__order_ride"] == [SoftCheckerType.cab_checker]


def test_criteria_tools():
    tools = C.load_criteria_tools()
    assert len(tools) == 27 == len(set(tools))
    assert set(tools) == set(C.load_soft_registry())
    assert tools[:7] == [
        "CalendarApp__add_calendar_event",
        "EmailClientApp__reply_to_email",
        "EmailClientApp__send_email",
        "MessagingApp__send_message",
        "CabApp__order_ride",
        "AgentUserInterface__send_message_to_user",
        "MessagingApp__create_conversation",
    ]
    tools.clear()
    assert len(C.load_criteria_tools()) == 27


def test_public_api_is_curated():
    assert set(C.__all__) >= {
        "CheckerType",
        "SoftCheckerType",
        "CheckerInputError",
        "register_checker",
        "get_checker",
        "checker_kind",
        "known_checkers",
        "load_tool_registry",
        "load_soft_registry",
        "load_criteria_tools",
        "normalize_str",
        "normalize_arg",
    }
    assert all(not name.startswith("_") for name in C.__all__)
    assert all(hasattr(C, name) for name in C.__all__)
