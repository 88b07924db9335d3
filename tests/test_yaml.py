"""The YAML loader gives exactly PyYAML's safe-loader results and errors."""

from __future__ import annotations

import datetime
import re

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_are_judge import _yaml
from pytest_are_judge._yaml import YamlLimitError, load_yaml

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def reference(text: str) -> tuple[str, object]:
    try:
        return "ok", yaml.load(text, Loader=LOADER)
    except yaml.YAMLError as exc:
        return "error", f"{type(exc).__name__}: {exc}"


def ours(text: str) -> tuple[str, object]:
    try:
        return "ok", load_yaml(text)
    except yaml.YAMLError as exc:
        return "error", f"{type(exc).__name__}: {exc}"


DOCUMENTS = [
    "",
    "# a comment only\n",
    "a: 1\nb: [1, 2.5, yes, no, on, off, ~, null, 0x1f, 0o17, 017, 1_000, 1:30, .inf, -.inf, '3', \"x\", -7, +3]\n",
    "ON: off\nY: n\n1: one\n2.5: two\n~: n\n",
    "a: !!str 12\nb: !!int '12'\nc: !!float 1\n",
    "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  z: 3\n",  # merge key: PyYAML's constructor
    "t: 2024-01-02\nu: 2024-01-02T03:04:05Z\n",  # timestamps: PyYAML's constructor
    "s: !!set {a, b}\n",
    "b: !!binary aGVsbG8=\n",
    "? [1, 2]\n: x\n",  # unhashable key: PyYAML's error
    "a: !custom x\n",  # unknown tag: PyYAML's error
    "- 1\n- [2, {3: 4}]\n",
    "a: [1\n",  # a parse error
    "a: 1\n---\nb: 2\n",  # two documents: an error, as with yaml.load
    "text: |\n  line one\n  line two\nfolded: >\n  a\n  b\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_same_result_or_error_as_pyyaml(text: str) -> None:
    assert ours(text) == reference(text)


def test_aliases_share_one_object() -> None:
    shared = load_yaml("a: &x [1, 2]\nb: *x\n")
    assert shared["a"] is shared["b"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: 1\na: 2\n", "duplicate key 'a' (also on line 1)"),  # PyYAML keeps the last one
        ("args: {to: x}\nargs: {}\n", "duplicate key 'args'"),
        ("ON: off\ntrue: t\n", "duplicate key 'true'"),  # both keys are True
        ("a: &x\n  - *x\n", "recursive document"),
        (
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh")),
            "billion laughs",
        ),
        ("[" * 150 + "]" * 150, "nested deeper than 100 levels"),
        ("x: " + "[" * 100_000 + "]" * 100_000, "nested deeper than 100 levels"),  # crashed libyaml before
        ("- " * 150 + "x\n", "nested deeper than 100 levels"),
    ],
)
def test_unsafe_documents_are_rejected_with_a_line(text: str, message: str) -> None:
    with pytest.raises(YamlLimitError, match=re.escape(message)) as info:
        load_yaml(text)
    assert info.value.problem_mark is not None


def test_deep_but_allowed_documents_still_load() -> None:
    assert load_yaml("[" * 90 + "]" * 90) is not None
    assert load_yaml("        " * 30 + "a: 1\n") == {"a": 1}  # deep indentation alone is fine


def test_falls_back_for_timestamps_inside_plain_data() -> None:
    data = load_yaml("events:\n  - {id: u, at: 2024-01-02}\n")
    assert data == {"events": [{"id": "u", "at": datetime.date(2024, 1, 2)}]}


def test_the_memoised_resolver_uses_its_own_resolver_table() -> None:
    # tags are memoised by value, so the table they come from must not change under us: a
    # later yaml.add_implicit_resolver(..., Loader=CSafeLoader) elsewhere leaves it alone
    cls = _yaml._setup()["loader"]
    assert cls.yaml_implicit_resolvers is not LOADER.yaml_implicit_resolvers
    assert cls.yaml_implicit_resolvers == LOADER.yaml_implicit_resolvers
    assert load_yaml("v: maybe\nw: yes\n") == {"v": "maybe", "w": True}


scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**12), max_value=10**12),
    st.floats(allow_nan=False),
    st.text(max_size=12),
)
trees = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(trees, st.booleans())
def test_round_trips_like_pyyaml(data: object, flow: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    assert ours(text) == reference(text)
