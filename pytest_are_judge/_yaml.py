"""YAML loading through libyaml when PyYAML was built with it (about 10x faster), else pure Python.

Both loaders are the *safe* loader: same tags, same results, same error marks.
"""

from __future__ import annotations

from typing import Any


def load_yaml(text: str) -> Any:
    import yaml

    loader = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    return yaml.load(text, Loader=loader)  # noqa: S506 - a safe loader
