"""YAML loading: PyYAML's *safe* loader semantics, faster.

With libyaml (``CSafeLoader``), parsing and composing run in C but PyYAML still creates a Python
object per node, resolves every scalar's tag and constructs every value in Python.  Here:

1. libyaml's node tree, with tag resolution of plain scalars memoised by value (it depends on
   nothing else for the safe loader, which has no path resolvers) and a direct constructor for
   dicts, lists and str/int/float/bool/null scalars (aliases keep sharing one object, as with
   PyYAML);
2. PyYAML's own constructor, for any other tag (timestamps, sets, binary, merge keys ``<<``...)
   or a non-scalar key: so results and error messages are PyYAML's in every case.

Without libyaml, PyYAML's pure-Python ``SafeLoader`` is used as is.
"""

from __future__ import annotations

from typing import Any

_T = "tag:yaml.org,2002:"
_STR, _INT, _FLOAT, _BOOL, _NULL, _SEQ, _MAP = (_T + t for t in ("str", "int", "float", "bool", "null", "seq", "map"))
_SCALAR_KEY_TAGS = frozenset((_STR, _INT, _FLOAT, _BOOL, _NULL))
_TAG_CACHE_MAX = 50_000

_loader_class: Any = None
_ScalarNode: Any = None
_SequenceNode: Any = None
_MappingNode: Any = None
_constructor: Any = None


class _Fallback(Exception):
    """The document needs PyYAML's general constructor."""


def _fast_loader_class() -> Any:
    global _loader_class, _ScalarNode, _SequenceNode, _MappingNode
    if _loader_class is not None:
        return _loader_class
    import yaml
    from yaml.constructor import SafeConstructor
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    _ScalarNode, _SequenceNode, _MappingNode = ScalarNode, SequenceNode, MappingNode

    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        _loader_class = False
        return False
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
        yaml_path_resolvers: dict[Any, Any] = {}  # noqa: RUF012 - PyYAML's class attribute

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            return None  # no path resolvers: nothing to track

        def ascend_resolver(self) -> None:
            return None

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode and implicit[0]:
                return plain_tag(value)
            return str(super().resolve(kind, value, implicit))

    global _constructor
    _constructor = SafeConstructor()
    _loader_class = _Loader
    return _Loader


def _build(node: Any, memo: dict[int, Any]) -> Any:
    key = id(node)
    if key in memo:
        return memo[key]
    cls, tag = type(node), node.tag
    if cls is _ScalarNode:
        if tag == _STR:
            value: Any = node.value
        elif tag in (_INT, _FLOAT, _BOOL):
            value = _construct_plain(tag, node.value)
        elif tag == _NULL:
            value = None
        else:
            raise _Fallback
        memo[key] = value
        return value
    if cls is _SequenceNode and tag == _SEQ:
        items: list[Any] = []
        memo[key] = items
        for child in node.value:
            items.append(_build(child, memo))
        return items
    if cls is _MappingNode and tag == _MAP:
        mapping: dict[Any, Any] = {}
        memo[key] = mapping
        for key_node, value_node in node.value:
            if type(key_node) is not _ScalarNode or key_node.tag not in _SCALAR_KEY_TAGS:
                raise _Fallback  # merge keys, complex keys: PyYAML's rules and errors
            mapping[_build(key_node, memo)] = _build(value_node, memo)
        return mapping
    raise _Fallback


def _construct_plain(tag: str, value: str) -> Any:
    """An int, float or bool scalar: plain decimals directly; signs, '_', 0x/0o/0b, YAML 1.1
    octal (leading 0), sexagesimal (1:30), floats and bools by PyYAML's constructor."""
    if tag == _INT and value.isdigit() and (value[0] != "0" or value == "0"):
        return int(value)
    node = _ScalarNode(tag, value)
    if tag == _INT:
        return _constructor.construct_yaml_int(node)
    if tag == _FLOAT:
        return _constructor.construct_yaml_float(node)
    return _constructor.construct_yaml_bool(node)


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, through the fast path when libyaml is available."""
    import yaml

    cls = _fast_loader_class()
    if not cls:
        return yaml.load(text, Loader=yaml.SafeLoader)
    loader = cls(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _build(node, {})
        except (_Fallback, RecursionError):
            return loader.construct_document(node)
    finally:
        loader.dispose()
