"""The fast YAML path gives exactly PyYAML's safe-loader results and errors."""

from __future__ import annotations

import datetime
import math
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_are_judge import _yaml
from pytest_are_judge._yaml import load_yaml
from pytest_are_judge._yaml_subset import Unsupported

LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def reference(text: str) -> tuple[str, object]:
    try:
        return "ok", yaml.load(text, Loader=LOADER)  # noqa: S506 - a safe loader
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
    "ON: off\nY: n\n1: one\n2.5: two\ntrue: t\n~: n\n",
    "a: !!str 12\nb: !!int '12'\nc: !!float 1\n",
    "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  z: 3\n",  # merge key: PyYAML's constructor
    "t: 2024-01-02\nu: 2024-01-02T03:04:05Z\n",  # timestamps: PyYAML's constructor
    "s: !!set {a, b}\n",
    "b: !!binary aGVsbG8=\n",
    "? [1, 2]\n: x\n",  # unhashable key: PyYAML's error
    "a: !custom x\n",  # unknown tag: PyYAML's error
    "a: 1\na: 2\n",  # duplicate keys: the last one wins, as in PyYAML
    "- 1\n- [2, {3: 4}]\n",
    "a: [1\n",  # a parse error
    "a: 1\n---\nb: 2\n",  # two documents: an error, as with yaml.load
    "text: |\n  line one\n  line two\nfolded: >\n  a\n  b\n",
]


@pytest.mark.parametrize("text", DOCUMENTS)
def test_same_result_or_error_as_pyyaml(text: str) -> None:
    assert ours(text) == reference(text)


def test_aliases_share_one_object_and_recursion_works() -> None:
    shared = load_yaml("a: &x [1, 2]\nb: *x\n")
    assert shared["a"] is shared["b"]
    recursive = load_yaml("a: &x\n  - *x\n")
    assert recursive["a"][0] is recursive["a"]


def test_falls_back_for_timestamps_inside_plain_data() -> None:
    data = load_yaml("events:\n  - {id: u, at: 2024-01-02}\n")
    assert data == {"events": [{"id": "u", "at": datetime.date(2024, 1, 2)}]}


def test_the_memoised_resolver_uses_its_own_resolver_table() -> None:
    # tags are memoised by value, so the table they come from must not change under us: a
    # later yaml.add_implicit_resolver(..., Loader=CSafeLoader) elsewhere leaves it alone
    cls = _yaml._fast_loader_class()
    assert cls, "PyYAML was built without libyaml: the fast path is off"
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
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=6), children, max_size=4)),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(trees, st.booleans())
def test_round_trips_like_pyyaml(data: object, flow: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    assert ours(text) == reference(text)


# ---------------------------------------------------------------- the plain-subset reader
# ``load_yaml`` first tries ``_yaml_subset`` (a translation of plain YAML into JSON): it must
# either give up (and PyYAML reads the text) or return exactly PyYAML's value.  ``same`` also
# compares types: 1 == 1.0 == True in Python, not in YAML.


def subset(text: str) -> object:
    """The subset reader's own answer: the value, or ``Unsupported``."""
    assert _yaml._fast_loader_class()
    try:
        return ("ok", _yaml._subset.read(text))
    except Unsupported:
        return Unsupported


def same(a: object, b: object) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(k1, k2) and same(a[k1], b[k2]) for k1, k2 in zip(a, b))  # type: ignore[index]
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))  # type: ignore[arg-type]
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)  # type: ignore[arg-type]
    return a == b


def check_subset(text: str) -> bool:
    """True when the subset reader read ``text`` (and agreed with PyYAML); False when it gave up."""
    got = subset(text)
    if got is Unsupported:
        return False
    kind, ref = reference(text)
    assert kind == "ok", f"the subset reader accepted a text PyYAML rejects: {text!r} -> {got[1]!r} ({ref})"  # type: ignore[index]
    assert same(got[1], ref), f"{text!r}: subset {got[1]!r} != PyYAML {ref!r}"  # type: ignore[index]
    return True


