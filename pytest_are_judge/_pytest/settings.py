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


def session_config(config: pytest.Config) -> Any:
    """The judge config of this session: the ``--are-config`` file, then option overrides.

    Raises :class:`pytest_are_judge.errors.InputError` for a bad config file.
    """
    cached = config.stash.get(_CONFIG_KEY, None)
    if cached is not None:
        return cached
    from ..pipeline import configured

    s = settings(config)
    cfg = configured(s.config, s.config_overrides())
    config.stash[_CONFIG_KEY] = cfg
    return cfg


def ensure_checkers(config: pytest.Config) -> None:
    """Call ``pytest_are_judge_register_checkers`` once per process, before the first judging."""
    if config.stash.get(_CHECKERS_KEY, False):
        return
    config.stash[_CHECKERS_KEY] = True
    from ..checkers import register_checker

    config.hook.pytest_are_judge_register_checkers(register=register_checker)
