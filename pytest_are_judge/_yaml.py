"""YAML loading: PyYAML's *safe* loader semantics, faster.

With libyaml (``CSafeLoader``), parsing and composing run in C but PyYAML still resolves every
scalar's tag and constructs every Python object in Python.  For the plain data scenario files
hold (mappings, sequences, str/int/float/bool/null) we do both more cheaply:

* tag resolution of plain scalars is memoised by value (it depends on nothing else for the safe
  loader, which has no path resolvers), and the per-node path-resolver calls are skipped;
* a direct constructor builds dicts, lists and scalars from the node tree (aliases keep sharing
  one object, as with PyYAML).  Any other tag (timestamps, sets, binary, merge keys ``<<``...) or
  a non-scalar key hands the whole document to PyYAML's own constructor, so results and error
  messages are PyYAML's in every case.

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


class _Fallback(Exception):
    """The document needs PyYAML's general constructor."""


def _fast_loader_class() -> Any:
    global _loader_class, _ScalarNode, _SequenceNode, _MappingNode
    if _loader_class is not None:
        return _loader_class
    import yaml
    from yaml.nodes import MappingNode, ScalarNode, SequenceNode

    _ScalarNode, _SequenceNode, _MappingNode = ScalarNode, SequenceNode, MappingNode

    base = getattr(yaml, "CSafeLoader", None)
    if base is None:
        _loader_class = False
        return False
    cache: dict[str, str] = {}

    class _Loader(base):  # type: ignore[misc, valid-type]
        # a private copy: later global add_implicit_resolver calls cannot make the cache stale
        yaml_implicit_resolvers = {k: list(v) for k, v in base.yaml_implicit_resolvers.items()}
        yaml_path_resolvers: dict[Any, Any] = {}

        def descend_resolver(self, current_node: Any, current_index: Any) -> None:
            return None  # no path resolvers: nothing to track

        def ascend_resolver(self) -> None:
            return None

        def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
            if kind is ScalarNode and implicit[0]:
                tag = cache.get(value)
                if tag is None:
                    tag = base.resolve(self, kind, value, implicit)
                    if len(cache) < _TAG_CACHE_MAX:
                        cache[value] = tag
                return tag
            return base.resolve(self, kind, value, implicit)

    _loader_class = _Loader
    return _Loader


def _build(loader: Any, node: Any, memo: dict[int, Any]) -> Any:
    key = id(node)
    if key in memo:
        return memo[key]
    cls, tag = type(node), node.tag
    if cls is _ScalarNode:
        if tag == _STR:
            value: Any = node.value
        elif tag == _INT:
            v = node.value
            # plain decimals directly; signs, '_', 0x/0o/0b, YAML 1.1 octal (leading 0) and
            # sexagesimal (1:30) through PyYAML
            value = int(v) if v.isdigit() and (v[0] != "0" or v == "0") else loader.construct_yaml_int(node)
        elif tag == _FLOAT:
            value = loader.construct_yaml_float(node)
        elif tag == _BOOL:
            value = loader.construct_yaml_bool(node)
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
            items.append(_build(loader, child, memo))
        return items
    if cls is _MappingNode and tag == _MAP:
        mapping: dict[Any, Any] = {}
        memo[key] = mapping
        for key_node, value_node in node.value:
            if type(key_node) is not _ScalarNode or key_node.tag not in _SCALAR_KEY_TAGS:
                raise _Fallback  # merge keys, complex keys: PyYAML's rules and errors
            mapping[_build(loader, key_node, memo)] = _build(loader, value_node, memo)
        return mapping
    raise _Fallback


def load_yaml(text: str) -> Any:
    """``yaml.safe_load(text)``, through the fast path when libyaml is available."""
    import yaml

    cls = _fast_loader_class()
    if not cls:
        return yaml.load(text, Loader=yaml.SafeLoader)  # noqa: S506 - the safe loader
    loader = cls(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        try:
            return _build(loader, node, {})
        except (_Fallback, RecursionError):
            return loader.construct_document(node)
    finally:
        loader.dispose()