SUBSET_DOCUMENTS = [
    "a: 1\n",
    "---\na: 1\n",
    "# c\na: 1  # c\nb:\n  - x\n  - y # c\n",
    "a:\n- 1\n- 2\nb: 3\n",  # indentless sequence
    "- a: 1\n  b: [x, y]\n- - 1\n  - 2\n-\n- {}\n- []\n",
    "k: {a: 1, b: [1, 2, {c: d}], e: 'it''s', f: \"q, r: s\"}\n",
    "k: {a: 1,\n     b: 2}\nz: [1,\n  2\n  ]\n",  # flow collections over several lines
    "k: {a: 'x # y', # c\n     b: \"[\" , \"c\" : d}\nz: [a, \"b\" # c\n  , \"]\"]\n",  # quotes, comments, blanks
    "n: [~, null, Null, '', yes, No, on, OFF, true, 0, -0, 017, 0x1F, 1_000, 1.5, -.5, .inf, .NaN, 1e3, 1.0e+3, '3']\ns: 1:30\n",
    "u: héllo wörld ✓ 😀\nv: a#b\nw: a, b\nx: http://x.org/a?b=c\ny: -5\nz: it's\nq: say \"hi\"\nr: C:\\\\x\n",
    "key with spaces: v\nlong: " + "x" * 500 + "\n",
]
GIVES_UP = [
    "a: &x 1\nb: *x\n",
    "a: !!str 1\n",
    "a: |\n  text\n",
    "a: >\n  text\n",
    "a: b\n  c\n",  # multi-line plain scalar
    "a: \"x\\ty\"\n",  # escapes
    "a:\tb\n",
    "t: 2024-01-02\n",
    "<<: {a: 1}\n",
    "1: one\n",  # a key that is not a string
    "? a\n: b\n",
    "a: 1\n---\nb: 2\n",
    "%YAML 1.1\n---\na: 1\n",
    "{a: 1}\n",  # a flow collection as the document
    "a: {b, c: d}\n",
    "a: [b: c]\n",
    "a: {b: }\n",
    "a: [x, ]\n",
    "a: {b:c}\n",
    "a: {b: c?}\n",
    "a: [1\n",
    "k: {a\n   : 1}\n",  # a key and its ':' on two lines (an error)
    'k: {"a"\n   : 1}\n',
    "k: [a\n   b]\n",  # a flow plain scalar over two lines
    "a:\n b: 1\n  c: 2\n",
    "a: b: c\n",
    "- a\nb: c\n",
]


@pytest.mark.parametrize("text", SUBSET_DOCUMENTS)
def test_subset_reads_plain_documents_like_pyyaml(text: str) -> None:
    assert check_subset(text), f"the subset reader gave up on {text!r}"
    (kind, got), (ref_kind, ref) = ours(text), reference(text)
    assert kind == ref_kind == "ok" and same(got, ref)


@pytest.mark.parametrize("text", GIVES_UP)
def test_subset_gives_up_outside_the_subset(text: str) -> None:
    assert subset(text) is Unsupported
    assert ours(text) == reference(text)  # PyYAML's result or error


def test_deep_nesting_is_left_to_pyyaml() -> None:
    text = "a: " + "[" * 300 + "]" * 300 + "\n"
    assert check_subset(text) and ours(text) == reference(text)
    deep = "".join(" " * i + f"k{i}:\n" for i in range(400)) + " " * 400 + "k: v\n"
    with pytest.raises(RecursionError):  # the subset reader recurses per level...
        _yaml._subset.read(deep)
    assert ours(deep) == reference(deep)  # ...and hands such a document to PyYAML


def test_subset_reads_the_bundled_and_generated_scenarios() -> None:
    # the point of the fast path: scenario files as people (and bench/generate) write them
    root = Path(__file__).resolve().parents[1]
    texts = [p.read_text() for p in sorted((root / "example_scenarios").rglob("*.yaml"))]
    sys.path.insert(0, str(root / "bench"))
    try:
        from bench_plugin import SCENARIO
    finally:
        sys.path.pop(0)
    texts.append(SCENARIO.format(i=7, q=1, aq=2, expect="expect: fail"))
    assert texts and all(check_subset(t) for t in texts)


# YAML-ish texts: block and flow collections, plain/quoted scalars, random spacing and
# comments.  ``tame``: valid by construction (keys and values of plain characters, which may
# still read as bools, ints, nulls...); otherwise made of the characters that matter to YAML,
# separators and indentation drawn at random, so most texts are invalid.  Either way the subset
# reader must agree with PyYAML or give up.
_NASTY = st.text(alphabet=st.sampled_from(list("ab1_0.-+:#?,[]{}&*!|>'\"%@` ~xyéTtrueNnOo\\")), min_size=0, max_size=6)
_TAME = st.text(alphabet=st.sampled_from(list("abxyz019_.-+@/ TtrueFfalsNnOoYy~é")), min_size=1, max_size=6).map(str.strip).filter(
    lambda t: bool(t) and t[0] not in "-@" and not t.startswith(("0", "1", "9"))  # no timestamps
)
_PRINTABLE = st.text(alphabet=st.characters(blacklist_categories=("Cc", "Cs", "Zl", "Zp"), blacklist_characters="\ufeff\x85"), max_size=8)
_TAME_VALUE = st.one_of(_TAME, st.integers(-999, 999).map(str), st.sampled_from(["1.5", "-0.25", ".inf", "~", "null", "yes", "Off", "0o17", "0x1f", "1_000"]))


