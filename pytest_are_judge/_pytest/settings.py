"""Resolved plugin settings (command line over ini) and the session judge config.

Only the stdlib and pytest at import time; the judge config (pydantic) is built on first use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

_SETTINGS_KEY = pytest.StashKey["Settings"]()
_CONFIG_KEY = pytest.StashKey[Any]()
_CHECKERS_KEY = pytest.StashKey[bool]()


class UsageError(pytest.UsageError):
    pass


@dataclass
class Settings:
    scenarios: list[Path] = field(default_factory=list)
    scenarios_from_cli: bool = False
    limit: int | None = None
    matching: str | None = None
    config_file: str | None = None
    min_pass_rate: float | None = None
    baseline: str | None = None
    save_baseline: str | None = None
    report: str | None = None
    hf: str | None = None
    hf_split: str | None = None
    hf_config: str | None = None
    k: int | None = None
    min_pass_hat_k: float | None = None
    html: str | None = None
    md_summary: str | None = None
    llm: bool | None = None
    judge_model: str | None = None
    judge_provider: str | None = None
    judge_endpoint: str | None = None
    llm_cache: str | None = None
    llm_replay_only: bool | None = None
    llm_concurrency: int | None = None
    judge_votes: int | None = None
    xfail_strict: bool = True
    explicit: list[str] = field(default_factory=list)
    """Names of settings that were given (for the report header)."""

    @property
    def active(self) -> bool:
        return bool(self.explicit)

    def needs_views(self) -> bool:
        """Do items build report views (``run_view``) for the HTML / Markdown reports?"""
        import os

        return bool(self.html or self.md_summary or os.environ.get("GITHUB_STEP_SUMMARY"))

    def hf_label(self) -> str:
        """The dataset as shown in messages: ``DATASET [config=NAME] [split=SPLIT]``."""
        extra = [f"{k}={v}" for k, v in (("config", self.hf_config), ("split", self.hf_split)) if v]
        return " ".join([str(self.hf), *extra])

    def config_overrides(self) -> dict[str, Any]:
        """Fields of the judge config set by options (only explicit values)."""
        out: dict[str, Any] = {}
        if self.matching:
            out["matching"] = self.matching
        if self.llm:
            out["llm"] = True
        for name in ("judge_model", "judge_provider", "judge_endpoint"):
            if getattr(self, name):
                out[name] = getattr(self, name)
        if self.judge_votes is not None:
            out["judge_votes"] = self.judge_votes
        llm_options: dict[str, Any] = {}
        if self.llm_cache:
            llm_options["cache_path"] = self.llm_cache
        if self.llm_replay_only:
            llm_options["replay_only"] = True
        if self.llm_concurrency is not None:
            llm_options["concurrency"] = self.llm_concurrency
        if llm_options:
            out["llm_options"] = llm_options
        return out

    def header(self) -> str:
        shown = []
        for name in self.explicit:
            value = getattr(self, name)
            if name == "scenarios":
                value = ", ".join(str(p) for p in value)
            shown.append(f"{name}={value}")
        return "are-judge: " + ", ".join(shown)


def _parse_rate(raw: str, name: str = "--are-min-pass-rate") -> float:
    from .._rate import parse_rate

    try:
        return parse_rate(raw)
    except ValueError as exc:
        raise UsageError(f"{name}: {exc}") from None


def _int(name: str, raw: Any) -> int:
    try:
        value = int(raw)
    except (TypeError, ValueError):
        raise UsageError(f"{name}: expected an integer, got {raw!r}") from None
    if value < 1 and name != "are_limit":
        raise UsageError(f"{name}: must be at least 1, got {value}")
    if value < 0:
        raise UsageError(f"{name}: must not be negative, got {value}")
    return value


def settings(config: pytest.Config) -> Settings:
    cached = config.stash.get(_SETTINGS_KEY, None)
    if cached is not None:
        return cached
    s = Settings()

    def pick(name: str) -> Any:
        cli = config.getoption(name, None)
        if cli is not None:
            return cli, True
        ini = config.getini(name)
        if ini in ("", None, [], False):
            return None, False
        return ini, False

    cli_paths = config.getoption("are_scenarios", None)
    if cli_paths:
        s.scenarios = [Path(p) if Path(p).is_absolute() else Path(config.invocation_params.dir, p) for p in cli_paths]
        s.scenarios_from_cli = True
        s.explicit.append("scenarios")
    else:
        ini_paths = config.getini("are_scenarios")
        if ini_paths:
            s.scenarios = [Path(p) for p in ini_paths]
            s.explicit.append("scenarios")
    value, _ = pick("are_limit")
    if value is not None:
        s.limit = _int("are_limit", value)
        s.explicit.append("limit")
    value, _ = pick("are_matching")
    if value is not None:
        if value not in ("greedy", "exact"):
            raise UsageError(f"are_matching: expected 'greedy' or 'exact', got {value!r}")
        s.matching = value
        s.explicit.append("matching")
    for opt, attr in (
        ("are_config", "config_file"),
        ("are_baseline", "baseline"),
        ("are_save_baseline", "save_baseline"),
        ("are_report", "report"),
        ("are_html", "html"),
        ("are_md_summary", "md_summary"),
        ("are_llm_cache", "llm_cache"),
    ):
        value, from_cli = pick(opt)
        if value is not None:
            path = Path(value)
            if not path.is_absolute():
                base = config.invocation_params.dir if from_cli else config.rootpath
                path = base / path
            setattr(s, attr, str(path))
            s.explicit.append(attr)
    value, _ = pick("are_min_pass_rate")
    if value is not None:
        s.min_pass_rate = _parse_rate(value)
        s.explicit.append("min_pass_rate")
    value, from_cli = pick("are_hf")
    if value:
        # a local dataset (folder or file) is resolved like other paths; anything else is a
        # dataset name for the Hugging Face cache and is passed on unchanged
        base = config.invocation_params.dir if from_cli else config.rootpath
        local = Path(value) if Path(value).is_absolute() else base / value
        s.hf = str(local) if local.exists() else str(value)
        s.explicit.append("hf")
    for opt, attr in (("are_hf_split", "hf_split"), ("are_hf_config", "hf_config")):
        value, _ = pick(opt)
        if value:
            if not s.hf:
                raise UsageError(f"--{opt.replace('_', '-')} needs --are-hf (ini are_hf)")
            setattr(s, attr, str(value))
            s.explicit.append(attr)
    value, _ = pick("are_k")
    if value is not None:
        s.k = _int("are_k", value)
        s.explicit.append("k")
    value, _ = pick("are_min_pass_hat_k")
    if value is not None:
        s.min_pass_hat_k = _parse_rate(value, "--are-min-pass-hat-k")
        s.explicit.append("min_pass_hat_k")
    for opt, attr in (
        ("judge_model", "judge_model"),
        ("judge_provider", "judge_provider"),
        ("judge_endpoint", "judge_endpoint"),
    ):
        value, _ = pick(opt)
        if value:
            setattr(s, attr, str(value))
            s.explicit.append(attr)
    for opt, attr in (("are_llm", "llm"), ("are_llm_replay_only", "llm_replay_only")):
        value, _ = pick(opt)
        if value:
            setattr(s, attr, True)
            s.explicit.append(attr)
    for opt, attr in (("are_llm_concurrency", "llm_concurrency"), ("are_judge_votes", "judge_votes")):
        value, _ = pick(opt)
        if value is not None:
            setattr(s, attr, _int(opt, value))
            s.explicit.append(attr)
    if s.hf and not s.scenarios:
        raise UsageError(
            "--are-hf needs --are-scenarios (ini are_scenarios): the agent runs to judge against the dataset's scenarios"
        )
    s.xfail_strict = bool(config.getini("are_xfail_strict"))
    config.stash[_SETTINGS_KEY] = s
    return s


def is_active(config: pytest.Config) -> bool:
    """The session part (collection, summary, gating) runs only when an option/ini key is set."""
    return settings(config).active


def session_config(config: pytest.Config) -> Any:
    """The judge config of this session: ``--are-config`` file, then option overrides.

    Raises :class:`pytest_are_judge.errors.InputError` for a bad config file.
    """
    cached = config.stash.get(_CONFIG_KEY, None)
    if cached is not None:
        return cached
    from ..judge.config import GraphPerEventJudgeConfig, config_from_mapping, load_config

    s = settings(config)
    base = load_config(s.config_file) if s.config_file else None
    overrides = s.config_overrides()
    if overrides:
        if "llm_options" in overrides and base is not None:
            overrides["llm_options"] = {**base.llm_options, **overrides["llm_options"]}
        cfg = config_from_mapping(overrides, source="command line options", base=base)
    else:
        cfg = base or GraphPerEventJudgeConfig()
    config.stash[_CONFIG_KEY] = cfg
    return cfg


def ensure_checkers(config: pytest.Config) -> None:
    """Call ``pytest_are_judge_register_checkers`` once per process, before the first judging."""
    if config.stash.get(_CHECKERS_KEY, False):
        return
    config.stash[_CHECKERS_KEY] = True
    from ..checkers import register_checker

    config.hook.pytest_are_judge_register_checkers(register=register_checker)


def adjust_config(config: pytest.Config, scenario: Any, cfg: Any) -> Any:
    """Apply ``pytest_are_judge_adjust_config`` results (mapping or config) to ``cfg``."""
    hook = config.hook.pytest_are_judge_adjust_config
    if not hook.get_hookimpls():
        return cfg
    results = hook(scenario=scenario, config=cfg)
    from ..judge.config import GraphPerEventJudgeConfig, config_from_mapping

    for res in results:
        if res is None:
            continue
        if isinstance(res, GraphPerEventJudgeConfig):
            cfg = res
        elif isinstance(res, dict):
            cfg = config_from_mapping(res, source="pytest_are_judge_adjust_config", base=cfg)
        else:
            raise TypeError(
                f"pytest_are_judge_adjust_config must return None, a mapping or a config, got {type(res).__name__}"
            )
    return cfg
