"""YAML loading with PyYAML's *safe* loader semantics, made safe for untrusted files.

On top of ``yaml.safe_load`` (libyaml's ``CSafeLoader`` when available):

- **duplicate keys** are an error (PyYAML silently keeps the last one, so a second, weaker
  ``args:`` would win);
- **nesting** deeper than :data:`MAX_DEPTH` is an error, checked *before* libyaml composes the
  document (its composer recurses in C: 100,000 nested flow lists crash the process);
- **aliases** must not form cycles nor expand past :data:`MAX_NODES` values ("billion laughs");
- plain scalars (str, int, float, bool, null) in plain collections are built directly over
  libyaml's node tree; any other tag (timestamps, sets, binary, merge keys ``<<``...) goes to
  PyYAML's own constructor, so values and errors stay PyYAML's.
"""

from __future__ import annotations

import re
from typing import Any

MAX_DEPTH = 100
"""Deepest nesting of collections a document may have."""
MAX_NODES = 1_000_000
"""Most values a document may hold once its aliases are expanded."""

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP = (_T + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))
_PLAIN_SCALARS = frozenset((_STR, _INT, _FLOAT, _BOOL, _NULL))
_TAG_CACHE_MAX = 50_000


class YamlLimitError(ValueError):
    """A document that is valid YAML but beyond what a scenario file may be."""

    def __init__(self, problem: str, mark: Any = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class _Fallback(Exception):
    """The document needs PyYAML's general constructor."""


_state: dict[str, Any] = {}


def _setup() -> dict[str, Any]:
    """PyYAML's classes, a loader with a memoised resolver for plain scalars, a constructor."""
    if _state:
        return _state
    import yaml
    from yaml.constructor import SafeConstructor
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    base = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    # a private copy: later global add_implicit_resolver calls cannot make the cache stale
    table = {k: list(v) for k, v in base.yaml_implicit_resolvers.items()}
    cache: dict[str, str] = {}
    default = base.DEFAULT_SCALAR_TAG

    def plain_tag(value: str) -> str:
        """The implicit tag of a plain scalar (PyYAML's ``BaseResolver.resolve``), memoised."""
        tag = cache.get(value)
        if tag is None:
            tag = default
            for t, regexp in table.get(value[0] if value else "", []) + table.get(None, []):
                if regexp.match(value):
                    tag = t
                    break
            if len(cache) < _TAG_CACHE_MAX:
                cache[value] = tag
        return tag

    class _Loader(base):  # type: ignore[misc, valid-type]
        yaml_implicit_resolvers = table

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode and implicit[0]:
                return plain_tag(value)
            return str(super().resolve(kind, value, implicit))

    _state.update(
        yaml=yaml,
        loader=_Loader,
        constructor=SafeConstructor(),
        scalar=ScalarNode,
        sequence=SequenceNode,
        mapping=MappingNode,
    )
    return _state


# ------------------------------------------------------------------ nesting, before composing

_FLOW = re.compile(r"[\[\]{}]")


def _looks_deep(text: str) -> bool:
    """A cheap over-estimate of the nesting: flow brackets, indentation, ``- - -`` runs."""
    depth = best = 0
    for ch in _FLOW.findall(text):
        depth = depth + 1 if ch in "[{" else max(0, depth - 1)
        best = max(best, depth)
    if best > MAX_DEPTH // 2:
        return True
    for line in text.splitlines():
        stripped = line.lstrip(" ")
        dashes = len(stripped) - len(stripped.lstrip("- "))
        if len(line) - len(stripped) + dashes > MAX_DEPTH:
            return True
    return False


def _check_depth(text: str, loader: Any) -> None:
    """The exact nesting from libyaml's event stream (iterative: nothing recurses)."""
    y = _state["yaml"]
    depth = 0
    for event in y.parse(text, Loader=loader):
        if isinstance(event, (y.SequenceStartEvent, y.MappingStartEvent)):
            depth += 1
            if depth > MAX_DEPTH:
                raise YamlLimitError(f"the document is nested deeper than {MAX_DEPTH} levels", event.start_mark)
        elif isinstance(event, (y.SequenceEndEvent, y.MappingEndEvent)):
            depth -= 1


# ------------------------------------------------------------------ the node tree


def _check_nodes(root: Any) -> None:
    """Duplicate keys, alias cycles and the expanded size, over the composed node tree."""
    mapping, scalar = _state["mapping"], _state["scalar"]
    sizes: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[tuple[Any, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            on_stack.discard(key)
            if isinstance(node, mapping):
                children = [n for pair in node.value for n in pair]
            else:
                children = list(node.value)
            total = 1 + sum(sizes[id(c)] for c in children)
            if total > MAX_NODES:
                raise YamlLimitError(
                    f"the document expands to more than {MAX_NODES:,} values (aliases used as a 'billion laughs' bomb?)",
                    node.start_mark,
                )
            sizes[key] = total
            continue
        if key in sizes:
            continue
        if isinstance(node, scalar):
            sizes[key] = 1
            continue
        if key in on_stack:
            raise YamlLimitError(
                "an alias refers to a collection that contains it (a recursive document)", node.start_mark
            )
        on_stack.add(key)
        stack.append((node, True))
        if isinstance(node, mapping):
            _check_duplicate_keys(node)
            children = [n for pair in node.value for n in pair]
        else:
            children = list(node.value)
        for child in reversed(children):
            if id(child) in on_stack:
                raise YamlLimitError(
                    "an alias refers to a collection that contains it (a recursive document)", child.start_mark
                )
            if id(child) not in sizes:
                stack.append((child, False))


def _check_duplicate_keys(node: Any) -> None:
    scalar = _state["scalar"]
    seen: dict[Any, Any] = {}
    for key_node, _ in node.value:
        if type(key_node) is not scalar or key_node.tag not in _PLAIN_SCALARS or key_node.value == "<<":
            continue  # merge keys and complex keys: PyYAML's rules
        key = (key_node.tag, _plain(key_node))
        if key in seen:
            raise YamlLimitError(
                f"duplicate key {key_node.value!r} (also on line {seen[key].start_mark.line + 1}): "
                "YAML would silently keep only the last one",
                key_node.start_mark,
            )
        seen[key] = key_node


def _plain(node: Any) -> Any:
    """The value of a plain (str/int/float/bool/null) scalar node."""
    tag, value = node.tag, node.value
    if tag == _STR:
        return value
    if tag == _NULL:
        return None
    if tag == _INT and value.isdigit() and (value[0] != "0" or value == "0") and len(value) < 4000:
        return int(value)
    c = _state["constructor"]
    if tag == _INT:
        return c.construct_yaml_int(node)
    if tag == _FLOAT:
        return c.construct_yaml_float(node)
    return c.construct_yaml_bool(node)


def _build(node: Any, memo: dict[int, Any]) -> Any:
    """Plain data straight from the node tree (aliases share one object, as with PyYAML); a
    duplicate key is an error."""
    key = id(node)
    if key in memo:
        return memo[key]
    cls, tag = type(node), node.tag
    if cls is _state["scalar"]:
        if tag not in _PLAIN_SCALARS:
            raise _Fallback
        value = memo[key] = _plain(node)
        return value
    if cls is _state["sequence"] and tag == _SEQ:
        items: list[Any] = []
        memo[key] = items
        for child in node.value:
            items.append(_build(child, memo))
        return items
    if cls is _state["mapping"] and tag == _MAP:
        mapping: dict[Any, Any] = {}
        memo[key] = mapping
        for key_node, value_node in node.value:
            if type(key_node) is not _state["scalar"] or key_node.tag not in _PLAIN_SCALARS or key_node.value == "<<":
                raise _Fallback  # merge keys, complex keys: PyYAML's rules and errors
            k = _build(key_node, memo)
            if k in mapping:
                _check_duplicate_keys(node)  # the error names both lines
            mapping[k] = _build(value_node, memo)
        return mapping
    raise _Fallback


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)`` for one document, with the checks above (:class:`YamlLimitError`
    or PyYAML's own errors for invalid input)."""
    st = _setup()
    if _looks_deep(text):
        _check_depth(text, st["loader"])
    loader = st["loader"](text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        # without an anchor there is no alias: no cycle, no expansion, and _build finds duplicate keys
        checked = "&" in text
        if checked:
            _check_nodes(node)
        try:
            return _build(node, {})
        except _Fallback:
            if not checked:
                _check_nodes(node)
            return loader.construct_document(node)
    finally:
        loader.dispose()