@st.composite
def yamlish(draw: st.DrawFn, tame: bool) -> str:
    def scalar(key: bool = False) -> str:
        style = draw(st.sampled_from(["plain", "plain", "plain", "sq", "dq"] if not key or not tame else ["plain"]))
        raw = draw(_NASTY if not tame else (_TAME if key else _TAME_VALUE if style == "plain" else _PRINTABLE))
        if style == "sq":
            return "'" + raw.replace("'", "''").replace("\n", " ") + "'"
        if style == "dq":
            return '"' + raw.replace('"', "").replace("\\", "").replace("\n", " ") + '"'
        return raw

    def sep() -> str:
        return ": " if tame else draw(st.sampled_from([": ", ":  ", ":", " : "]))

    def flow(d: int, indent: int) -> str:
        if d > 2 or draw(st.booleans()):
            return scalar()
        brk = "\n" + " " * (indent + draw(st.integers(1, 3)))
        sp = draw(st.sampled_from(["", " ", "  ", brk] if tame else ["", " ", "  ", "\n    ", "\n"]))
        if draw(st.booleans()):
            items = [flow(d + 1, indent) for _ in range(draw(st.integers(0, 3)))]
            return "[" + sp + ("," + sp).join(items) + "]"
        pairs = [scalar(key=True) + sep() + flow(d + 1, indent) for _ in range(draw(st.integers(0, 3)))]
        return "{" + sp + ("," + sp).join(pairs) + "}"

    def block(indent: int, d: int, seq: bool | None = None) -> list[str]:
        pad = " " * indent
        lines: list[str] = []
        seq = draw(st.booleans()) if seq is None else seq
        for _ in range(draw(st.integers(1, 3))):
            head = pad + ("- " if seq else scalar(key=True) + sep())
            if d < 2 and draw(st.integers(0, 3)) == 0:
                lines.append(head.rstrip() + draw(st.sampled_from(["", "  # c"])))
                if tame:
                    # a deeper block; under a key also a sequence at the key's own indent
                    if not seq and draw(st.booleans()):
                        lines += block(indent, d + 1, seq=True)
                    else:
                        lines += block(indent + draw(st.sampled_from([1, 2, 4])), d + 1)
                else:
                    lines += block(indent + draw(st.sampled_from([0, 1, 2, 4])), d + 1)
            elif seq and d < 2 and draw(st.integers(0, 3)) == 0:
                # a compact mapping or sequence in the item
                sub = block(indent + 2, d + 1)
                lines.append(head + sub[0].lstrip(" "))
                lines += sub[1:]
            else:
                comment = draw(st.sampled_from(["", " # c"] if tame else ["", " # c", "#c"]))
                lines.append(head + flow(0, indent) + comment)
        return lines

    lines = block(0, 0)
    if draw(st.booleans()):
        extra = ["", "# x", "   ", "  # y"] if tame else ["", "# x", "   ", "---", "  # y"]
        lines.insert(draw(st.integers(1 if tame else 0, len(lines))), draw(st.sampled_from(extra)))
    if tame and draw(st.booleans()):
        lines.insert(0, "---")
    return "\n".join(lines) + draw(st.sampled_from(["\n", "", "\n\n"]))


@settings(max_examples=1500, deadline=None)
@given(yamlish(tame=True))
def test_subset_reads_valid_plain_documents_like_pyyaml(text: str) -> None:
    check_subset(text)


@settings(max_examples=1500, deadline=None)
@given(yamlish(tame=False))
def test_subset_agrees_with_pyyaml_or_gives_up(text: str) -> None:
    check_subset(text)


@settings(max_examples=300, deadline=None)
@given(trees, st.sampled_from([None, True, False]), st.sampled_from([2, 4]), st.booleans())
def test_subset_reads_dumped_data_like_pyyaml(data: object, flow: bool | None, indent: int, unicode: bool) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, indent=indent, allow_unicode=unicode, width=60)
    check_subset(text)


@settings(max_examples=800, deadline=None)
@given(st.data())
def test_subset_agrees_on_mutated_documents(data: st.DataObject) -> None:
    text = data.draw(st.sampled_from(SUBSET_DOCUMENTS + GIVES_UP))
    for _ in range(data.draw(st.integers(1, 3))):
        pos = data.draw(st.integers(0, len(text)))
        op = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        ch = data.draw(st.sampled_from(list(" \n:-#,[]{}'\"&*!|>?%@`\\\tab1.~")))
        if op == "insert":
            text = text[:pos] + ch + text[pos:]
        elif op == "delete":
            text = text[:pos] + text[pos + 1 :]
        else:
            text = text[:pos] + ch + text[pos + 1 :]
    check_subset(text)
