"""The plugin's resolved settings (command line over ini, from :data:`~pytest_are_judge.options.OPTIONS`)
and the session judge config.

Only the stdlib and pytest at import time; the judge config (pydantic) is built on first use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from ..errors import UsageError
from ..options import Settings, check_combinations, plugin_options, resolve

_SETTINGS_KEY = pytest.StashKey[Settings]()
_CONFIG_KEY = pytest.StashKey[Any]()
_CHECKERS_KEY = pytest.StashKey[bool]()


def settings(config: pytest.Config) -> Settings:
    """The session's settings (a usage error, raised once, for a bad value)."""
    cached = config.stash.get(_SETTINGS_KEY, None)
    if cached is not None:
        return cached
    try:
        s = resolve(
            plugin_options(),
            context="plugin",
            cli=lambda opt: config.getoption(opt.ini or opt.key, None),
            ini=lambda opt: config.getini(opt.ini) if opt.ini else None,
            cli_base=config.invocation_params.dir,
            ini_base=lambda opt: None if opt.kind == "paths" else config.rootpath,
        )
        check_combinations(s, plugin=True)
    except UsageError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[_SETTINGS_KEY] = s
    return s


def is_active(config: pytest.Config) -> bool:
    """The session part (collection, summary, gating) runs only when an option/ini key is set."""
    return bool(settings(config).explicit)


def needs_views(s: Settings) -> bool:
    """Do items build report views for the HTML / Markdown reports?"""
    return bool(s.html or s.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"))


def hf_label(s: Settings) -> str:
    """The dataset as shown in messages: ``DATASET [config=NAME] [split=SPLIT]``."""
    extra = [f"{k}={v}" for k, v in (("config", s.hf_config), ("split", s.hf_split)) if v]
    return " ".join([str(s.hf), *extra])


def scenario_roots(s: Settings) -> list[Path]:
    return list(s.scenarios or [])


def config_file(config: pytest.Config) -> str | None:
    """The judge config file: ``--are-config`` (ini ``are_config``), else the rootdir's
    ``pyproject.toml`` when it has a ``[tool.are_judge]`` table."""
    s = settings(config)
    if s.config:
        return str(s.config)
    pyproject = config.rootpath / "pyproject.toml"
    try:
        text = pyproject.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return str(pyproject) if "[tool.are_judge" in text else None


def session_config(config: pytest.Config) -> Any:
    """The judge config of this session: the config file (:func:`config_file`), then option
    overrides.  Raises :class:`pytest_are_judge.errors.InputError` for a bad config file.
    """
    cached = config.stash.get(_CONFIG_KEY, None)
    if cached is not None:
        return cached
    from ..pipeline import configured

    s = settings(config)
    cfg = configured(config_file(config), s.config_overrides())
    config.stash[_CONFIG_KEY] = cfg
    return cfg


def ensure_checkers(config: pytest.Config) -> None:
    """Call ``pytest_are_judge_register_checkers`` once per process, before the first judging."""
    if config.stash.get(_CHECKERS_KEY, False):
        return
    config.stash[_CHECKERS_KEY] = True
    from ..checkers import register_checker

    config.hook.pytest_are_judge_register_checkers(register=register_checker)


def check_session_config(config: pytest.Config) -> None:
    """Usage errors once, before any test: a bad config file, LLM options while LLM judging is
    off, LLM judging without the ``[llm]`` extra."""
    from ..errors import InputError

    s = settings(config)
    try:
        cfg = session_config(config)
    except InputError as exc:
        name = s.name("config") if s.config else "[tool.are_judge] in pyproject.toml"
        raise pytest.UsageError(f"{name}: {exc}") from None
    llm_from_cli = [s.given[k] for k in s.explicit if k in s.from_cli and getattr(_option(k), "llm", False)]
    if llm_from_cli and not cfg.llm:
        raise pytest.UsageError(
            f"{', '.join(llm_from_cli)} given while LLM judging is off: add {s.name('llm')} "
            "(or llm: true in the judge config)"
        )
    if cfg.llm:
        import importlib.util

        if importlib.util.find_spec("litellm") is None:
            raise pytest.UsageError(
                "LLM judging is on but litellm is not installed: pip install 'pytest-are-judge[llm]'"
            )


def _option(key: str) -> Any:
    from ..options import BY_KEY

    return BY_KEY.get(key)
